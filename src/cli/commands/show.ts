import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { QueryError } from '../../query/QueryError';
import { queryShow } from '../../query/show';
import { renderShow } from '../../query/text';

/** `probe show [id]`: one capture (default the newest), or one row whole with --row; the probe-show tool as a shell command. */
export const show: CliCommand = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      id: { type: 'string' },
      sections: { type: 'string', multiple: true },
      limit: { type: 'string' },
      section: { type: 'string' },
      row: { type: 'string' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 1 || (positionals.length === 1 && values.id !== undefined)) {
    io.err(`probe show: one capture id at most, got ${[values.id, ...positionals].filter(Boolean).map((id) => JSON.stringify(id)).join(' and ')} (usage: probe show [id] [options]; see probe show --help)`);
    return 2;
  }
  const row = values.row === undefined ? undefined : Number(values.row);
  if (row !== undefined && (values.row!.trim() === '' || !Number.isInteger(row) || row < 0)) {
    io.err(`probe show: --row must be a row number, 0 or more (the ROW column of probe rows), got ${JSON.stringify(values.row)}`);
    return 2;
  }
  const context = openContext(io);
  if (!context) return 2;
  try {
    const result = await queryShow(context.store, {
      id: values.id ?? positionals[0],
      sections: values.sections?.flatMap((name) => name.split(',')).filter(Boolean),
      limit: values.limit === undefined ? undefined : Number(values.limit),
      section: values.section,
      row,
    });
    io.out(values.json ? JSON.stringify(result, null, 2) : renderShow(result));
    return 0;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    io.err(`probe show: ${error.message}`);
    return 2;
  } finally {
    await closeContext(context);
  }
};
