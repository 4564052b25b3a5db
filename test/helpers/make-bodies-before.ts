// Writes test/fixtures/bodies/before.json: what readers got of each body kind before bodies were kept once per row. Run once, on
// main at 433f68f (`npx tsx test/helpers/make-bodies-before.ts`); the test compares today's builder with it.
// One deliberate change since (issue 29): the three `binary` rows kept with `bodies` also carry the bytes as base64
// (`response_body_base64`); edited by hand, nothing else.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readerRows } from './body-reader-rows';

const lines = Object.entries(readerRows()).map(([key, row]) => `${JSON.stringify(key)}: ${JSON.stringify(row)}`);
writeFileSync(path.join(__dirname, '..', 'fixtures', 'bodies', 'before.json'), `{\n${lines.join(',\n')}\n}\n`);
