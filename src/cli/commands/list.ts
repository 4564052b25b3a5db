import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { QueryError } from '../../query/QueryError';
import { queryList } from '../../query/list';
import { renderList } from '../../query/text';

/** `probe list`: recent captures, newest first; the probe-list tool as a shell command. */
export const list: CliCommand = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      has: { type: 'string', multiple: true },
      'has-errors': { type: 'boolean' },
      errors: { type: 'boolean' },
      'no-errors': { type: 'boolean' },
      since: { type: 'string' },
      type: { type: 'string' },
      route: { type: 'string' },
      'group-by': { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  const context = openContext(io);
  if (!context) return 2;
  try {
    const result = await queryList(context.store, {
      has: values.has?.flatMap((name) => name.split(',')).filter(Boolean),
      has_errors: values['has-errors'] || values.errors ? true : values['no-errors'] ? false : undefined,
      since: values.since,
      type: values.type,
      route: values.route,
      group_by: values['group-by'],
      limit: values.limit === undefined ? undefined : Number(values.limit),
    });
    io.out(values.json ? JSON.stringify(result, null, 2) : renderList(result));
    return 0;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    io.err(`probe list: ${error.message}`);
    return 2;
  } finally {
    await closeContext(context);
  }
};
