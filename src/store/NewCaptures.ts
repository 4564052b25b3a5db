import type { Capture } from '../capture/types';
import type { Store } from '../capture/Store';

export interface NewCapturesOptions {
  /** Poll period; a driver with `watch()` is also checked as soon as it signals. */
  intervalMs: number;
  /** Called for each capture stored after `start()`, oldest start first within one check. */
  onCapture: (capture: Capture) => void;
  onError: (error: unknown) => void;
}

/**
 * Captures as they are stored, for `probe tail`. Each check lists the stored ids (`store.ids()`: file
 * names, or the Redis index set's members; `index()` for drivers without it) and reads only the captures
 * not seen before, so a check costs a listing, never a read of every capture. Ids, not start times, tell
 * what is new: a long request stored after a short one that started later must still show.
 */
export class NewCaptures {
  private seen = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  private running = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly options: NewCapturesOptions,
  ) {}

  /** Takes what is stored now as already seen, then starts watching. */
  async start(): Promise<void> {
    this.seen = new Set(await this.listIds());
    this.unwatch = this.store.watch?.(() => void this.check()) ?? null;
    this.timer = setInterval(() => void this.check(), this.options.intervalMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unwatch?.();
    this.unwatch = null;
  }

  /** One check at a time; a signal during a check runs one more after it. */
  async check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        await this.checkOnce();
      } while (this.again && !this.stopped);
    } catch (error) {
      this.options.onError(error);
    } finally {
      this.running = false;
    }
  }

  private async checkOnce(): Promise<void> {
    const ids = await this.listIds();
    const fresh = ids.filter((id) => !this.seen.has(id));
    // Forget ids the store no longer holds (limit, TTL), so the set stays as small as the store.
    this.seen = new Set(ids);
    const captures: Capture[] = [];
    for (const id of fresh) {
      const capture = await this.store.find(id);
      if (capture) captures.push(capture);
      // Not readable yet: a file store names a capture's file before its write ends. Read again next check
      // (an id gone for good leaves the listing, and with it this set).
      else this.seen.delete(id);
    }
    captures.sort((a, b) => a.started_at - b.started_at);
    for (const capture of captures) if (!this.stopped) this.options.onCapture(capture);
  }

  private async listIds(): Promise<string[]> {
    if (this.store.ids) return this.store.ids();
    return (await this.store.index()).map((row) => row.id);
  }
}
