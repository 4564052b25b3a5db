/** What the receiver did between two turns of the event loop: tests read it instead of timing anything. */
export interface SliceMeter {
  /** Turns handed back to the event loop while working through requests. */
  slices: number;
  /** The most work (spans, attribute values) done in one turn. */
  maxSliceWork: number;
}

export function newSliceMeter(): SliceMeter {
  return { slices: 0, maxSliceWork: 0 };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs a generator that yields the work it has done, handing the event loop back (`setImmediate`) each time
 * `budget` units have piled up, so one big export never holds other requests for long. Returns what the
 * generator returns; its errors reject.
 */
export async function runInSlices<T>(steps: Generator<number, T>, budget: number, meter: SliceMeter): Promise<T> {
  let work = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) {
      meter.maxSliceWork = Math.max(meter.maxSliceWork, work);
      return step.value;
    }
    work += step.value;
    if (work >= budget) {
      meter.maxSliceWork = Math.max(meter.maxSliceWork, work);
      meter.slices++;
      work = 0;
      await nextTurn();
    }
  }
}
