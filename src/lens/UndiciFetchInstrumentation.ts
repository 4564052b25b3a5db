import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { Recorder } from '../runtime/Recorder';
import type { Logger } from '../util/logger';
import { recordingFetch } from './fetch';
import { recordPatch } from '../util/patches';
import { hookEsmImports } from './esmHook';
import { ESM_ONLY_MODULES, LIBRARY_MODULES } from './libraryEntries';

const ORIGINAL = Symbol.for('probe.undici.fetch.original');
const WHY =
  "undici's fetch follows redirects with one undici request per hop, and a call a MockAgent answers reaches no channel: the call itself is wrapped to make one row per app call (https://github.com/nodejs/undici/blob/main/docs/docs/api/DiagnosticsChannel.md)";

type Fetch = typeof fetch & { [ORIGINAL]?: typeof fetch };
type UndiciExports = { fetch?: Fetch; default?: { fetch?: Fetch } };

/**
 * The `undici` package's own `fetch` follows redirects with one undici request per hop, like global fetch.
 * Wrapping its export the same way as global fetch folds the hops into one row per app call, for `require`
 * and (through the import-in-the-middle loader) for ESM `import`.
 */
export class UndiciFetchInstrumentation extends InstrumentationBase {
  /** The ledger's undos of each module object patched (see patches.ts), for `disable()`. */
  private readonly undos = new WeakMap<object, () => void>();

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
            // An ESM namespace: `default` is the CommonJS exports object, which `require` callers share.
            const shared = exports.default;
            const sharesIt = shared && typeof shared === 'object' && shared.fetch === original;
            // Assigned, not redefined: under ESM `exports` is import-in-the-middle's namespace, whose setters
            // update the live bindings. The undo puts back only what still holds Probe's wrapper.
            exports.fetch = wrapped;
            if (sharesIt) shared.fetch = wrapped;
            const undo = () => {
              if (sharesIt && shared.fetch === wrapped) shared.fetch = original;
              if (exports.fetch === wrapped) exports.fetch = original;
            };
            recordPatch('undici fetch', WHY, undo);
            this.undos.set(exports, undo);
          }
        } catch (error) {
          this.probeLogger.warnOnce('undici-fetch', 'could not wrap undici fetch', error);
        }
        return exports;
      },
      (exports: UndiciExports) => {
        const undo = exports && this.undos.get(exports);
        this.undos.delete(exports);
        undo?.();
      },
    );
  }
}
