import type { CallInput, UnitInput } from '../builder/input';
import { bodyLength } from './bodyLength';

/**
 * A unit stored again and again while it runs (the process's command capture, stored each second: see
 * Recorder.checkpoint) reaches the store's thread in parts. Each version carries only the calls not handed over
 * before, with the keys of all its calls in order; the thread keeps the calls it was given, by unit id, and
 * rebuilds the whole list from them. Handing the whole window every second re-copied every ended call's bodies on
 * the app's thread each time, O(calls in the window) per second: quadratic in the window. A call is
 * known by its input's identity: a done call gives the same input every time (CallRecord.toInput), one whose
 * input may still change gives a new one each time, and so is handed again (its older copy dropped there).
 */
export interface UnitParts {
  /** Every call of this version, in order, by key. */
  keys: number[];
  /** The keys of the calls the message carries (its `calls`), in the same order. */
  fresh: number[];
  /** The unit's last version (its final or window version): the thread forgets what it kept of it. */
  last: boolean;
}

/** A unit as the app's thread posts it: with `parts`, its calls are only the fresh ones. */
export type PostedUnit = UnitInput & { parts?: UnitParts };

interface Window {
  /** The calls the thread keeps of this unit: their key and body bytes. */
  calls: Map<CallInput, { key: number; bytes: number }>;
  /** Their body bytes (said under PROBE_DEBUG; not in the Backlog's bound: see ThreadedStore.commitParts). */
  bytes: number;
}

/** A version split for posting, not yet recorded as handed (the Backlog's bound may still drop it). */
export interface Split {
  unit: PostedUnit;
  /** Body bytes of the fresh calls. */
  freshBytes: number;
  calls: Window['calls'];
  windowBytes: number;
}

/** On the app's thread: what the store's thread keeps of each unit stored in parts. */
export class PartLedger {
  private readonly windows = new Map<string, Window>();
  /** Keys are never reused, so a key always names one call input, whatever was forgotten since. */
  private nextKey = 0;

  /** Body bytes the thread keeps of every open window. */
  get keptBytes(): number {
    let bytes = 0;
    for (const window of this.windows.values()) bytes += window.bytes;
    return bytes;
  }

  /** The version to post: null for a unit never stored in parts (posted whole); else its fresh calls and keys. */
  split(unit: UnitInput): Split | null {
    const window = this.windows.get(unit.id);
    if (!window && !unit.partial) return null;
    const calls: Window['calls'] = new Map();
    const keys: number[] = [];
    const fresh: number[] = [];
    const freshCalls: CallInput[] = [];
    let freshBytes = 0;
    let windowBytes = 0;
    for (const call of unit.calls) {
      let handed = window?.calls.get(call);
      if (!handed || calls.has(call)) {
        handed = { key: this.nextKey++, bytes: bodyLength(call.requestBody) + bodyLength(call.responseBody) };
        fresh.push(handed.key);
        freshCalls.push(call);
        freshBytes += handed.bytes;
      }
      keys.push(handed.key);
      calls.set(call, handed);
      windowBytes += handed.bytes;
    }
    return { unit: { ...unit, calls: freshCalls, parts: { keys, fresh, last: !unit.partial } }, freshBytes, calls, windowBytes };
  }

  /**
   * The split is being posted: the thread will keep the calls it lists (calls gone from the window, folded past
   * the cap or handed again, are dropped there), or forget the unit once it has its last version.
   */
  commit(split: Split): void {
    if (split.unit.parts!.last) this.windows.delete(split.unit.id);
    else this.windows.set(split.unit.id, { calls: split.calls, bytes: split.windowBytes });
  }

  /** The unit's window is no longer known to be on the thread: its next version is handed whole. */
  forget(id: string): void {
    this.windows.delete(id);
  }

  /** Whether the thread may keep calls of this unit. */
  has(id: string): boolean {
    return this.windows.has(id);
  }

  /** The thread is gone, or builds nothing: every window forgotten. */
  clear(): void {
    this.windows.clear();
  }
}

/** On the store's thread: the calls kept of each unit stored in parts, until its last version. */
export class KeptParts {
  private readonly windows = new Map<string, Map<number, CallInput>>();

  /** The whole unit a posted one stands for: its kept calls and fresh ones, in order. Throws on a key it lacks. */
  join(posted: PostedUnit): UnitInput {
    const { parts, ...unit } = posted;
    if (!parts) return posted;
    const kept = this.windows.get(unit.id) ?? new Map<number, CallInput>();
    this.windows.delete(unit.id);
    parts.fresh.forEach((key, i) => kept.set(key, unit.calls[i]!));
    const calls = parts.keys.map((key) => {
      const call = kept.get(key);
      if (!call) throw new Error(`the store's thread lacks call ${key} of unit ${unit.id} (its earlier part was lost)`);
      return call;
    });
    if (!parts.last) this.windows.set(unit.id, new Map(parts.keys.map((key, i) => [key, calls[i]!])));
    return { ...unit, calls };
  }

  /** A unit whose last version will never come (dropped, or built on the app's thread). */
  forget(id: string): void {
    this.windows.delete(id);
  }

  get size(): number {
    return this.windows.size;
  }
}
