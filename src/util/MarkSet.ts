/**
 * A set of objects that marks each member itself: a symbol property of the set's own, not enumerable, so
 * `Object.keys`, `for…in` and JSON never see it. Why not a WeakSet: an entry per outgoing request is an
 * ephemeron, which V8's young-generation collections must trace to a fixpoint, and its table grows and is
 * rehashed as requests come and go; in a loop of calls that was garbage and collection time on every call. An
 * object that takes no new property (frozen, sealed, a proxy that refuses) is kept in a WeakSet instead.
 */
export class MarkSet {
  private readonly mark = Symbol('probe.member');
  private readonly others = new WeakSet<object>();

  has(target: object): boolean {
    return Object.prototype.hasOwnProperty.call(target, this.mark) || this.others.has(target);
  }

  add(target: object): void {
    try {
      if (Object.isExtensible(target)) {
        Object.defineProperty(target, this.mark, { value: true, configurable: true });
        return;
      }
    } catch {
      // a proxy that refuses the property: kept below
    }
    this.others.add(target);
  }
}
