import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { LensFactory } from './Lens';
import type { Logger } from '../util/logger';
import { alsoHookEsm } from './esmHook';
import { readLearned, type LearnedPackage } from '../origin/hops/learnedFile';
import { hookLoadedPackage } from '../origin/hops/learnedEntries';

/**
 * The packages the app's earlier runs learned to hop (origin/hops), hooked as soon as the app loads them: the first
 * call of this run already has the app's line. Each is matched by name and exact version through the module hooks
 * Probe's other instrumentations share (require-in-the-middle's one lookup per require, whatever the number of
 * names; import-in-the-middle for what an ES module imports, the names added to the import loader's list). An empty list makes
 * no instrumentation and adds nothing to any require or import.
 */
function learnedInstrumentation(learned: LearnedPackage[], logger: Logger): InstrumentationBase {
  class LearnedHopsInstrumentation extends InstrumentationBase {
    constructor() {
      super('probe-learned-hops', '0.1.0', {});
    }

    protected init() {
      return learned.map(
        ({ name, version }) =>
          new InstrumentationNodeModuleDefinition(name, [version], (exports: unknown) => {
            try {
              hookLoadedPackage(name, exports);
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
  const learned = readLearned(config.root);
  if (learned.length === 0) return null;
  // An ES module app's imports (of a CommonJS package too: Node's loader loads it past `require`) are seen by the
  // import loader only; a CommonJS app reaches an ES module only through import(), so that one starts the loader.
  for (const { name, esm } of learned) alsoHookEsm(name, { imported: esm });
  return { name: 'learned hops', scopes: [], instrumentations: [learnedInstrumentation(learned, logger)], joins: [], enable: () => () => {} };
};
