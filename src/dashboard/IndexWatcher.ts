import type { IndexRow } from '../capture/types';
import type { Store } from '../capture/Store';
import type { Logger } from '../util/logger';

type Listener = (rows: IndexRow[]) => void;

/**
 * Polls `store.index()` while someone is watching and tells listeners when it changed. Polling works with
 * every driver (files, Redis, custom) without asking drivers for a change feed.
 */
export class IndexWatcher {
  private readonly listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | null = null;
  private last: { signature: string; rows: IndexRow[] } | null = null;
  private polling = false;

  constructor(
    private readonly store: Store,
    private readonly intervalMs: number,
    private readonly logger?: Logger,
  ) {}

  /** Adds a listener, which gets the current index at once; returns the unsubscribe function. */
  watch(listener: Listener): () => void {
    this.listeners.add(listener);
    if (this.last) listener(this.last.rows);
    else void this.poll();
    if (!this.timer) {
      this.timer = setInterval(() => void this.poll(), this.intervalMs);
      this.timer.unref();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.last = null;
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const rows = await this.store.index();
      const signature = JSON.stringify(rows);
      if (this.last?.signature === signature) return;
      this.last = { signature, rows };
      for (const listener of this.listeners) listener(rows);
    } catch (error) {
      this.logger?.warnOnce('dashboard-index', 'dashboard: reading the store index failed', error);
    } finally {
      this.polling = false;
    }
  }
}
