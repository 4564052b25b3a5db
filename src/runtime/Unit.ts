import type { CaptureType, EndedBy } from '../capture/types';
import type { FoldedCallsInput, IncomingRequestInput, PoolInput, SpanInput, UnitInput } from '../builder/input';
import type { CallRecord } from './CallRecord';
import { newCaptureId } from '../capture/ids';
import { testRunMeta } from './testRun';

/** A unit of work in progress: the root of one future capture. */
export class Unit {
  readonly id = newCaptureId();
  name: string;
  status = '';
  label: string | null = null;
  tags: string[] = [];
  jobId: string | null = null;
  request: IncomingRequestInput | null = null;
  /** The framework's route template, or a reader of it called when the request ends (see Recorder.noteRoute). */
  routeFrom: string | (() => unknown) | null = null;
  /**
   * The route read off the request object itself when the request ends (Recorder.inferRoutes), given its status:
   * used only when neither a framework-specific reader nor the app's OTel instrumentation (`http.route`) named it.
   */
  routeOfRequest: ((status: number | null) => string | null) | null = null;
  /** A framework Probe reads routed this request (Recorder.noteRouted): its finding no route is the answer. */
  routed = false;
  /**
   * A test's name path as its runner gives it (suites, then its own name): its `name` joins them with ` > `, which
   * a name may hold itself; the capture keeps the path as `meta.test_path`.
   */
  testPath: readonly string[] | null = null;
  /** A test's file relative to the app root (`meta.test_file`), when its runner names it. */
  testFile: string | null = null;
  /** The operation a request names (GraphQL's), read when the unit closes and added to its name. */
  operationFrom: (() => string | null) | null = null;
  readonly spans: SpanInput[] = [];
  readonly calls: CallRecord[] = [];
  readonly pools: PoolInput[] = [];
  /** Finished calls past `max_rows`, already counted and let go (Recorder.foldPastCap). */
  folded: FoldedCallsInput | undefined;
  /** Ids of this unit's spans still open: dropped from the lookup as they end, the rest when it closes. */
  readonly openSpans = new Set<string>();
  endedAt: number | null = null;
  endedBy: EndedBy = 'return';
  closed = false;
  /** Calls ended (rows and folded) when the process's command capture was last stored while running. */
  checkpointed = 0;
  /**
   * The unit's root span continues a trace that came from elsewhere (its parent span context is remote): the app's
   * own telemetry carried a producer's trace into this job. Its `linked_via` is then `trace` (the same `trace_id`).
   */
  linkedByTrace = false;
  /** Started by an app's OTel CONSUMER span (a queue library's own telemetry). */
  fromConsumer = false;
  /** Opened by Probe's own queue wrappers (lens/jobs), not by the app's `job()`: the app's first `job()` inside names it. */
  automatic = false;
  /** Named by the app's `job()` run inside it (see Recorder.refineJob). */
  refined = false;
  /** A CONSUMER unit whose run turned out to be one of Probe's `job()` units: that one is the capture, not this. */
  superseded = false;
  /** Decided when the unit starts (see Sampler): a unit not sampled records nothing and is never written. */
  sampled = true;

  constructor(
    readonly type: CaptureType,
    name: string,
    readonly startedAt: number,
    readonly traceId: string,
    readonly rootSpanId: string | null,
    readonly parentId: string | null,
  ) {
    this.name = name;
  }

  /** The framework's route template, when it reported a non-empty one. Never throws. */
  frameworkRoute(): string | null {
    return this.routeFrom === null ? null : readRoute(this.routeFrom);
  }

  /**
   * A route read inside the app's rendering (a page router's), kept behind the one the server's router told: that
   * one names the request when it matched (an error page rendered for an API route's failure does not rename it).
   */
  fallbackRoute(route: string | (() => unknown)): void {
    const before = this.routeFrom;
    this.routeFrom = before ? () => readRoute(before) ?? readRoute(route) : route;
  }

  openPool(parentSpanId: string | null): number {
    const number = this.pools.length + 1;
    this.pools.push({ number, parentSpanId });
    return number;
  }

  /** Plain data for the builder: origins are resolved by then (Recorder.resolvePendingOrigins). */
  toInput(meta: UnitInput['meta'], { doneOnly = false } = {}): UnitInput {
    const endedAt = this.endedAt ?? Date.now();
    return {
      id: this.id,
      type: this.type,
      name: this.name,
      status: this.status,
      parentId: this.parentId,
      traceId: this.traceId,
      linkedVia: this.parentId ? 'parent' : this.linkedByTrace ? 'trace' : null,
      rootSpanId: this.rootSpanId,
      startedAt: this.startedAt,
      endedAt,
      endedBy: this.endedBy,
      label: this.label,
      tags: this.tags,
      jobId: this.jobId,
      meta: this.type === 'test' ? { ...meta, ...testMeta(this.testPath, this.testFile) } : meta,
      request: this.request,
      spans: this.spans,
      // An agent's own calls (told once their stacks were read: Recorder.close settles every pending one first).
      calls: this.calls.filter((call) => !call.byAgent && (!doneOnly || call.done)).map((call) => call.toInput()),
      pools: this.pools,
      ...(this.folded ? { folded: this.folded } : {}),
    };
  }
}

/** A route told as a string or a reader of it: the string when non-empty. Never throws. */
function readRoute(from: string | (() => unknown)): string | null {
  let route: unknown = from;
  if (typeof route === 'function') {
    try {
      route = (route as () => unknown)();
    } catch {
      route = null; // a reader on a request the framework never routed (Hono's 404)
    }
  }
  return typeof route === 'string' && route ? route : null;
}

/** What a test capture's meta adds: its name path, its file, and the run it belongs to (see testRun.ts). */
function testMeta(testPath: readonly string[] | null, testFile: string | null): Record<string, unknown> {
  return {
    ...(testPath ? { test_path: [...testPath] } : {}),
    ...(testFile ? { test_file: testFile } : {}),
    ...testRunMeta(),
  };
}
