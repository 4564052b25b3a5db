import type { AttributeValue, Attributes, DecodedExport, OtlpEvent, OtlpSpan } from './model';
import { OtlpDecodeError, OtlpLimitError } from './model';

/**
 * Turns an `ExportTraceServiceRequest` as a plain object into spans. Both decoders end here: the OTLP JSON
 * mapping (ids as hex strings, 64-bit integers as strings or numbers) and protobufjs' `toObject` output
 * (ids as bytes, 64-bit integers as strings) differ only in how ids and bytes are written, which `ids`
 * handles. Field names are lowerCamelCase; snake_case is accepted too, as some senders write it.
 */
export interface IdReader {
  /** Lower-case hex of an id field, '' when empty, null when malformed. */
  id(value: unknown): string | null;
  /** A `bytesValue` attribute, written as base64. */
  bytes(value: unknown): string | null;
}

/** Attribute values nest (arrays, key-value lists); past this depth the value is dropped, to keep stacks shallow. */
const MAX_VALUE_DEPTH = 16;
/** Attribute entries read between two reports of work done (a span may carry 150,000 of them). */
const ENTRIES_PER_STEP = 1024;

/** What one export may hold: past either bound the whole request is refused (413), before its spans are kept. */
export interface ExportLimits {
  maxSpans: number;
  /** Attribute values, nested ones included, over the resources, spans and events of the request. */
  maxValues: number;
}

const NO_LIMITS: ExportLimits = { maxSpans: Infinity, maxValues: Infinity };

/** Counts attribute values against the request's bound as they are read. */
interface ValueBudget {
  values: number;
  readonly max: number;
}

