/**
 * The ledger of every process-wide patch Probe makes to someone else's code (a module's export, a prototype,
 * a global, an OpenTelemetry object). Each entry says why, with the upstream code or issue that forces it,
 * and how to undo it; `shutdown()` undoes them all, newest first. A patch is undone only while the slot
 * still holds what Probe put there: whatever was set on top since (an app's wrapper) is left as it is.
 * Per-request observers (a ClientRequest's `write`, an undici request's own handler method) are not listed: they live
 * and die with the object Probe was handed.
 */
export interface Patch {
  target: string;
  why: string;
  undo: () => void;
}

const ledger: Patch[] = [];

/** Takes the patch of an owner that was garbage-collected off the ledger (see `weak`). */
const forgotten = new FinalizationRegistry<Patch>((patch) => {
  const at = ledger.indexOf(patch);
  if (at >= 0) ledger.splice(at, 1);
});

/**
 * Replaces `owner[key]` with `make(original)` and records it. Returns its undo (which also takes it off the
 * ledger), or null when there is no function there. `why` names the upstream reason, with a link.
 * `weak`: the ledger does not keep the owner alive (an object of a short-lived realm, such as a test runner's
 * class evaluated in a vm context per test file); its entry goes when the owner does.
 */
export function patchMethod<T extends object, K extends keyof T & string>(
  owner: T,
  key: K,
  target: string,
  why: string,
  make: (original: T[K]) => T[K],
  options: { weak?: boolean } = {},
): (() => void) | null {
  const original = owner[key];
  if (typeof original !== 'function') return null;
  const replacement = make(original);
  const own = Object.prototype.hasOwnProperty.call(owner, key);
  owner[key] = replacement;
  const patch: Patch = { target, why, undo: options.weak ? weakUndo(owner, key, original, replacement, own) : undoOf(owner, key, original, replacement, own) };
  ledger.push(patch);
  if (options.weak) forgotten.register(owner, patch);
  return () => {
    const at = ledger.indexOf(patch);
    if (at >= 0) ledger.splice(at, 1);
    patch.undo();
  };
}

/** Puts the original back, if the slot still holds the replacement. */
function undoOf<T extends object, K extends keyof T>(owner: T, key: K, original: T[K], replacement: T[K], own: boolean): () => void {
  return () => {
    if (owner[key] !== replacement) return;
    if (own) owner[key] = original;
    else delete owner[key];
  };
}

/**
 * The same, holding none of the three alive (a closure keeps only the variables it names, so this one names only
 * the references): while the owner lives, its slot holds the replacement, which holds the original.
 */
function weakUndo<T extends object, K extends keyof T>(owner: T, key: K, original: T[K], replacement: T[K], own: boolean): () => void {
  const slot = new WeakRef(owner);
  const before = new WeakRef(original as object);
  const ours = new WeakRef(replacement as object);
  return () => {
    const holder = slot.deref();
    if (!holder || holder[key] !== ours.deref()) return;
    if (own) holder[key] = before.deref() as T[K];
    else delete holder[key];
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
