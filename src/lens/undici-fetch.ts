import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import type { Recorder } from '../runtime/Recorder';
import type { Logger } from '../util/logger';
import { recordingFetch } from './fetch';

const ORIGINAL = Symbol.for('probe.undici.fetch.original');

/**
 * The `undici` package's own `fetch` follows redirects with one undici request per hop, like global fetch.
 * Wrapping its export the same way as global fetch folds the hops into one row per app call.
 */
export class UndiciFetchInstrumentation extends InstrumentationBase {
  constructor(
    private readonly recorder: Recorder,
    private readonly maxBodyBytes: number,
    private readonly probeLogger: Logger,
  ) {
    super('probe-undici-fetch', '0.1.0', {});
  }

  protected init() {
    return new InstrumentationNodeModuleDefinition(
      'undici',
      ['>=5.0.0'],
      (exports: { fetch?: typeof fetch & { [ORIGINAL]?: typeof fetch } }) => {
        try {
          const original = exports?.fetch;
          if (typeof original === 'function' && !original[ORIGINAL]) {
            const wrapped = recordingFetch(original, this.recorder, this.maxBodyBytes, this.probeLogger) as typeof fetch & { [ORIGINAL]?: typeof fetch };
            wrapped[ORIGINAL] = original;
            exports.fetch = wrapped;
          }
        } catch (error) {
          this.probeLogger.warnOnce('undici-fetch', 'could not wrap undici fetch', error);
        }
        return exports;
      },
      (exports: { fetch?: typeof fetch & { [ORIGINAL]?: typeof fetch } }) => {
        const original = exports?.fetch?.[ORIGINAL];
        if (original) exports.fetch = original;
      },
    );
  }
}
