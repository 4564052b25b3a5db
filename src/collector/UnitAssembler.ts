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
  /** Traces a request is still adding spans to, over several turns of the event loop: never settled meanwhile. */
  private readonly busy = new Map<string, number>();
  private pending = 0;
  /** Spans dropped because they came after their unit was written. */
  late = 0;
  /** Parent lookups made while grouping: linear in the spans grouped (tests count it instead of timing). */
  parentLookups = 0;

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

  /** Marks traces a request adds in slices: a sweep between two slices must not group half of one. */
  hold(traceIds: Iterable<string>): void {
    for (const traceId of traceIds) this.busy.set(traceId, (this.busy.get(traceId) ?? 0) + 1);
  }

  /** The request is done adding: these traces settle from `now`. */
  release(traceIds: Iterable<string>, now: number): void {
    for (const traceId of traceIds) {
      const holds = (this.busy.get(traceId) ?? 1) - 1;
      if (holds > 0) this.busy.set(traceId, holds);
      else this.busy.delete(traceId);
      const trace = this.traces.get(traceId);
      if (trace) trace.lastSeen = Math.max(trace.lastSeen, now);
    }
  }

  /** Emits every unit that is complete by now. */
  sweep(now: number): void {
    for (const [traceId, trace] of this.traces) {
      if (now - trace.lastSeen >= this.settleMs && !this.busy.has(traceId)) this.groupTrace(traceId, trace, now, false);
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
    const anchors = this.anchorsOf(trace);
    for (const span of trace.spans.values()) {
      const anchor = anchors.get(span.spanId)!;
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

  /**
   * The anchor of every span held for this trace: the span that starts its unit, or where its parent chain
   * stops. Each span's parent is looked up once per call (the walk stops at the first span already
   * resolved and gives its answer to the whole path), so a chain of n spans costs n lookups, not n²/2.
   */
  private anchorsOf(trace: TraceBuffer): Map<string, Anchor> {
    const resolved = new Map<string, Anchor>();
    const path: OtlpSpan[] = [];
    const onPath = new Set<string>();
    for (const span of trace.spans.values()) {
      if (resolved.has(span.spanId)) continue;
      let current = span;
      let anchor: Anchor;
      for (;;) {
        const known = resolved.get(current.spanId);
        if (known) {
          anchor = known;
          break;
        }
        // A span met twice on one walk: a parent cycle in hostile input.
        if (onPath.has(current.spanId)) {
          anchor = { kind: 'rootless', top: current };
          break;
        }
        path.push(current);
        onPath.add(current.spanId);
        if (current.kind === SpanKind.SERVER || current.kind === SpanKind.CONSUMER) {
          anchor = { kind: 'unit', span: current };
          break;
        }
        if (current.parentSpanId === null) {
          anchor = { kind: 'rootless', top: current };
          break;
        }
        this.parentLookups++;
        const parent = trace.spans.get(current.parentSpanId);
        if (!parent) {
          anchor = { kind: 'waiting', top: current };
          break;
        }
        current = parent;
      }
      for (const member of path) resolved.set(member.spanId, anchor);
      path.length = 0;
      onPath.clear();
    }
    return resolved;
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
