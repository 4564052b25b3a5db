import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { QueryError } from '../../query/QueryError';
import { queryShow } from '../../query/show';
import { renderShow } from '../../query/text';

/** `probe show [id]`: one capture (default the newest); the probe-show tool as a shell command. */
export const show: CliCommand = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      id: { type: 'string' },
      sections: { type: 'string', multiple: true },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const context = openContext(io);
  if (!context) return 2;
  try {
    const result = await queryShow(context.store, {
      id: values.id ?? positionals[0],
      sections: values.sections?.flatMap((name) => name.split(',')).filter(Boolean),
      limit: values.limit === undefined ? undefined : Number(values.limit),
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
