/**
 * The ledger of every process-wide patch Probe makes to someone else's code (a module's export, a prototype,
 * a global, an OpenTelemetry object). Each entry says why, with the upstream code or issue that forces it,
 * and how to undo it; `shutdown()` undoes them all, newest first. A patch is undone only while the slot
 * still holds what Probe put there: whatever was set on top since (an app's wrapper) is left as it is.
 * Per-request observers (a ClientRequest's `write`, an undici request's `onData`) are not listed: they live
 * and die with the object Probe was handed.
 */
export interface Patch {
  target: string;
  why: string;
  undo: () => void;
}

const ledger: Patch[] = [];

/**
 * Replaces `owner[key]` with `make(original)` and records it. Returns its undo (which also takes it off the
 * ledger), or null when there is no function there. `why` names the upstream reason, with a link.
 */
export function patchMethod<T extends object, K extends keyof T & string>(
  owner: T,
  key: K,
  target: string,
  why: string,
  make: (original: T[K]) => T[K],
): (() => void) | null {
  const original = owner[key];
  if (typeof original !== 'function') return null;
  const replacement = make(original);
  const own = Object.prototype.hasOwnProperty.call(owner, key);
  owner[key] = replacement;
  const patch: Patch = {
    target,
    why,
    undo: () => {
      if (owner[key] !== replacement) return;
      if (own) owner[key] = original;
      else delete owner[key];
    },
  };
  ledger.push(patch);
  return () => {
    const at = ledger.indexOf(patch);
    if (at >= 0) ledger.splice(at, 1);
    patch.undo();
  };
}

/** Records a patch made by other means (a property accessor), with its undo. */
export function recordPatch(target: string, why: string, undo: () => void): void {
  ledger.push({ target, why, undo });
}

/** What is patched now: for `PROBE_DEBUG` and tests. */
export function patches(): ReadonlyArray<Pick<Patch, 'target' | 'why'>> {
  return ledger.map(({ target, why }) => ({ target, why }));
}

/** Undoes every patch, newest first. Never throws. */
export function undoPatches(): void {
  while (ledger.length > 0) {
    const patch = ledger.pop()!;
    try {
      patch.undo();
    } catch {
      // best effort: the rest are still undone
    }
  }
}
