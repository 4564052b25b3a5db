import type { OtlpSpan } from './model';
import type { SpanGroup } from './SpanGroup';
import { SpanKind } from './model';

export interface UnitAssemblerOptions {
  /** A trace is grouped once no span of it arrived for this long (children and their root often come in separate batches). */
  settleMs?: number;
  /** How long a span waits for a missing parent before it is kept as rootless work of its process. */
  orphanWaitMs?: number;
  /** Rootless spans of one process are one `command` unit once that process sent none for this long. */
  commandIdleMs?: number;
  /** Spans held at most; past it the oldest traces are grouped with what has arrived. */
  maxPendingSpans?: number;
  onUnit(group: SpanGroup): void;
}

interface TraceBuffer {
  spans: Map<string, OtlpSpan>;
  arrived: Map<string, number>;
  lastSeen: number;
}

interface CommandBuffer {
  spans: OtlpSpan[];
  lastSeen: number;
}

type Anchor = { kind: 'unit'; span: OtlpSpan } | { kind: 'rootless'; top: OtlpSpan } | { kind: 'waiting'; top: OtlpSpan };

/** Remembered ids of spans already grouped, so a late child is not mistaken for a new rootless unit. */
const MAX_REMEMBERED = 100_000;

/**
 * Groups spans, which arrive in batches in any order, into units of work: a SERVER span and the spans below
 * it in the same process are one `request`, a CONSUMER span and its spans one `job`; spans with no local
 * root (boot calls, timers, scripts) gather per sending process into one `command`. Pure of I/O: time comes
 * in through `sweep(now)`.
 */
export class UnitAssembler {
  private readonly settleMs: number;
  private readonly orphanWaitMs: number;
  private readonly commandIdleMs: number;
  private readonly maxPendingSpans: number;
  private readonly onUnit: (group: SpanGroup) => void;
  private readonly traces = new Map<string, TraceBuffer>();
  private readonly commands = new Map<string, CommandBuffer>();
  private readonly grouped = new Set<string>();
  private pending = 0;
  /** Spans dropped because they came after their unit was written. */
  late = 0;

  constructor(options: UnitAssemblerOptions) {
    this.settleMs = options.settleMs ?? 1000;
    this.orphanWaitMs = options.orphanWaitMs ?? 15_000;
    this.commandIdleMs = options.commandIdleMs ?? 3000;
    this.maxPendingSpans = options.maxPendingSpans ?? 200_000;
    this.onUnit = options.onUnit;
  }

  get pendingSpans(): number {
    return this.pending;
  }

  add(spans: readonly OtlpSpan[], now: number): void {
    for (const span of spans) {
      let trace = this.traces.get(span.traceId);
      if (!trace) {
        trace = { spans: new Map(), arrived: new Map(), lastSeen: now };
        this.traces.set(span.traceId, trace);
      }
      if (!trace.spans.has(span.spanId)) this.pending++;
      trace.spans.set(span.spanId, span);
      trace.arrived.set(span.spanId, now);
      trace.lastSeen = now;
    }
    // Map order is insertion order: the first traces are the oldest.
    for (const [traceId, trace] of this.traces) {
      if (this.pending <= this.maxPendingSpans) break;
      this.groupTrace(traceId, trace, now, true);
    }
  }

  /** Emits every unit that is complete by now. */
  sweep(now: number): void {
    for (const [traceId, trace] of this.traces) {
      if (now - trace.lastSeen >= this.settleMs) this.groupTrace(traceId, trace, now, false);
    }
    for (const [key, command] of this.commands) {
      if (now - command.lastSeen >= this.commandIdleMs) this.emitCommand(key, command);
    }
  }

  /** Emits everything held, complete or not (shutdown). */
  flush(now: number): void {
    for (const [traceId, trace] of this.traces) this.groupTrace(traceId, trace, now, true);
    for (const [key, command] of this.commands) this.emitCommand(key, command);
  }

  private groupTrace(traceId: string, trace: TraceBuffer, now: number, force: boolean): void {
    const units = new Map<string, OtlpSpan[]>();
    const rootless: OtlpSpan[] = [];
    for (const span of trace.spans.values()) {
      const anchor = this.anchorOf(span, trace);
      if (anchor.kind === 'unit') {
        const members = units.get(anchor.span.spanId) ?? [];
        members.push(span);
        units.set(anchor.span.spanId, members);
        continue;
      }
      if (anchor.kind === 'waiting') {
        if (anchor.top.parentSpanId !== null && this.grouped.has(anchor.top.parentSpanId)) {
          this.late++;
          this.take(trace, span);
          continue;
        }
        // A parent known to be in another process will never come; an unknown one gets time to arrive.
        const waited = now - (trace.arrived.get(anchor.top.spanId) ?? now);
        if (!force && anchor.top.parentIsRemote !== true && waited < this.orphanWaitMs) continue;
      }
      rootless.push(span);
    }
    for (const [rootId, members] of units) {
      const root = trace.spans.get(rootId)!;
      for (const span of members) this.take(trace, span);
      this.emit({ type: root.kind === SpanKind.CONSUMER ? 'job' : 'request', root, spans: members });
    }
    for (const span of rootless) {
      this.take(trace, span);
      const key = processKey(span);
      const command = this.commands.get(key) ?? { spans: [], lastSeen: now };
      command.spans.push(span);
      command.lastSeen = now;
      this.commands.set(key, command);
    }
    if (trace.spans.size === 0) this.traces.delete(traceId);
  }

  /** Walks up the parents held for this trace to the span that starts the unit, or to where the chain stops. */
  private anchorOf(span: OtlpSpan, trace: TraceBuffer): Anchor {
    let current = span;
    // The step cap guards against parent cycles in hostile input.
    for (let steps = 0; steps <= trace.spans.size; steps++) {
      if (current.kind === SpanKind.SERVER || current.kind === SpanKind.CONSUMER) return { kind: 'unit', span: current };
      if (current.parentSpanId === null) return { kind: 'rootless', top: current };
      const parent = trace.spans.get(current.parentSpanId);
      if (!parent) return { kind: 'waiting', top: current };
      current = parent;
    }
    return { kind: 'rootless', top: current };
  }

  private take(trace: TraceBuffer, span: OtlpSpan): void {
    if (trace.spans.delete(span.spanId)) this.pending--;
    trace.arrived.delete(span.spanId);
    this.remember(span.spanId);
  }

  private remember(spanId: string): void {
    this.grouped.add(spanId);
    if (this.grouped.size > MAX_REMEMBERED) {
      const oldest = this.grouped.values().next().value;
      if (oldest !== undefined) this.grouped.delete(oldest);
    }
  }

  private emitCommand(key: string, command: CommandBuffer): void {
    this.commands.delete(key);
    if (command.spans.length > 0) this.emit({ type: 'command', root: null, spans: command.spans });
  }

  private emit(group: SpanGroup): void {
    this.onUnit(group);
  }
}

/** One sending process: service, host and pid (or instance id) from its resource. */
function processKey(span: OtlpSpan): string {
  const r = span.resource;
  return JSON.stringify([r['service.name'] ?? null, r['service.instance.id'] ?? null, r['host.name'] ?? null, r['process.pid'] ?? null]);
}
