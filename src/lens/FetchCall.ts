import { CallRecord } from '../runtime/CallRecord';

/**
 * One app `fetch()` call: fetch follows redirects inside the call, each hop its own undici request, so the
 * record outlives an ended hop until the app's promise settles. This state is the fetch lens's alone.
 */
export class FetchCall extends CallRecord {
  /** Set when the app's own promise settled: no more hops can join. */
  settled = false;
  /** Run once when the first undici request of this call starts: the call is real, not a fake's. */
  onDispatch: (() => void) | null = null;

  /** Until the app's promise settles, an ended hop may not be the last. */
  override get done(): boolean {
    return this.end !== null && this.settled;
  }

  /**
   * An undici request of this call started: the first one is the call's own exchange (the call is real, not a
   * fake's), each later one a redirect hop.
   */
  dispatched(spanId: string, parentSpanId: string | null, method: string, headers: CallRecord['requestHeaders']): void {
    if (this.spanId) return this.restartExchange();
    const release = this.onDispatch;
    this.onDispatch = null;
    release?.();
    this.identify(spanId, parentSpanId);
    this.setRequest(headers, method);
  }
}
