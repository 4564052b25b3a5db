import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { QueryError } from '../../query/QueryError';
import { findCapture, newestCapture } from '../../query/locate';
import { harOf } from '../../export/har';
import { packageVersion } from '../../util/packageVersion';
import { MOCK_OPTIONS, exportMocks } from './exportMocks';
import { writeExport } from '../writeExport';
import { jsonText } from '../../util/jsLiteral';
import { terminalText } from '../../util/terminalText';

const USAGE = 'usage: probe export [id] [--har | --msw | --nock | --undici-snapshot] [--out FILE] (probe export --help)';

/** `probe export <id> --har`: a capture's calls as a HAR file. */
export const exportCapture: CliCommand = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      har: { type: 'boolean' },
      out: { type: 'string', short: 'o' },
      ...MOCK_OPTIONS,
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.msw || values.nock || values['undici-snapshot']) return exportMocks(values, positionals, io);
  if (positionals.length > 1) {
    io.err(`probe export: one capture id at a time (got ${positionals.length})\n${USAGE}`);
    return 2;
  }
  const context = openContext(io);
  if (!context) return 2;
  try {
    const id = positionals[0];
    const capture = id
      ? await findCapture(context.store, id)
      : await newestCapture(context.store, await context.store.index(), (row) => (row.counts.http ?? 0) > 0);
    if (!capture) {
      io.err('probe export: no capture with HTTP calls in the store');
      return 2;
    }
    const har = jsonText(harOf([capture], packageVersion()), 2);
    writeExport(io, values.out, har, (file) => `${capture.id} (${capture.name}): ${capture.sections.http?.length ?? 0} calls written to ${file}`);
    return 0;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    io.err(`probe export: ${terminalText(error.message)}`);
    return 2;
  } finally {
    await closeContext(context);
  }
};
