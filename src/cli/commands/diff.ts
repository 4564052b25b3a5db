import { parseArgs } from 'node:util';
import type { CliCommand, CliIo } from '../io';
import { storeFailure } from '../storeFailure';
import { messageOf } from '../../config/loadFailure';
import { terminalText } from '../../util/terminalText';
import { numberFlag, runQuery } from '../queryCommand';
import { queryDiff } from '../../query/diff';
import { renderDiff } from '../../diff/diffText';
import { BaselineStore } from '../../baselines/BaselineStore';
import { queryFlowDiff, renderFlowDiff } from '../../query/flowDiff';

const USAGE = 'usage: probe diff <before-id> <after-id> | --name NAME | --baseline NAME [id]; see probe diff --help';

/**
 * `probe diff`: what changed between two captures. Exit code 0 when they are the same, 1 when they differ,
 * 2 for a bad input or a diff that could not be made (one line), so a test or CI step can use it.
 */
export const diff: CliCommand = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      name: { type: 'string' },
      baseline: { type: 'string' },
      'threshold-ms': { type: 'string' },
      'threshold-percent': { type: 'string' },
      flow: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const most = values.baseline !== undefined ? 1 : values.name !== undefined ? 0 : 2;
  if (positionals.length > most || (values.baseline === undefined && values.name === undefined && positionals.length < 2)) {
    io.err(`probe diff: ${positionals.length > most ? 'too many capture ids' : 'two capture ids needed'} (${USAGE})`);
    return 2;
  }
  try {
    return await compare(io, values, positionals);
  } catch (error) {
    // A store that cannot be read is said as every command says it (exit 1). Otherwise exit 1 says "different":
    // a diff that could not be made (a capture a reader cannot compare) is 2, in one line.
    if (storeFailure(error)) throw error;
    io.err(`probe diff: ${terminalText(messageOf(error))}`);
    return 2;
  }
};

function compare(io: CliIo, values: DiffFlags, positionals: string[]): Promise<number> {
  const ms = numberFlag(values['threshold-ms']);
  const percent = numberFlag(values['threshold-percent']);
  const threshold = { ...(ms !== undefined ? { ms } : {}), ...(percent !== undefined ? { percent } : {}) };
  if (values.flow && positionals.length === 2) {
    return runQuery(io, 'diff', {
      json: values.json,
      query: (store) => queryFlowDiff(store, { before: positionals[0]!, after: positionals[1]!, threshold }),
      render: renderFlowDiff,
      exitCode: (result) => (result.same ? 0 : 1),
    });
  }
  return runQuery(io, 'diff', {
    json: values.json,
    query: (store, context) =>
      queryDiff(store, new BaselineStore(context.config.root), {
        before: values.baseline !== undefined ? undefined : positionals[0],
        after: values.baseline !== undefined ? positionals[0] : positionals[1],
        name: values.name,
        baseline: values.baseline,
        threshold: { ...(ms !== undefined ? { ms } : {}), ...(percent !== undefined ? { percent } : {}) },
      }),
    render: renderDiff,
    exitCode: (result) => (result.same ? 0 : 1),
  });
}

interface DiffFlags {
  name?: string;
  baseline?: string;
  'threshold-ms'?: string;
  'threshold-percent'?: string;
  flow?: boolean;
  json?: boolean;
}
