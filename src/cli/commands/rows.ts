import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { QueryError } from '../../query/QueryError';
import { queryRows } from '../../query/rows';
import { renderRows } from '../../query/text';
import { parseWhere } from '../../query/where-text';

/**
 * `probe rows [section]`: rows of a section, filtered and sorted; the probe-rows tool as a shell command.
 * `--where` takes `FIELD OP VALUE` and may be repeated: `--where status>=500 --where "url contains /api"`.
 */
export const rows: CliCommand = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      section: { type: 'string' },
      where: { type: 'string', multiple: true },
      sort: { type: 'string' },
      dir: { type: 'string' },
      limit: { type: 'string' },
      fields: { type: 'string', multiple: true },
      id: { type: 'string' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const context = openContext(io);
  if (!context) return 2;
  try {
    const fields = values.fields?.flatMap((name) => name.split(',')).filter(Boolean);
    const result = await queryRows(context.store, {
      section: values.section ?? positionals[0] ?? 'http',
      where: values.where?.map(parseWhere),
      sort: values.sort,
      dir: values.dir as 'asc' | 'desc' | undefined,
      limit: values.limit === undefined ? undefined : Number(values.limit),
      fields,
      id: values.id,
    });
    io.out(values.json ? JSON.stringify(result, null, 2) : renderRows(result, fields));
    return 0;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    io.err(`probe rows: ${error.message}`);
    return 2;
  } finally {
    await closeContext(context);
  }
};
