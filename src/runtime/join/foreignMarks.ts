/**
 * Shows, on a wrapper of Probe's, the symbol-keyed marks another agent set on the function it wraps (live:
 * read and written through). Why: agents guard against wrapping twice by such a mark on the current function,
 * as elastic-apm-node's shimmer does with a private `Symbol('elasticAPMIsWrapped')`
 * (https://github.com/elastic/apm-agent-nodejs/blob/main/lib/instrumentation/shimmer.js). With Probe's wrapper
 * on top, that mark is hidden, and an agent that instruments node:http both on `require` and on `import` (its
 * ESM loader) wraps `Server.prototype.emit`, `request` and `get` a second time: every transaction and client
 * span twice. Marks the wrapper has of its own are kept.
 */
export function keepForeignMarks(wrapper: object, original: unknown): void {
  if (!original || (typeof original !== 'function' && typeof original !== 'object')) return;
  for (const mark of Object.getOwnPropertySymbols(original)) {
    if (Object.prototype.hasOwnProperty.call(wrapper, mark)) continue;
    try {
      Object.defineProperty(wrapper, mark, {
        configurable: true,
        enumerable: false,
        get: () => (original as Record<symbol, unknown>)[mark],
        set: (value: unknown) => {
          (original as Record<symbol, unknown>)[mark] = value;
        },
      });
    } catch {
      // a frozen wrapper keeps its own properties
    }
  }
}
