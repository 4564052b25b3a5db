import type { CliIo } from './io';
import type { Store } from '../capture/Store';
import { closeContext, openContext, type CliContext } from './context';
import { QueryError } from '../query/QueryError';
import { terminalText } from '../util/terminalText';

/**
 * The steps `probe list`, `show` and `rows` share: open the app's store, run the query, print the result as
 * JSON (`--json`, what the agent tool returns) or as text, close the store. A QueryError (a bad filter, an
 * unknown id) is one line naming the command, exit 2.
 */
export async function runQuery<R>(
  io: CliIo,
  command: string,
  options: {
    json?: boolean;
    query: (store: Store, context: CliContext) => Promise<R>;
    render: (result: R) => string;
    /** The exit code of a result (default 0). */
    exitCode?: (result: R) => number;
  },
): Promise<number> {
  const context = openContext(io);
  if (!context) return 2;
  try {
    const result = await options.query(context.store, context);
    io.out(options.json ? JSON.stringify(result, null, 2) : options.render(result));
    const code = options.exitCode?.(result) ?? 0;
    // An empty store this user cannot write stays empty: the answer said why, and the command fails.
    if (code === 0 && context.store.whyEmpty?.() && (await context.store.index()).length === 0) return 1;
    return code;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    io.err(`probe ${command}: ${terminalText(error.message)}`);
    return 2;
  } finally {
    await closeContext(context);
  }
}

/** A repeatable flag whose values may also be comma-separated: `--has http,db --has log`. */
export function commaList(values: string[] | undefined): string[] | undefined {
  return values?.flatMap((value) => value.split(',')).filter(Boolean);
}

/** A number flag as the query takes it; the query names a value that is not a number. */
export function numberFlag(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}
