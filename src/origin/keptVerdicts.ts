/**
 * What a frame position stands for (origin.ts: the app's file and line, a library's frame, or no line to trust) is
 * a function of the script, the position and what the map sources and frame rules know of that script. A call's
 * stack repeats the same few positions call after call, so origin.ts keeps each position's verdict; the parts it
 * rests on say here when that no longer holds:
 * - `verdictsStale()`: something they kept changed (a script evaluated again under its name with another map or
 *   none, a cached map dropped past its bound): every kept verdict is dropped.
 * - `notKept()`: the verdict being made rests on an answer asked again each time (a webpack eval module's map,
 *   which `next dev` reloads under the same name; a map named but not written yet; a cache past its bound, a read
 *   that failed): that verdict is not kept either.
 */

let generation = 0;
let steady = true;

/** Verdicts made (not taken from those kept): how a test tells that a position was read once. */
export const verdictWork = { made: 0 };

/** Every verdict kept so far may be wrong from now on. */
export function verdictsStale(): void {
  generation++;
}

/** The verdict being made rests on an answer that is not kept. */
export function notKept(): void {
  steady = false;
}

/** The kept verdicts' generation: they hold while it is the same. */
export function verdictGeneration(): number {
  return generation;
}

/** A verdict is being made: returns the generation it starts in (for `mayKeep`). */
export function startVerdict(): number {
  verdictWork.made++;
  steady = true;
  return generation;
}

/** Whether the verdict just made, started in `started`, can be kept: it read nothing that is asked again, and nothing changed meanwhile. */
export function mayKeep(started: number): boolean {
  return steady && started === generation;
}
