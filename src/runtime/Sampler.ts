import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';

export interface SamplingSettings {
  /** Share of root units recorded, 0 to 1. */
  readonly rate: number;
  /** Ceiling on units recorded per second in this process; null for none. */
  readonly maxPerSecond: number | null;
}

/**
 * Decides once per root unit (request, job, command) whether it is recorded. The rate is OTel's own
 * trace-id ratio rule, so every service of a trace, Probe or an OTel SDK sampling at the same ratio, decides
 * alike; the ceiling is a one-second window per process, so a spike cannot flood the store or the CPU.
 */
export class Sampler {
  private readonly ratio: TraceIdRatioBasedSampler | null;
  private window = -1;
  private inWindow = 0;
  private skippedSinceTaken = 0;
  /** Root units left out since the process started. */
  skippedTotal = 0;

  constructor(
    readonly settings: SamplingSettings,
    private readonly clock: () => number = Date.now,
  ) {
    this.ratio = settings.rate > 0 && settings.rate < 1 ? new TraceIdRatioBasedSampler(settings.rate) : null;
  }

  /** Whether anything is ever left out: captures then say so. */
  get active(): boolean {
    return this.settings.rate < 1 || this.settings.maxPerSecond !== null;
  }

  /** Whether the root unit of this trace is recorded; a unit left out is counted. */
  decide(traceId: string): boolean {
    if (!this.active) return true;
    const { rate, maxPerSecond } = this.settings;
    let keep = rate > 0 && (this.ratio === null || this.ratio.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED);
    if (keep && maxPerSecond !== null) {
      const second = Math.floor(this.clock() / 1000);
      if (second !== this.window) {
        this.window = second;
        this.inWindow = 0;
      }
      keep = this.inWindow < maxPerSecond;
      if (keep) this.inWindow++;
    }
    if (!keep) {
      this.skippedSinceTaken++;
      this.skippedTotal++;
    }
    return keep;
  }

  /** Units left out since the previous call: each written capture carries the count since the one before. */
  takeSkipped(): number {
    const skipped = this.skippedSinceTaken;
    this.skippedSinceTaken = 0;
    return skipped;
  }
}
