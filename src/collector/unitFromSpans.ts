import type { CallInput, FoldedCallsInput, SpanInput, UnitInput } from '../builder/input';
import type { Masker } from '../mask/Masker';
import type { EndedBy } from '../capture/types';
import type { Attributes } from './model';
import type { SpanGroup } from './SpanGroup';
import { StatusCode } from './model';
import { num, str, strings } from './attributeReaders';
import { callFromSpan, isHttpClientSpan } from './callFromSpan';
import { requestFromSpan } from './requestFromSpan';
import { PROBE_ATTRIBUTES as P } from '../capture/attributes';
import { emptyFold, foldCall } from '../builder/fold';

const KIND_NAMES = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/** Calls past `max_rows` are only counted (builder/fold.ts), as the in-process recorder does. */
export interface FoldPastCap {
  maxRows: number;
  masker: Masker;
}

/**
 * One group of spans → the builder's unit input. Pure: the capture id is given. HTTP client spans become
 * calls; every other span (the root included) is kept as a span the calls hang under.
 */
export function unitFromSpans(group: SpanGroup, id: string, fallbackService: string, fold: FoldPastCap | null = null): UnitInput {
  const steps = unitSteps(group, id, fallbackService, fold);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `unitFromSpans` in steps: yields after each span converted, so the receiver can turn a unit of 20,000
 * spans into its input across several turns of the event loop. With `fold`, calls past `max_rows` (in start
 * order) are folded into totals as they are met, so the builder is handed at most `max_rows` calls.
 */
export function* unitSteps(group: SpanGroup, id: string, fallbackService: string, fold: FoldPastCap | null): Generator<number, UnitInput> {
  const { root } = group;
  const members = new Set(group.spans.map((span) => span.spanId));
  const inUnit = (spanId: string | null) => (spanId !== null && members.has(spanId) ? spanId : null);
  const first = group.spans[0]!;
  // A loop, not Math.min(...spans): a big group would overflow the argument list.
  let startedAt = root?.start ?? Infinity;
  let endedAt = root?.end ?? 0;
  for (const span of group.spans) {
    if (!root) startedAt = Math.min(startedAt, span.start);
    endedAt = Math.max(endedAt, span.end);
  }
  const calls: CallInput[] = [];
  const spans: SpanInput[] = [];
  let folded: FoldedCallsInput | undefined;
  for (const span of [...group.spans].sort((a, b) => a.start - b.start)) {
    if (span !== root && isHttpClientSpan(span)) {
      const call = callFromSpan(span, inUnit(span.parentSpanId));
      if (fold && calls.length >= fold.maxRows) foldCall((folded ??= emptyFold()), call, endedAt, fold.masker);
      else calls.push(call);
    } else
      spans.push({
        id: span.spanId,
        parentId: span === root ? null : inUnit(span.parentSpanId),
        name: span.name,
        start: span.start,
        end: span.end,
        meta: { otel_kind: KIND_NAMES[span.kind] ?? 'unspecified', scope: span.scope.name },
      });
    yield 1;
  }
  const rootAttributes: Attributes = root?.attributes ?? {};
  const base = {
    id,
    parentId: null,
    traceId: (root ?? first).traceId,
    linkedVia: 'otlp',
    rootSpanId: root?.spanId ?? null,
    startedAt,
    endedAt,
    label: str(rootAttributes, P.label),
    tags: strings(rootAttributes, P.tags) ?? [],
    meta: metaOf((root ?? first).resource, fallbackService),
    spans,
    calls,
    pools: [],
    ...(folded ? { folded } : {}),
  };
  if (group.type === 'request' && root) {
    const { path, ...request } = requestFromSpan(root);
    const failed = root.status.code === StatusCode.ERROR && request.status === null;
    return {
      ...base,
      type: 'request',
      name: `${request.method} ${path}`,
      status: request.status === null ? (failed ? 'failed' : 'unknown') : String(request.status),
      endedBy: failed ? 'error' : 'response',
      jobId: null,
      request,
    };
  }
  if (group.type === 'job' && root) {
    const failed = root.status.code === StatusCode.ERROR;
    const endedBy: EndedBy = failed ? 'error' : 'return';
    return { ...base, type: 'job', name: root.name, status: failed ? 'failed' : 'done', endedBy, jobId: str(root.attributes, P.jobId), request: null };
  }
  // Rootless spans of one process: the exit code is not sent over OTLP, so the status says only that it ran.
  return { ...base, type: 'command', name: base.meta.service, status: 'done', endedBy: 'exit', jobId: null, request: null };
}

/** `meta` from the resource attributes of the sending process (semantic conventions for resources). */
function metaOf(resource: Attributes, fallbackService: string): UnitInput['meta'] {
  const runtime = str(resource, 'process.runtime.name');
  const version = str(resource, 'process.runtime.version');
  return {
    pid: Math.trunc(num(resource, 'process.pid') ?? 0),
    hostname: str(resource, 'host.name') ?? '',
    node: runtime === null || runtime === 'nodejs' || runtime === 'node' ? (version ?? '') : `${runtime}${version ? ` ${version}` : ''}`,
    service: str(resource, 'service.name') ?? fallbackService,
    ...(str(resource, 'telemetry.sdk.language') ? { language: str(resource, 'telemetry.sdk.language') } : {}),
  };
}
