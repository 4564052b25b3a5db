import type { CliIo } from '../io';
import type { HttpRow } from '../../capture/types';
import { closeContext, openContext } from '../context';
import { QueryError } from '../../query/QueryError';
import { readSection } from '../../query/rows';
import { rowMatcher } from '../../query/rowSelect';
import { parseWhere } from '../../query/whereText';
import { mockCallsOf, type RowOf } from '../../export/mockCalls';
import { captureSource, mockText } from '../../export/mockText';
import { writeExport } from '../writeExport';
import { terminalText } from '../../util/terminalText';

/** The flags `probe export` takes for mocks (parseArgs options), beside --har and --out. */
export const MOCK_OPTIONS = {
  msw: { type: 'boolean' },
  nock: { type: 'boolean' },
  'undici-snapshot': { type: 'boolean' },
  since: { type: 'string' },
  where: { type: 'string', multiple: true },
  type: { type: 'string' },
  name: { type: 'string' },
} as const;

interface MockFlags {
  msw?: boolean;
  nock?: boolean;
  'undici-snapshot'?: boolean;
  har?: boolean;
  out?: string;
  since?: string;
  where?: string[];
  type?: string;
  name?: string;
}

/**
 * `probe export [id|*] --msw | --nock | --undici-snapshot [--out FILE]`: the calls of one capture (default the
 * newest with HTTP calls) or, with `*` or --since, of every capture chosen (--type, --name), filtered by
 * --where, as mocks. Calls that cannot be replayed are named on stderr (and in the MSW module).
 */
export async function exportMocks(values: MockFlags, positionals: string[], io: CliIo): Promise<number> {
  const formats = [values.msw && 'msw', values.nock && 'nock', values['undici-snapshot'] && 'undici-snapshot', values.har && 'har'].filter(Boolean);
  if (formats.length > 1) {
    io.err(`probe export: one format at a time (got --${formats.join(', --')})`);
    return 2;
  }
  if (positionals.length > 1) {
    io.err(`probe export: one capture id, or * (got ${positionals.length})`);
    return 2;
  }
  const context = openContext(io);
  if (!context) return 2;
  try {
    const id = positionals[0];
    const read = await readSection(context.store, { section: 'http', id, since: values.since, type: values.type, name: values.name }, Date.now() / 1000);
    if ('empty' in read) {
      io.err(`probe export: ${read.empty.note ?? 'no capture with HTTP calls in the store'}`);
      return 2;
    }
    const all = read.groups.flat();
    const matcher = rowMatcher(all, 'http', values.where?.map(parseWhere), true);
    // Oldest capture first: repeated calls then replay in the order the app made them.
    const rows: RowOf[] = read.groups
      .slice()
      .reverse()
      .flatMap((group) => group.filter(matcher.matches).map((item) => ({ capture: item.capture, row: item.row as HttpRow, index: item.index })));
    const mocks = mockCallsOf(rows);
    const source = read.capture ? captureSource(read.capture) : `${read.groups.length} captures`;
    const text = mockText(values.msw ? 'msw' : values.nock ? 'nock' : 'undici-snapshot', mocks, source);
    for (const left of mocks.left_out)
      io.err(`probe export: ${terminalText(`left out ${left.method} ${left.url} (capture ${left.capture_id} row ${left.row}): ${left.reason}`)}`);
    const leftOut = mocks.left_out.length ? ` (${mocks.left_out.length} left out)` : '';
    writeExport(io, values.out, text, (file) => `${mocks.calls.length} calls of ${source} written to ${file}${leftOut}`);
    return 0;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    io.err(`probe export: ${terminalText(error.message)}`);
    return 2;
  } finally {
    await closeContext(context);
  }
}
