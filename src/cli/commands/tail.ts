import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import type { HttpRow } from '../../capture/types';
import { closeContext, openContext } from '../context';
import { indexRowOf } from '../../capture/indexRow';
import { QueryError } from '../../query/QueryError';
import { captureFilter } from '../../query/captureFilter';
import { rowMatcher, type RowItem } from '../../query/rowSelect';
import { parseWhere } from '../../query/whereText';
import { tailJson, tailText } from '../../query/tailLine';
import { NewCaptures } from '../../store/NewCaptures';
import { terminalText } from '../../util/terminalText';

/** Often enough to feel live; a check lists ids only (see NewCaptures), and files are also watched. */
const POLL_MS = 500;
const SECTION = 'http';

/**
 * `probe tail [--json]`: each outgoing call as its capture is stored, one line per row, with the filters of
 * `probe rows` (--where, --name, --type), until Ctrl+C (exit 0).
 */
export const tail: CliCommand = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      where: { type: 'string', multiple: true },
      type: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  let accept: ReturnType<typeof captureFilter>;
  let where: ReturnType<typeof parseWhere>[];
  try {
    where = (values.where ?? []).map(parseWhere);
    accept = captureFilter({ type: values.type, name: values.name }, Date.now() / 1000);
    rowMatcher([], SECTION, where, true); // a bad field, operator or value fails now, not at the first row
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    io.err(`probe tail: ${terminalText(error.message)}`);
    return 2;
  }
  const context = openContext(io);
  if (!context) return 2;
  const feed = new NewCaptures(context.store, {
    intervalMs: POLL_MS,
    onCapture: (capture) => {
      if (!accept(indexRowOf(capture))) return;
      const rows = Array.isArray(capture.sections[SECTION]) ? (capture.sections[SECTION] as HttpRow[]) : [];
      const items: RowItem[] = rows.map((row, index) => ({ row, index, capture }));
      let matcher: ReturnType<typeof rowMatcher>;
      try {
        matcher = rowMatcher(items, SECTION, where, true);
      } catch {
        return; // a where value this capture's rows cannot take (a field typed otherwise here): nothing of it matches
      }
      for (const item of items) {
        if (matcher.matches(item)) io.out(values.json ? tailJson(capture, item.row as HttpRow, item.index) : tailText(capture, item.row as HttpRow));
      }
    },
    onError: (error) => io.err(`probe tail: ${terminalText(String((error as Error)?.message ?? error))}`),
  });
  try {
    await feed.start();
    io.err(`probe tail: watching the ${context.config.storage.driver} store for new calls (Ctrl+C to stop)`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    return 0;
  } finally {
    feed.stop();
    await closeContext(context);
  }
};
