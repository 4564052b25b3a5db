import { patchMethod } from '../util/patches';

/**
 * Probe's own signal listeners, left out of what `process.listeners()` and `process.rawListeners()` answer the app.
 *
 * A library that ends the process on a signal only when no one else listens asks `process.listeners(signal)`:
 * signal-exit (npm, Yarn, execa, Jest's write paths…) kills the process itself only when the listeners it counts are
 * all its own (signal-exit src/index.ts, `SignalExit` constructor). Probe's listener, counted there, made npm survive
 * the SIGTERM it re-sends to itself after its child died of it (npm's run-script re-raises the child's signal) and
 * exit 1 with "command failed" instead of dying of the signal. Probe listens only to store what is pending before
 * the default action, which it redoes when it is the sole listener (runtime/exit): to the app it is not there.
 * `process.listenerCount()` is left as it is: Node itself reads it to stop watching a signal when the last listener
 * goes (lib/internal/process/per_thread.js, stopListeningIfSignal), and Probe's listener must keep it watched.
 */
export function hideListeners(events: readonly string[], ours: ReadonlySet<Function>): () => void {
  const hidden = new Set(events);
  const filter = (original: (event: string | symbol) => Function[]) =>
    function (this: unknown, event: string | symbol) {
      const listeners = original.call(this, event);
      if (this !== process || typeof event !== 'string' || !hidden.has(event)) return listeners;
      return listeners.filter((listener) => !ours.has(listener));
    };
  const why =
    "a library that ends the process on a signal only when it is the sole listener counts process.listeners(signal) (signal-exit): Probe's listener must not change that count";
  const undo = [
    patchMethod(process as unknown as Record<string, (event: string | symbol) => Function[]>, 'listeners', 'process.listeners', why, filter),
    patchMethod(process as unknown as Record<string, (event: string | symbol) => Function[]>, 'rawListeners', 'process.rawListeners', why, filter),
  ];
  return () => {
    for (const each of undo) each?.();
  };
}
