import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { currentRuntime } from './state';
import { ATTR_JOB_ID, ATTR_PARENT_ID, ATTR_STATUS, ATTR_UNIT } from './Recorder';
import { poolScope } from './scope';

/**
 * Runs `fn` as a pool: the calls it makes share one pool number in the capture (and one row on the
 * timeline). Returns what `fn` returns, untouched.
 */
export function pool<T>(fn: () => T): T {
  const runtime = currentRuntime();
  if (!runtime) return fn();
  let scope;
  try {
    const unit = runtime.recorder.activeUnit();
    const parent = trace.getActiveSpan()?.spanContext().spanId ?? unit.rootSpanId;
    scope = { unit, number: unit.openPool(parent) };
  } catch {
    return fn();
  }
  return poolScope.run(scope, fn);
}

/** Runs `fn` as a background job: its own capture of type `job`, `done` or `failed`. */
export function job<T>(name: string, fn: () => T, options: { id?: string } = {}): T {
  // Inside a job Probe records already (a queue's job, a consumer's message), job() names that capture: the app
  // wrapping its processor means this job, not a second one inside it.
  const runtime = currentRuntime();
  try {
    if (runtime?.recorder.refineJob(String(name), options.id === undefined ? undefined : String(options.id))) return fn();
  } catch {
    // never in the app's way: a new unit, as below
  }
  return unitSpan('job', name, fn, options.id);
}

/**
 * `job()` for Probe's own queue wrappers: `queuedBy` is the id of the capture of this process that queued the job
 * (its `parent_id`). Not part of the app API.
 */
export function queuedJob<T>(name: string, fn: () => T, id: string | undefined, queuedBy: string | undefined): T {
  return unitSpan('job', name, fn, id, queuedBy, true);
}

/** Runs `fn` as a command: its own capture of type `command`, status `0` or `1`. */
export function command<T>(name: string, fn: () => T): T {
  return unitSpan('command', name, fn);
}

function unitSpan<T>(type: 'job' | 'command', name: string, fn: () => T, jobId?: string, queuedBy?: string, automatic = false): T {
  const runtime = currentRuntime();
  if (!runtime) return fn();
  const attributes: Record<string, string> = { [ATTR_UNIT]: type };
  if (jobId !== undefined) attributes[ATTR_JOB_ID] = String(jobId);
  if (queuedBy !== undefined) attributes[ATTR_PARENT_ID] = queuedBy;
  let span;
  try {
    span = runtime.tracer.startSpan(String(name), { kind: SpanKind.INTERNAL, attributes });
  } catch {
    return fn();
  }
  if (automatic) runtime.recorder.markAutomatic(span.spanContext().spanId);
  const ok = type === 'job' ? 'done' : '0';
  const bad = type === 'job' ? 'failed' : '1';
  const end = (status: string) => {
    try {
      span.setAttribute(ATTR_STATUS, status);
      if (status === bad) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    } catch {
      // never in the app's way
    }
  };
  let result: T;
  try {
    result = context.with(trace.setSpan(context.active(), span), fn);
  } catch (error) {
    end(bad);
    throw error;
  }
  if (result && typeof (result as { then?: unknown }).then === 'function') {
    (result as unknown as Promise<unknown>).then(
      () => end(ok),
      () => end(bad),
    );
  } else end(ok);
  return result;
}

/** Sets the label of the current capture. */
export function label(text: string): void {
  const runtime = currentRuntime();
  if (runtime) runtime.recorder.activeUnit().label = String(text);
}

/** Adds tags to the current capture. */
export function tag(...names: string[]): void {
  const runtime = currentRuntime();
  if (runtime) runtime.recorder.activeUnit().tags.push(...names.map(String));
}
