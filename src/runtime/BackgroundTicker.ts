/** How often the process's command capture is stored while background calls end (seen within about a second). */
export const CHECKPOINT_EVERY_MS = 1000;

/**
 * Ticks while the process's command capture has calls not yet stored: a server's timers, pollers and boot calls
 * are then in the store while it runs, not only at exit. The timer is unref'd (it never keeps the app alive) and
 * stops when a tick says nothing is left in flight.
 */
export class BackgroundTicker {
  private timer: NodeJS.Timeout | null = null;

  /** `tick` stores what ended since the last one and answers whether calls are still in flight. */
  constructor(private readonly tick: () => boolean) {}

  /** A call joined the process's command capture. */
  watch(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      let more = false;
      try {
        more = this.tick();
      } finally {
        if (!more) this.stop();
      }
    }, CHECKPOINT_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
