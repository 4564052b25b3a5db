import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { Recorder } from '../runtime/Recorder';
import type { Logger } from '../util/logger';
import { recordingFetch } from './fetch';
import { hookEsmImports } from './esmHook';
import { ESM_ONLY_MODULES, LIBRARY_MODULES } from './libraryEntries';

const ORIGINAL = Symbol.for('probe.undici.fetch.original');

type Fetch = typeof fetch & { [ORIGINAL]?: typeof fetch };
type UndiciExports = { fetch?: Fetch; default?: { fetch?: Fetch } };

/**
 * The `undici` package's own `fetch` follows redirects with one undici request per hop, like global fetch.
 * Wrapping its export the same way as global fetch folds the hops into one row per app call, for `require`
 * and (through the import-in-the-middle loader) for ESM `import`.
 */
export class UndiciFetchInstrumentation extends InstrumentationBase {
  constructor(
    private readonly recorder: Recorder,
    private readonly maxBodyBytes: number,
    private readonly probeLogger: Logger,
  ) {
    super('probe-undici-fetch', '0.1.0', {});
    // ESM apps: without the loader, `import { fetch } from 'undici'` keeps the unwrapped function; the
    // libraries hooked for call origins need it too (their ESM-only ones also from a CommonJS app's import()).
    hookEsmImports(['undici', ...LIBRARY_MODULES], probeLogger, ESM_ONLY_MODULES);
  }

  protected init() {
    return new InstrumentationNodeModuleDefinition(
      'undici',
      ['>=5.0.0'],
      (exports: UndiciExports) => {
        try {
          const original = exports?.fetch;
          if (typeof original === 'function' && !original[ORIGINAL]) {
            const wrapped = recordingFetch(original, this.recorder, this.maxBodyBytes, this.probeLogger) as Fetch;
            wrapped[ORIGINAL] = original;
            exports.fetch = wrapped;
            // An ESM namespace: `default` is the CommonJS exports object, which `require` callers share.
            const shared = exports.default;
            if (shared && typeof shared === 'object' && shared.fetch === original) shared.fetch = wrapped;
          }
        } catch (error) {
          this.probeLogger.warnOnce('undici-fetch', 'could not wrap undici fetch', error);
        }
        return exports;
      },
      (exports: UndiciExports) => {
        const original = exports?.fetch?.[ORIGINAL];
        if (!original) return;
        const shared = exports.default;
        if (shared && shared.fetch === exports.fetch) shared.fetch = original;
        exports.fetch = original;
      },
    );
  }
}