export function normalizeExport(request: unknown, ids: IdReader, limits: ExportLimits = NO_LIMITS): DecodedExport {
  const steps = normalizeSteps(request, ids, limits);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `normalizeExport` in steps: yields the work done since the last step (spans plus attribute values read),
 * so the receiver can hand the event loop back between slices of a big export. One pass, linear in the
 * spans and values of the request.
 */
export function* normalizeSteps(request: unknown, ids: IdReader, limits: ExportLimits): Generator<number, DecodedExport> {
  if (!isObject(request)) throw new OtlpDecodeError('the body is not an ExportTraceServiceRequest object');
  const out: DecodedExport = { spans: [], rejected: 0, rejectReason: null };
  const reject = (reason: string) => {
    out.rejected++;
    out.rejectReason ??= reason;
  };
  // The span count is checked before any span is read: a refused request costs one walk over three arrays.
  let total = 0;
  for (const resourceSpans of list(field(request, 'resourceSpans', 'resource_spans'), 'resourceSpans')) {
    if (!isObject(resourceSpans)) throw new OtlpDecodeError('resourceSpans holds a non-object');
    for (const scopeSpans of list(field(resourceSpans, 'scopeSpans', 'scope_spans'), 'scopeSpans')) {
      if (!isObject(scopeSpans)) throw new OtlpDecodeError('scopeSpans holds a non-object');
      total += list(field(scopeSpans, 'spans'), 'spans').length;
    }
  }
  if (total > limits.maxSpans) {
    throw new OtlpLimitError(`the export holds ${total} spans, over the limit of ${limits.maxSpans} per request: send smaller batches`);
  }
  const budget: ValueBudget = { values: 0, max: limits.maxValues };
  let reported = 0;
  const progress = () => {
    const done = out.spans.length + out.rejected + budget.values - reported;
    reported += done;
    return done;
  };
  for (const resourceSpans of list(field(request, 'resourceSpans', 'resource_spans'), 'resourceSpans') as Array<Record<string, unknown>>) {
    const resourceObject = field(resourceSpans, 'resource');
    const resource = yield* attributeSteps(isObject(resourceObject) ? field(resourceObject, 'attributes') : undefined, ids, budget, progress);
    for (const scopeSpans of list(field(resourceSpans, 'scopeSpans', 'scope_spans'), 'scopeSpans') as Array<Record<string, unknown>>) {
      const scopeObject = field(scopeSpans, 'scope');
      const scope = {
        name: isObject(scopeObject) ? text(field(scopeObject, 'name')) : '',
        version: isObject(scopeObject) ? text(field(scopeObject, 'version')) : '',
      };
      for (const span of list(field(scopeSpans, 'spans'), 'spans')) {
        const result = yield* spanSteps(span, resource, scope, ids, budget, progress);
        if (typeof result === 'string') reject(result);
        else out.spans.push(result);
        yield progress();
      }
    }
  }
  return out;
}

function* spanSteps(
  span: unknown,
  resource: Attributes,
  scope: OtlpSpan['scope'],
  ids: IdReader,
  budget: ValueBudget,
  progress: () => number,
): Generator<number, OtlpSpan | string> {
  if (!isObject(span)) return 'a span is not an object';
  const traceId = ids.id(field(span, 'traceId', 'trace_id'));
  if (!traceId || traceId.length !== 32 || /^0+$/.test(traceId)) return 'a span has an invalid traceId';
  const spanId = ids.id(field(span, 'spanId', 'span_id'));
  if (!spanId || spanId.length !== 16 || /^0+$/.test(spanId)) return 'a span has an invalid spanId';
  const parent = ids.id(field(span, 'parentSpanId', 'parent_span_id'));
  if (parent === null || (parent !== '' && parent.length !== 16)) return 'a span has an invalid parentSpanId';
  const start = nanosToMs(field(span, 'startTimeUnixNano', 'start_time_unix_nano'));
  const end = nanosToMs(field(span, 'endTimeUnixNano', 'end_time_unix_nano'));
  if (start === null || end === null) return 'a span has an invalid start or end time';
  const flags = integer(field(span, 'flags'));
  const statusObject = field(span, 'status');
  const events: OtlpEvent[] = [];
  for (const event of asArray(field(span, 'events'))) {
    if (!isObject(event)) continue;
    events.push({
      name: text(field(event, 'name')),
      time: nanosToMs(field(event, 'timeUnixNano', 'time_unix_nano')) ?? start,
      attributes: yield* attributeSteps(field(event, 'attributes'), ids, budget, progress),
    });
  }
  return {
    traceId,
    spanId,
    parentSpanId: parent === '' || /^0+$/.test(parent) ? null : parent,
    // SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK (0x100) says whether 0x200 (IS_REMOTE) is meaningful.
    parentIsRemote: flags !== null && (flags & 0x100) !== 0 ? (flags & 0x200) !== 0 : null,
    name: text(field(span, 'name')),
    kind: enumValue(field(span, 'kind'), 'SPAN_KIND_'),
    start,
    end: Math.max(start, end),
    attributes: yield* attributeSteps(field(span, 'attributes'), ids, budget, progress),
    events,
    status: isObject(statusObject)
      ? { code: enumValue(field(statusObject, 'code'), 'STATUS_CODE_'), message: text(field(statusObject, 'message')) }
      : { code: 0, message: '' },
    resource,
    scope,
  };
}

/** A `repeated KeyValue` → plain object; malformed entries are skipped. */
function* attributeSteps(value: unknown, ids: IdReader, budget: ValueBudget, progress: () => number): Generator<number, Attributes> {
  const out: Attributes = {};
  let read = 0;
  for (const entry of asArray(value)) {
    if (++read % ENTRIES_PER_STEP === 0) yield progress();
    if (!isObject(entry)) continue;
    const key = field(entry, 'key');
    if (typeof key !== 'string' || key === '' || key === '__proto__') continue;
    out[key] = anyValue(field(entry, 'value'), ids, 0, budget);
  }
  return out;
}

function anyValue(value: unknown, ids: IdReader, depth: number, budget: ValueBudget): AttributeValue {
  if (++budget.values > budget.max) {
    throw new OtlpLimitError(`the export holds over ${budget.max} attribute values, the limit per request: send smaller batches`);
  }
  if (!isObject(value) || depth > MAX_VALUE_DEPTH) return null;
  const stringValue = field(value, 'stringValue', 'string_value');
  if (stringValue !== undefined && stringValue !== null) return text(stringValue);
  const boolValue = field(value, 'boolValue', 'bool_value');
  if (boolValue !== undefined && boolValue !== null) return boolValue === true || boolValue === 'true';
  const intValue = field(value, 'intValue', 'int_value');
  if (intValue !== undefined && intValue !== null) {
    const n = Number(intValue);
    if (!Number.isFinite(n)) return null;
    return Number.isSafeInteger(n) ? n : String(intValue);
  }
  const doubleValue = field(value, 'doubleValue', 'double_value');
  if (doubleValue !== undefined && doubleValue !== null) {
    const n = Number(doubleValue);
    return Number.isNaN(n) ? null : n;
  }
  const arrayValue = field(value, 'arrayValue', 'array_value');
  if (isObject(arrayValue)) return asArray(field(arrayValue, 'values')).map((item) => anyValue(item, ids, depth + 1, budget));
  const kvlistValue = field(value, 'kvlistValue', 'kvlist_value');
  if (isObject(kvlistValue)) {
    const out: Record<string, AttributeValue> = {};
    for (const entry of asArray(field(kvlistValue, 'values'))) {
      if (!isObject(entry)) continue;
      const key = field(entry, 'key');
      if (typeof key === 'string' && key !== '__proto__') out[key] = anyValue(field(entry, 'value'), ids, depth + 1, budget);
    }
    return out;
  }
  const bytesValue = field(value, 'bytesValue', 'bytes_value');
  if (bytesValue !== undefined && bytesValue !== null) return ids.bytes(bytesValue);
  return null;
}

/** `fixed64` nanoseconds (a decimal string or a number) → epoch ms; null when not a non-negative integer. */
function nanosToMs(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value / 1e6 : null;
  if (typeof value !== 'string' || !/^\d{1,20}$/.test(value)) return null;
  const nanos = BigInt(value);
  return Number(nanos / 1000n) / 1000;
}

function enumValue(value: unknown, prefix: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string') {
    if (/^\d+$/.test(value)) return Number(value);
    // Protobuf JSON allows enum names; OTLP asks for numbers but some senders write names.
    const names = prefix === 'SPAN_KIND_' ? ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] : ['UNSET', 'OK', 'ERROR'];
    const index = names.indexOf(value.startsWith(prefix) ? value.slice(prefix.length) : value);
    return index < 0 ? 0 : index;
  }
  return 0;
}

function integer(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : null;
}

function field(object: Record<string, unknown>, camel: string, snake?: string): unknown {
  const value = Object.hasOwn(object, camel) ? object[camel] : undefined;
  if (value !== undefined || !snake) return value;
  return Object.hasOwn(object, snake) ? object[snake] : undefined;
}

function list(value: unknown, name: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${name} is not an array`);
  return value;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
