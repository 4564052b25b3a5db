import Module, { createRequire } from 'node:module';
import type { Logger } from '../util/logger';
import { patchMethod } from '../util/patches';

type Remember = (this: unknown, filename: string, exports: unknown, isBuiltin: boolean) => void;
type HookClass = new (modules: string[], options: object, onrequire: (exports: unknown) => unknown) => { _cache?: object; unhook(): void };

const WHY =
  "require-in-the-middle (the require hook @opentelemetry/instrumentation installs for every require) answers a package file again from a map of its own when the file was not in require.cache after it loaded: a module that deletes its own entry while it loads (proxyquire does, to see which file required it) is then never evaluated again, so every later require gets the first one's exports (https://github.com/nodejs/require-in-the-middle/blob/main/index.js, ExportsCache; the require.cache rule it falls back from: https://github.com/nodejs/require-in-the-middle/pull/63, https://github.com/open-telemetry/opentelemetry-js/issues/3655)";

/**
 * A file required again is evaluated again exactly when Node would evaluate it: when it is not in the module
 * cache. The hook remembers a file's exports only while Node keeps the file (in its own map only for a loader
 * that swapped the cache object, as the hook intends): what Node forgot, it forgets. Built-in modules are unchanged.
 */
export function keepRequireCacheSemantics(logger: Logger): void {
  try {
    const proto = exportsCacheOf(hookClass());
    if (!proto) return;
    const loader = Module as unknown as { _cache?: object };
    if (!loader._cache) return;
    patchMethod(
      proto as { set: Remember },
      'set',
      'require-in-the-middle ExportsCache#set',
      WHY,
      (set) =>
        function (this: unknown, filename, exports, isBuiltin) {
          // Read live: a loader may swap the cache object, and Node loads from whichever is there.
          if (!isBuiltin && loader._cache && !Object.prototype.hasOwnProperty.call(loader._cache, filename)) return;
          set.call(this, filename, exports, isBuiltin);
        },
    );
  } catch (error) {
    logger.debug('require cache: the require hook was not adjusted', error);
  }
}

/** The copy of require-in-the-middle Probe's instrumentations install (the one @opentelemetry/instrumentation resolves). */
function hookClass(): HookClass | undefined {
  const fromInstrumentation = createRequire(require.resolve('@opentelemetry/instrumentation'));
  const ritm = fromInstrumentation('require-in-the-middle') as { Hook?: HookClass };
  return typeof ritm.Hook === 'function' ? ritm.Hook : undefined;
}

/**
 * The hook's cache class is not exported: a hook made for no module and removed at once hands it over. Nothing
 * is required in between, so the app never meets it.
 */
function exportsCacheOf(Hook: HookClass | undefined): object | undefined {
  if (!Hook) return undefined;
  const hook = new Hook(['\u0000probe-none'], {}, (exports) => exports);
  hook.unhook();
  const proto = hook._cache ? Object.getPrototypeOf(hook._cache) : undefined;
  return proto && typeof (proto as { set?: unknown }).set === 'function' ? proto : undefined;
}
