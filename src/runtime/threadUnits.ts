import type { SourceFactory } from './UnitSource';
import { linkNewThreads, type ThreadFlusher } from './threads';

/**
 * Worker threads as a unit source: a `Worker` the app makes carries which capture made it, so the thread's own
 * command capture links to it (see threads.ts; the thread's side runs in its own Recorder). `threads` is the
 * flusher the exit path asks to store what the threads hold.
 */
export function threadUnits(threads: ThreadFlusher): SourceFactory {
  return ({ recorder }) => ({
    name: 'worker threads',
    instrumentations: [],
    enable: () =>
      linkNewThreads(() => {
        const unit = recorder.activeUnit();
        // A thread making a thread names it under its own full name (its script is known by now).
        return { id: unit.id, name: recorder.commandName() };
      }, threads),
  });
}
