// The file driver as the store contract suite drives it (file.contract.test.ts, threaded-file.contract.test.ts).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DriverUnderTest } from './contract';

export const fileDriver: DriverUnderTest = {
  name: 'file',
  config: ({ limit }) => `export default { storage: { driver: 'file', limit: ${limit} } };\n`,
  async corrupt(app, id, what) {
    const dir = path.join(app.dir, '.probe', 'captures');
    const name = readdirSync(dir).find((file) => file.endsWith(`-${id}.json`));
    if (!name) throw new Error(`no capture file for ${id}`);
    // The file holds the index row, then the capture: cut it inside the one or the other.
    const text = readFileSync(path.join(dir, name), 'utf8');
    const cut = what === 'capture' ? text.indexOf(',"capture":') + 20 : 20;
    writeFileSync(path.join(dir, name), text.slice(0, cut));
  },
  supportsTtl: false,
  listsOnlyReadable: true,
};
