import type { Logger } from '../util/logger';

/** A call whose stack is read later: it settles its own origin (the runtime's call record). */
export interface SettlingCall {
  settle(root: string, withOrigin: boolean): void;
}

/**
 * Reads call sites on a later turn, off the app's path: whether an agent made the call for itself (then it is
 * left out when the unit is built), else its origin. Soon rather than when the unit ends: call sites hold
 * their frames' functions and receivers (requests, sockets), and keeping them for a whole request or job kept
 * those alive into the old generation, which showed as GC time.
 */
export class OriginQueue {
  private pending: SettlingCall[] = [];
  private scheduled = false;

  constructor(
    private readonly root: string,
    private readonly withOrigin: boolean,
    private readonly logger: Logger,
  ) {}

  /** A call whose sites are to be read on a later turn. */
  add(call: SettlingCall): void {
    this.pending.push(call);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush()).unref?.();
  }

  /** The one place call sites become origins: the call's own stack first, then where the app entered its library. Now. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const calls = this.pending;
    this.pending = [];
    for (const pending of calls) {
      try {
        // The call's own stack first (an app frame, or an agent's own sender: then the call is the agent's), then
        // where the app entered its library (the library started the call after an async hop).
        pending.settle(this.root, this.withOrigin);
      } catch (error) {
        this.logger.warnOnce('origin', 'could not resolve a call origin', error);
      }
    }
  }
}
