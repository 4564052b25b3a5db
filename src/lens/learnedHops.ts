import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { LensFactory } from './Lens';
import type { Logger } from '../util/logger';
import { alsoHookEsm } from './esmHook';
import { forgetLearned, readLearned, type LearnedPackage } from '../origin/hops/learnedFile';
import { hookLoadedPackage } from '../origin/hops/learnedEntries';
import { refusal } from '../origin/hops/hookable';

/**
 * The packages the app's earlier runs learned to hop (origin/hops), hooked as soon as the app loads them: the first
 * call of this run already has the app's line. Each is matched by name and exact version through the module hooks
 * Probe's other instrumentations share (require-in-the-middle's one lookup per require, whatever the number of
 * names; import-in-the-middle for what an ES module imports, the names added to the import loader's list). An empty list makes
 * no instrumentation and adds nothing to any require or import.
 */
function learnedInstrumentation(learned: LearnedPackage[], root: string, logger: Logger): InstrumentationBase {
  class LearnedHopsInstrumentation extends InstrumentationBase {
    constructor() {
      super('probe-learned-hops', '0.1.0', {});
    }

    protected init() {
      return learned.map(
        ({ name, version }) =>
          new InstrumentationNodeModuleDefinition(name, [version], (exports: unknown) => {
            try {
              hookLoadedPackage(name, exports, root);
            } catch (error) {
              logger.warnOnce(`learned-${name}`, `could not hook ${name} for call origins`, error);
            }
            return exports;
          }),
      );
    }
  }
  return new LearnedHopsInstrumentation();
}

/**
 * Not a source of calls of its own. Listed before the fetch lens: an ES module among the learned packages must be on
 * the import loader's list before that lens starts the loader.
 */
export const learnedHopsLens: LensFactory = ({ config, logger }) => {
  if (!config.http || !config.origin.enabled) return null;
  const listed = readLearned(config.root);
  if (listed.length === 0) return null;
  const learned = usable(listed, config.root, logger);
  if (learned.length === 0) return null;
  // An ES module app's imports (of a CommonJS package too: Node's loader loads it past `require`) are seen by the
  // import loader only; a CommonJS app reaches an ES module only through import(), so that one starts the loader.
  for (const { name, esm } of learned) alsoHookEsm(name, { imported: esm });
  return { name: 'learned hops', scopes: [], instrumentations: [learnedInstrumentation(learned, config.root, logger)], joins: [], enable: () => () => {} };
};

/**
 * The entries Probe may hook (see origin/hops/hookable): an npm package the app's node_modules hold at that exact
 * version, neither a Node built-in nor one of Probe's own dependencies. The others are taken off the list, so a
 * list a bad run (or a hand) wrote is cleaned by the next start.
 */
function usable(listed: LearnedPackage[], root: string, logger: Logger): LearnedPackage[] {
  const refused = new Set<string>();
  const learned = listed.filter(({ name, version }) => {
    const why = refusal(name, version, root);
    if (why) {
      refused.add(`${name}@${version}`);
      logger.debug(`learned hops: ${name}@${version} not hooked, taken off the list: ${why}`);
    }
    return !why;
  });
  if (refused.size > 0) forgetLearned(root, ({ name, version }) => refused.has(`${name}@${version}`));
  return learned;
}
