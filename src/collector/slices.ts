/** What the receiver did between two turns of the event loop: tests read it instead of timing anything. */
export interface SliceMeter {
  /** Turns handed back to the event loop while working through requests and units. */
  slices: number;
  /** The most work (spans, attribute values) done between two handbacks. */
  maxSliceWork: number;
  /** Work done since the last handback, by any run: many small units add up like one big one. */
  pending: number;
}

export function newSliceMeter(): SliceMeter {
  return { slices: 0, maxSliceWork: 0, pending: 0 };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs a generator that yields the work it has done, handing the event loop back (`setImmediate`) each time
 * `budget` units have piled up, so one big export never holds other requests for long. Returns what the
 * generator returns; its errors reject.
 */
export async function runInSlices<T>(steps: Generator<number, T>, budget: number, meter: SliceMeter): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    meter.pending += step.value;
    if (meter.pending >= budget) {
      meter.maxSliceWork = Math.max(meter.maxSliceWork, meter.pending);
      meter.slices++;
      meter.pending = 0;
      await nextTurn();
    }
  }
}
