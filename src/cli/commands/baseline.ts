import { parseArgs } from 'node:util';
import type { CliCommand } from '../io';
import { closeContext, openContext } from '../context';
import { BASELINE_NAME, BASELINE_NAME_RULE, BaselineStore } from '../../baselines/BaselineStore';
import { findCapture } from '../../query/locate';
import { QueryError } from '../../query/QueryError';
import { terminalLines, terminalText } from '../../util/terminalText';

const USAGE = 'usage: probe baseline save <id> [name] | list | rm <name>';

/**
 * `probe baseline save <id> [name]`, `list`, `rm <name>`: captures kept by name in .probe/baselines, outside
 * the store's limit, to compare later runs with (`probe diff --baseline NAME`).
 */
export const baseline: CliCommand = async (argv, io) => {
  const { values, positionals } = parseArgs({ args: argv, options: { json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  const [action, ...rest] = positionals;
  const wanted = action === 'save' ? [1, 2] : action === 'rm' ? [1, 1] : action === 'list' ? [0, 0] : null;
  if (!wanted || rest.length < wanted[0]! || rest.length > wanted[1]!) {
    io.err(`probe baseline: ${wanted ? `wrong number of arguments for ${action}` : `unknown action ${JSON.stringify(action ?? '')}`} (${USAGE})`);
    return 2;
  }
  const name = action === 'rm' ? rest[0] : rest[1];
  if (name !== undefined && !BASELINE_NAME.test(name)) {
    io.err(`probe baseline: name ${JSON.stringify(terminalText(name).slice(0, 80))} is not valid: ${BASELINE_NAME_RULE}`);
    return 2;
  }
  const context = openContext(io);
  if (!context) return 2;
  const baselines = new BaselineStore(context.config.root);
  try {
    const unsafe = action === 'save' ? null : baselines.unsafe();
    if (unsafe) {
      io.err(`probe baseline: ${terminalText(unsafe)}`);
      return 2;
    }
    if (action === 'list') {
      const entries = await baselines.list();
      if (values.json) io.out(JSON.stringify({ baselines: entries }, null, 2));
      else if (entries.length === 0) io.out('no baselines (probe baseline save <id> [name] keeps one)');
      else
        io.out(
          terminalLines(
            entries.map(
              (entry) =>
                `${entry.name}  ${entry.id}  ${entry.type}  ${entry.capture_name}  ${entry.status}  ${entry.calls} calls  saved ${savedText(entry.saved_at)} utc`,
            ),
          ),
        );
      return 0;
    }
    if (action === 'rm') {
      if (baselines.remove(name!)) {
        io.out(`removed baseline ${name}`);
        return 0;
      }
      io.err(`probe baseline: no baseline named ${name} (probe baseline list shows them)`);
      return 2;
    }
    const capture = await findCapture(context.store, rest[0]!);
    const saved = baselines.save(name ?? BaselineStore.defaultName(capture), capture);
    if (values.json) io.out(JSON.stringify({ name: saved.name, id: capture.id, saved_at: saved.saved_at }, null, 2));
    else io.out(`saved capture ${capture.id} (${terminalText(capture.name)}) as baseline ${saved.name}; compare with: probe diff --baseline ${saved.name}`);
    return 0;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    io.err(`probe baseline: ${terminalText(error.message)}`);
    return 2;
  } finally {
    await closeContext(context);
  }
};

/** A baseline's save time (a hand-edited file may hold any number there). */
function savedText(savedAt: number): string {
  const time = new Date(savedAt * 1000);
  return Number.isNaN(time.getTime()) ? '-' : time.toISOString().slice(0, 19).replace('T', ' ');
}
