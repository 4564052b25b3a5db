import type { AsyncResource } from 'node:async_hooks';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span } from '@opentelemetry/sdk-trace-base';
import type { ResolvedConfig, ResolvedHttpLens } from '../config/types';
import type { Logger } from '../util/logger';
import type { UnitInput } from '../builder/input';
import { CallRecord, type CallStart } from './CallRecord';
import { captureStack } from '../origin/origin';
import { callStackLimit, currentEntry, type EntryStack } from '../origin/entry';
import { currentPool } from './scope';
import type { CaptureWriter } from './CaptureWriter';
import { Unit } from './Unit';
import { PROBE_ATTRIBUTES } from '../capture/attributes';
import { Sampler } from './Sampler';
import { setStackCapture } from '../origin/origin';
import { agentLoaded } from '../origin/agentInternals';
import { OriginQueue } from '../origin/OriginQueue';
import { TestStack } from './TestStack';
import { EmittingRequest } from './EmittingRequest';
import { foldPastCap, FOLD_EVERY } from './foldPastCap';
import { unitOpenedBy } from './spanUnits';
import { processName } from './processName';
import { now } from './clock';
import { isExcepted } from '../config/except';
import { onlyProxied } from './proxyHop';
import { BackgroundTicker } from './BackgroundTicker';
import { threadName, threadOrigin } from './threads';

/** Span attributes Probe sets on the spans of `job()` and `command()` (see capture/attributes). */
export const ATTR_UNIT = PROBE_ATTRIBUTES.unit;
export const ATTR_JOB_ID = PROBE_ATTRIBUTES.jobId;
export const ATTR_STATUS = PROBE_ATTRIBUTES.status;
export const ATTR_PARENT_ID = PROBE_ATTRIBUTES.parentId;

/** What a lens knows of an outgoing call when it starts (see Recorder.beginCall, which finds `pool` itself). */
export interface CallFacts extends Omit<CallStart, 'clientDecodes' | 'pool' | 'stack' | 'entry'> {
  /** The app's call sites taken already (node:http's entry wrapper); else taken in beginCall, `stackLimit` deep. */
  stack?: NodeJS.CallSite[] | null;
  stackLimit?: number;
  /** Where the app entered the client library, taken earlier (a cache hit answered later); else looked up now. */
  entry?: EntryStack | null;
  /** When the call started, when it was earlier than now (epoch ms). */
  start?: number;
  /** Whether the client decodes the response body (fetch does), or how to tell from the call sites. */
  clientDecodes?: boolean | ((stack: NodeJS.CallSite[] | null) => boolean);
}

const hrToMs = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;

/**
 * Groups spans and calls into units of work. The span processor tells it when spans start and end; the
 * lens attaches call records to the unit of the span that made them.
 */
export class Recorder {
  private readonly units = new Map<string, Unit>();
  /** The process's command capture: the window open now (see checkpoint). */
  private current: Unit;
  /** Stores the open window of the process's command capture while its calls end (see checkpoint). */
  private readonly background = new BackgroundTicker(() => this.checkpoint());
  /** Windows of the process's command capture stored complete while the process ran on. */
  private windowsStored = 0;
  servedRequest = false;
  /** Set once the process starts a child process (see start.ts): then it may be a launcher (npm, npx, tsx). */
  startedChild = false;
  /** The incoming request whose 'request' event is being emitted now (see noteIncoming), and its unit. */
  private readonly incoming = new EmittingRequest();
  private readonly requestUnits = new WeakMap<object, Unit>();
  /** Routes told for a request before its unit opened (see noteRoute). */
  private readonly earlyRoutes = new WeakMap<object, string | (() => unknown)>();
  /** The rule that names a request from its own object when nothing else did (see inferRoutes). */
  private requestRoute: RequestRoute | null = null;
  private readonly meta: UnitInput['meta'];
  private readonly origins: OriginQueue;
  /** The process's command unit as closeAll stored it (see correctExitCode). */
  private storedMain: Unit | undefined;
  /** Test units running now (see src/testrunner/). */
  private readonly tests = new TestStack();
  /** Set once a test ran here: the process's own command capture is then kept only when it holds calls. */
  ranTests = false;
  /** Units ended whose input waits for a decoded size still being counted (see close). */
  private readonly waiting = new Set<Unit>();
  /** Set by closeAll: the process is ending, nothing more is waited for. */
  private exiting = false;
  readonly sampler: Sampler;
  /** Instrumentation scopes whose client spans are the lenses' calls (see Lens.scopes): rows, not timeline spans. */
  private readonly callScopes = new Set<string>();
  /** The process's command name as Probe made it at start (a test runner may rename the capture: see testrunner/). */
  private readonly autoName: string;
  /** In a worker thread: the capture that made it and its maker's name (see threads.ts); null on the main thread. */
  private readonly thread = threadOrigin();
  /** A unit has held `max_rows` calls (see wantsStack): from then on a stack is asked for only when it is wanted. */
  private someUnitFull = false;
  /** Read at start: a forked worker's IPC channel is gone once it disconnects. */
  private readonly startedByTool = startedByTool();

  constructor(
    readonly config: ResolvedConfig,
    readonly writer: CaptureWriter,
    readonly logger: Logger,
  ) {
    this.meta = { pid: process.pid, hostname: os.hostname(), node: process.version, service: config.service };
    this.sampler = new Sampler(config.sampling);
    this.origins = new OriginQueue(config.root, config.origin.enabled, logger);
    setStackCapture(config.origin.enabled, () => this.wantsStack());
    this.autoName = processName(config.root);
    this.current = this.newProcessUnit(this.autoName, now() - process.uptime() * 1000);
  }

  /** A lens's instrumentation scopes: their client spans are its calls, shown as rows and left out of the timeline. */
  ownsCallSpans(scopes: readonly string[]): void {
    for (const scope of scopes) this.callScopes.add(scope);
  }

  /** The process's command capture: calls outside any request, job or test (boot, timers, pollers). */
  get processUnit(): Unit {
    return this.current;
  }

  /** The name of the process's (or thread's) command capture now: a thread's is `<process> › <thread script>`. */
  commandName(): string {
    this.nameThread(this.current);
    return this.current.name;
  }

  private newProcessUnit(name: string, start: number): Unit {
    const unit = new Unit('command', name, start, randomTraceId(), null, this.thread?.parentId ?? null);
    unit.sampled = this.sampler.decide(unit.traceId);
    return unit;
  }

  /** The unit the active context belongs to (outside any: the running test, else the process's command unit). */
  /** The job unit `spanId` opened was opened by Probe's own queue wrappers, not by the app. */
  markAutomatic(spanId: string): void {
    const unit = this.units.get(spanId);
    if (unit && unit.type === 'job' && unit.rootSpanId === spanId) unit.automatic = true;
  }

  /**
   * `job(name, fn, {id})` run inside a job Probe opened itself (a queue's job, a consumer's message) and not named by
   * the app yet: that job is named (and numbered) by it, and true is returned; else false (a unit of its own).
   */
  refineJob(name: string, id: string | undefined): boolean {
    const unit = this.activeUnit();
    if (unit.type !== 'job' || unit.closed || unit.refined || !(unit.automatic || unit.fromConsumer)) return false;
    unit.refined = true;
    unit.name = name;
    if (id !== undefined) unit.jobId = id;
    return true;
  }

  activeUnit(): Unit {
    const span = trace.getActiveSpan();
    if (span) {
      const unit = this.units.get(span.spanContext().spanId);
      if (unit && !unit.closed) return unit;
    }
    return this.outside();
  }

  /**
   * Where work outside any request or job goes: the test whose async context this is (see TestStack), else the
   * process's command unit.
   */
  private outside(): Unit {
    return this.tests.current() ?? this.processUnit;
  }

  /**
   * Whether this process is a test runner's pool worker with no test running: one that ran tests, was forked with
   * an IPC channel (its runner's), and is on its main thread. A runner stops such a worker with SIGTERM once its
   * files are done (Vitest's forks pools): the end the runner meant, not a kill.
   */
  idleTestWorker(): boolean {
    return this.ranTests && !this.thread && typeof process.send === 'function' && this.tests.isEmpty();
  }

  /**
   * A test case starts: its own unit of type `test` until endTest, named by its path (`suite > case`, kept as
   * given too: see Unit.testPath). Tests nest (node:test subtests).
   */
  beginTest(path: readonly string[]): Unit {
    this.ranTests = true;
    const unit = new Unit('test', path.join(' > ') || 'test', now(), randomTraceId(), null, null);
    unit.testPath = path.length ? path : null;
    unit.sampled = this.sampler.decide(unit.traceId);
    this.tests.push(unit);
    return unit;
  }

  /**
   * Runs a test's own code (its function, a hook run for it) in its context: its calls are its own. Null: code
   * that belongs to no test (a suite's hook), whatever tests run beside it.
   */
  runInTest<T>(unit: Unit | null, fn: () => T): T {
    return this.tests.run(unit, fn);
  }

  /** From here on this async function's context is the test's (null: the runner's own): see TestStack.enter. */
  enterTest(unit: Unit | null): void {
    this.tests.enter(unit);
  }

  /** What `resource` runs from now on belongs to the test `unit` (null: to no test): see TestStack.bindResource. */
  bindTestResource(resource: AsyncResource, unit: Unit | null): boolean {
    return this.tests.bindResource(resource, unit);
  }

  /** A test case ended, after its hooks: `passed`, `failed`, or `skipped` (the runner skipped it once started). */
  endTest(unit: Unit, passed: boolean | 'skipped'): void {
    this.tests.remove(unit);
    unit.status = passed === 'skipped' ? 'skipped' : passed ? 'passed' : 'failed';
    unit.endedBy = passed === false ? 'error' : 'return';
    this.close(unit);
  }

  /** How many spans the recorder still maps to units (bounded: see onEnd). */
  get trackedSpans(): number {
    return this.units.size;
  }

  unitOfSpan(spanId: string): Unit {
    const unit = this.units.get(spanId);
    return unit && !unit.closed ? unit : this.outside();
  }

  /**
   * The one place an outgoing call starts: a record for `unit` with the facts the lens knows now, the app's call
   * site (taken here, read later off the app's path) and the pool it runs in. `make` builds a lens's own kind of
   * record (FetchCall) when the lens keeps state of its own on it. The caller has checked `unit.sampled`.
   */
  beginCall<R extends CallRecord = CallRecord>(unit: Unit, facts: CallFacts, make?: (maxBodyBytes: number) => R): R {
    // A call the unit cannot keep as a row is only counted: no stack, no bodies (see pastRowCap).
    const counted = this.pastRowCap(unit);
    const maxBodyBytes = counted ? 0 : (this.config.http?.max_body_bytes ?? 0);
    const record = make ? make(maxBodyBytes) : (new CallRecord(maxBodyBytes, facts.start) as R);
    if (counted) record.countOnly();
    // One context lookup for both: the entry decides how deep the call's own stack is taken. From the lens's frame
    // up (`below`: this method's own frame is not one of the limited frames the lens asked for).
    const entry = counted ? null : facts.entry !== undefined ? facts.entry : currentEntry();
    const stack = counted
      ? null
      : facts.stack !== undefined
        ? facts.stack
        : entry?.only
          ? null
          : captureStack(callStackLimit(facts.stackLimit, entry), Recorder.prototype.beginCall);
    record.begin({
      method: facts.method,
      url: facts.url,
      spanId: facts.spanId,
      parentSpanId: facts.parentSpanId,
      requestHeaders: facts.requestHeaders,
      clientDecodes: typeof facts.clientDecodes === 'function' ? facts.clientDecodes(stack) : facts.clientDecodes,
      pool: currentPool(unit),
      stack,
      entry,
    });
    this.addCall(unit, record);
    return record;
  }

  addCall(unit: Unit, call: CallRecord): void {
    if (!unit.sampled) return;
    unit.calls.push(call);
    if (unit === this.current) this.background.watch();
    if (call.hasCallSites) this.origins.add(call);
    const lens = this.config.http;
    if (!lens) return;
    if (!this.someUnitFull && unit.calls.length >= lens.max_rows) this.someUnitFull = true;
    if (unit.calls.length >= lens.max_rows + FOLD_EVERY) foldPastCap(unit, lens, this.config, this.logger);
  }

  /**
   * Whether a call `unit` starts now can only be counted: the unit holds `max_rows` calls already, rows or folded,
   * and calls become rows in the order they start (buildCapture keeps the first `max_rows`), so this one will be
   * folded into the totals, which need its method, URL, status and times, not its line nor its bodies. A script or
   * a worker making thousands of calls in one capture pays for its first `max_rows` calls' details only. Not while
   * an APM agent is loaded: an agent's own calls, told by their stacks, are no rows and would leave room.
   */
  private pastRowCap(unit: Unit): boolean {
    const lens = this.config.http;
    return !!lens && unit.calls.length + (unit.folded?.count ?? 0) >= lens.max_rows && !agentLoaded();
  }

  /**
   * Whether a stack taken now (a lens's entry wrapper, a library entry) is wanted: not for a unit left out by
   * sampling nor for a call that will only be counted. A context lookup, made only once sampling is in effect or
   * a unit has reached its row cap.
   */
  private wantsStack(): boolean {
    if (!this.sampler.active && !this.someUnitFull) return true;
    const unit = this.activeUnit();
    return unit.sampled && !this.pastRowCap(unit);
  }

  /**
   * Told of each incoming request just before node:http emits its 'request' event (`http.server.request.start`).
   * Every server span started during that emit is the same request: Sentry 8 starts two (its own and
   * instrumentation-http's, in two traces), and an app's instrumentation beside Probe's may add another. They
   * share one unit, so a request is one capture holding all its calls.
   */
  noteIncoming(request: object): void {
    this.incoming.note(request);
  }

  /** Whether an incoming request (its node:http `IncomingMessage`) opened a unit: false for one emitted before Probe started. */
  hasRequestUnit(request: object): boolean {
    return this.requestUnits.has(request);
  }

  /**
   * A web framework's route template for an incoming request (its node:http `IncomingMessage`), or a reader
   * of it called when the request ends (Koa and Hono settle it while the request runs). The request's unit is
   * found from the message, else from the active context; outside a request it is ignored.
   */
  noteRoute(request: object | undefined, route: string | (() => unknown), fallback = false): void {
    // Told as node:http starts the request, before its unit opens (a reader of a whole-server router: Nitro's).
    if (request && request === this.incoming.current && !this.requestUnits.has(request)) {
      this.earlyRoutes.set(request, route);
      return;
    }
    const unit = (request && this.requestUnits.get(request)) || this.activeUnit();
    if (unit.type !== 'request' || unit.closed) return;
    if (fallback) unit.fallbackRoute(route);
    else unit.routeFrom = route;
  }

  /**
   * A rule that reads a request's route off its node:http request object (the one the server handed the app) and
   * its target as node:http parsed it, when the request ends: the route of any framework no reader of Probe names
   * (lens/routes/paramsRoute). Returns the undo.
   */
  inferRoutes(rule: RequestRoute): () => void {
    this.requestRoute = rule;
    return () => {
      if (this.requestRoute === rule) this.requestRoute = null;
    };
  }

  /**
   * A framework whose router Probe reads (Express) started routing a request: what it finds is the request's
   * route, none included; the request's own parameters (inferRoutes) are not read for it.
   */
  noteRouted(request: object): void {
    const unit = this.requestUnits.get(request);
    if (unit && !unit.closed) unit.routed = true;
  }

  onStart(span: Span, parentContext: Context): void {
    const { spanId, traceId } = span.spanContext();
    const parent = trace.getSpan(parentContext);
    const parentSpanContext = parent?.spanContext();
    const parentUnit = parentSpanContext && !parentSpanContext.isRemote ? this.units.get(parentSpanContext.spanId) : undefined;
    const liveParent = parentUnit && !parentUnit.closed ? parentUnit : undefined;
    const opens = unitOpenedBy(span, liveParent !== undefined);
    const start = hrToMs(span.startTime);
    let unit: Unit | undefined;
    let decideBy = traceId;
    const parentId = liveParent && liveParent !== this.processUnit ? liveParent.id : null;
    if (opens?.type === 'job' || opens?.type === 'command') {
      // A job queued by a capture of this process (lens/jobs: BullMQ's Queue#add) names it; an enclosing live unit wins.
      const queuedBy = span.attributes[ATTR_PARENT_ID];
      // A queue library's own telemetry (BullMQ's `telemetry` option) starts a CONSUMER span around the run that
      // Probe's wrapper makes a job(): one job, so one capture, ours, keeping what the CONSUMER span carried.
      const wrapper = opens.type === 'job' && liveParent?.fromConsumer && !liveParent.calls.length && !liveParent.spans.length ? liveParent : undefined;
      if (wrapper) wrapper.superseded = true;
      const enclosing = wrapper ? wrapper.parentId : parentId;
      unit = new Unit(opens.type, span.name, start, traceId, spanId, enclosing ?? (typeof queuedBy === 'string' ? queuedBy : null));
      if (wrapper) unit.linkedByTrace = wrapper.linkedByTrace;
      if (opens.jobId !== null) unit.jobId = opens.jobId;
    } else if (opens?.type === 'request') {
      const incoming = this.incoming.current;
      const same = incoming && this.requestUnits.get(incoming);
      if (same && !same.closed) {
        this.register(same, spanId);
        return;
      }
      unit = new Unit('request', span.name, start, traceId, spanId, parentId);
      if (incoming) this.requestUnits.set(incoming, unit);
      if (incoming && this.requestRoute) unit.routeOfRequest = boundRule(this.requestRoute, incoming);
      const early = incoming && this.earlyRoutes.get(incoming);
      if (early) unit.routeFrom = early;
      decideBy = incomingTraceId(incoming) ?? traceId;
      this.servedRequest = true;
    } else if (opens?.type === 'consumer') {
      unit = new Unit('job', span.name, start, traceId, spanId, null);
      unit.fromConsumer = true;
    }
    if (unit) {
      if (unit.type !== 'request' && parentSpanContext?.isRemote) unit.linkedByTrace = true;
      // Once per root unit, from its trace id; a unit started inside another follows it.
      unit.sampled = liveParent && liveParent !== this.processUnit ? liveParent.sampled : this.sampler.decide(decideBy);
      this.register(unit, spanId);
      return;
    }
    const owner = liveParent ?? this.outside();
    this.register(owner, spanId);
  }

  private register(unit: Unit, spanId: string): void {
    this.units.set(spanId, unit);
    unit.openSpans.add(spanId);
  }

  onEnd(span: ReadableSpan): void {
    const { spanId } = span.spanContext();
    const unit = this.units.get(spanId);
    if (!unit) return;
    // The process unit lives as long as the process: forget its spans as they end, or a server would
    // keep one entry per boot/timer call forever. A late child still lands there (the lookup's
    // fallback). Other units keep theirs until they close, since a call may start after a short-lived
    // parent span (a middleware's) has ended.
    // An outgoing call's span has no children to find its unit later: forget it too, or a job making
    // 100,000 calls keeps 100,000 span ids until it ends.
    if (unit === this.processUnit || (span.kind === SpanKind.CLIENT && unit.rootSpanId !== spanId)) {
      this.units.delete(spanId);
      unit.openSpans.delete(spanId);
    }
    if (unit.rootSpanId === spanId) {
      this.endRootSpan(unit, span, hrToMs(span.endTime));
      return;
    }
    if (span.kind === SpanKind.CLIENT && this.callScopes.has(span.instrumentationScope?.name ?? '')) return;
    if (unit.closed || !unit.sampled) return;
    unit.spans.push({
      id: spanId,
      parentId: span.parentSpanContext?.spanId ?? null,
      name: span.name,
      start: hrToMs(span.startTime),
      end: hrToMs(span.endTime),
      meta: { kind: SpanKind[span.kind]?.toLowerCase() },
    });
  }

  private endRootSpan(unit: Unit, span: ReadableSpan, end: number): void {
    const attrs = span.attributes;
    const failed = span.status.code === SpanStatusCode.ERROR;
    if (unit.type === 'request') {
      const status = attrs['http.response.status_code'] ?? attrs['http.status_code'] ?? unit.request?.status;
      unit.status = status === undefined || status === null ? '' : String(status);
      if (unit.request) {
        unit.request.status = unit.status ? Number(unit.status) : null;
        // The framework's own report first: the same whether or not the app's OTel setup sets http.route.
        // Then the route the app's OTel instrumentations put on the request's RPC metadata (instrumentation-http
        // writes it as http.route), then the request's own parameters: a reconstruction, the last resort, read
        // only where no framework Probe reads followed the request (one that matched no route says none).
        const named = unit.frameworkRoute() ?? attrs['http.route'];
        const followed = unit.routeFrom !== null || unit.routed;
        const route = typeof named === 'string' && named ? named : followed ? null : unit.routeOfRequest?.(unit.request.status);
        if (typeof route === 'string' && route) unit.request.route = route;
      }
      unit.endedBy = 'response';
    } else if (unit.type === 'job') {
      const explicit = attrs[ATTR_STATUS];
      unit.status = typeof explicit === 'string' ? explicit : failed ? 'failed' : 'done';
      unit.endedBy = unit.status === 'failed' ? 'error' : 'return';
    } else {
      const explicit = attrs[ATTR_STATUS];
      unit.status = typeof explicit === 'string' ? explicit : failed ? '1' : '0';
      unit.endedBy = unit.status === '0' ? 'return' : 'error';
    }
    this.close(unit, end);
  }

  /** Ends a unit and queues it for building on a later turn (after the response has gone out). */
  close(unit: Unit, end = now()): void {
    if (unit.closed) return;
    unit.closed = true;
    unit.endedAt = end;
    for (const id of unit.openSpans) {
      if (this.units.get(id) === unit) this.units.delete(id);
    }
    unit.openSpans.clear();
    this.nameOperation(unit);
    if (!unit.sampled || unit.superseded || this.excluded(unit.name)) return;
    // A dev server's hop to the app's own server: that server's capture is the request's (see proxyHop).
    if (onlyProxied(unit, this.config.root)) return;
    // Call sites still waiting for their turn (see OriginQueue) are resolved now, in the same one place.
    this.origins.flush();
    // A decoded size still being counted on the thread pool (a long compressed body that just ended) is
    // waited for, so the builder gets it as plain data; at exit nothing is waited for.
    let counting = 0;
    if (!this.exiting) {
      const counted = () => {
        if (--counting === 0 && this.waiting.delete(unit)) this.enqueue(unit);
      };
      for (const call of unit.calls) if (call.whenBodyCounted(counted)) counting++;
    }
    if (counting) this.waiting.add(unit);
    else this.enqueue(unit);
  }

  /** `POST /graphql (GetUser)`: the operation the request named (see Unit.operationFrom), once. */
  private nameOperation(unit: Unit): void {
    const read = unit.operationFrom;
    if (!read) return;
    unit.operationFrom = null;
    try {
      const operation = read();
      if (operation) unit.name = `${unit.name} (${operation})`;
    } catch (error) {
      this.logger.warnOnce('graphql-operation', 'could not read a GraphQL operation name', error);
    }
  }

  private enqueue(unit: Unit): void {
    try {
      this.writer.enqueue(unit.toInput(this.metaNow()));
    } catch (error) {
      this.logger.warnOnce('unit-input', 'could not record a capture', error);
    }
  }

  /** The meta of a capture written now: with sampling in effect, what was left out since the previous one. */
  private metaNow(): UnitInput['meta'] {
    if (!this.sampler.active) return this.meta;
    const { rate, maxPerSecond } = this.sampler.settings;
    return { ...this.meta, sampling: { rate, max_per_second: maxPerSecond, skipped: this.sampler.takeSkipped() } };
  }

  excluded(name: string): boolean {
    return isExcepted(this.config.except, name);
  }

  /**
   * Stores the process's command capture as it stands, with the calls that ended (status `running`), so what a
   * server does outside its requests is seen while it runs; the final version replaces it at exit (same id).
   * Past `background.window_seconds` the window is stored whole (status `window`) and the next one starts, so a
   * poller fills one capture per window, never one per call, and cannot push requests out of the store.
   * Answers whether calls are still in flight (the ticker keeps going).
   */
  private checkpoint(): boolean {
    const unit = this.current;
    this.nameThread(unit);
    if (unit.closed || this.exiting || !unit.sampled || this.excluded(unit.name)) return false;
    this.origins.flush();
    let ended = unit.folded?.count ?? 0;
    let open = 0;
    for (const call of unit.calls) {
      call.settle(this.config.root, this.config.origin.enabled);
      if (call.byAgent) continue;
      if (call.done) ended++;
      else open++;
    }
    if (ended === unit.checkpointed) return open > 0;
    unit.checkpointed = ended;
    const rotate = open === 0 && now() - unit.startedAt >= this.config.background.windowMs;
    const input = unit.toInput(this.metaNow(), { doneOnly: true });
    input.status = rotate ? 'window' : 'running';
    input.endedAt = now();
    // A running version is replaced later (same id): the store's thread keeps its calls and is handed only new ones.
    if (!rotate) input.partial = true;
    try {
      this.writer.enqueue(input);
    } catch (error) {
      this.logger.warnOnce('unit-input', 'could not record a capture', error);
    }
    if (rotate) {
      this.windowsStored++;
      unit.closed = true;
      unit.endedAt = input.endedAt;
      for (const id of unit.openSpans) if (this.units.get(id) === unit) this.units.delete(id);
      unit.openSpans.clear();
      this.current = this.newProcessUnit(unit.name, input.endedAt);
    }
    return open > 0;
  }

  /**
   * A thread's command capture is named once its script is known (Node sets argv[1] after the preload ran), unless
   * a test runner named it already (Vitest's threads pool: `vitest <file>`).
   */
  private nameThread(unit: Unit): void {
    if (this.thread && unit.name === this.autoName) unit.name = threadName(this.thread, this.config.root);
  }

  /**
   * At exit: every open unit ends, and the process's own command unit is kept when it holds calls, or when it
   * has none but neither served requests (a server's own capture) nor started a child process (a launcher:
   * `npm run`, `npx`, tsx's launcher, nodemon each run the real program in a child that is recorded itself),
   * nor was started by a tool to help it (see startedByTool).
   */
  closeAll(exitCode: number, endedBy: 'exit' | 'error'): void {
    this.exiting = true;
    this.background.stop();
    for (const unit of [...this.waiting]) {
      this.waiting.delete(unit);
      this.enqueue(unit);
    }
    // A test still running at exit did not pass (the process exited or crashed inside it).
    for (const unit of this.tests.drain()) {
      unit.status = 'failed';
      unit.endedBy = endedBy;
      this.close(unit);
    }
    const open = new Set(this.units.values());
    for (const unit of open) {
      if (unit === this.processUnit || unit.closed) continue;
      unit.endedBy = endedBy;
      if (!unit.status) unit.status = unit.type === 'job' ? 'failed' : unit.type === 'command' ? String(exitCode) : '';
      this.close(unit);
    }
    const main = this.current;
    if (main.closed) return;
    this.nameThread(main);
    main.status = String(exitCode);
    main.endedBy = endedBy;
    // A server's (or a test file's) own command capture matters only when something outside its requests
    // (tests) called out; a launcher's, only when it called out itself.
    // A process whose earlier windows were stored keeps a last window only when it holds calls.
    const quiet = !this.servedRequest && !this.ranTests && !this.startedChild && !this.startedByTool && !this.windowsStored && !this.thread;
    if (this.holdsCalls(main) || main.folded || quiet) {
      this.close(main);
      this.storedMain = main;
    } else main.closed = true;
  }

  /**
   * The process's command capture was stored at 'beforeExit' with the exit code known then; an 'exit' listener
   * of the app set another (`process.exitCode`): stored again (same id) with the code the process exits with.
   */
  correctExitCode(exitCode: number): void {
    const main = this.storedMain;
    if (!main || main.status === String(exitCode)) return;
    main.status = String(exitCode);
    main.endedBy = exitCode === 0 ? main.endedBy : 'exit';
    this.enqueue(main);
  }

  /** Whether the unit holds a call of the app's (an agent's own calls do not count). */
  private holdsCalls(unit: Unit): boolean {
    return unit.calls.some((call) => {
      call.settle(this.config.root, this.config.origin.enabled);
      return !call.byAgent;
    });
  }
}

/**
 * A helper process a tool started for itself: a script inside a package (jest-worker's processChild.js, Next.js's
 * telemetry flusher, a CLI's own entry point) or a process forked with an IPC channel (a pool worker). When it made
 * no call its command capture says nothing the person asked about, so it is not kept.
 */
function startedByTool(): boolean {
  const script = process.argv[1];
  if (process.channel) return true;
  if (!script) return false;
  let real = script;
  try {
    real = realpathSync(script);
  } catch {
    // the script name as given (a path that no longer resolves)
  }
  return real.split(path.sep).includes('node_modules');
}

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}/;

/**
 * The trace an incoming request says it belongs to (W3C `traceparent`), read for the sampling decision only:
 * with no propagator of the app's (Probe registers none), the request's span starts a trace of its own, yet
 * every service of the caller's trace must decide alike.
 */
function incomingTraceId(request: object | undefined): string | undefined {
  const header = (request as { headers?: Record<string, unknown> } | undefined)?.headers?.traceparent;
  const match = typeof header === 'string' ? TRACEPARENT.exec(header) : null;
  return match && match[1] !== '0'.repeat(32) ? match[1] : undefined;
}

function randomTraceId(): string {
  let out = '';
  for (let i = 0; i < 32; i++) out += Math.floor(Math.random() * 16).toString(16);
  return out;
}

/** Reads a request's route off its node:http request and target (see Recorder.inferRoutes). */
export type RequestRoute = (request: object, target: string | undefined, status: number | null) => string | null;

/** The rule bound to one request, its target taken now (before a framework rewrites `req.url`). Never throws. */
function boundRule(rule: RequestRoute, request: object): (status: number | null) => string | null {
  let target: string | undefined;
  try {
    const url = Object.getOwnPropertyDescriptor(request, 'url')?.value as unknown;
    target = typeof url === 'string' ? url : undefined;
  } catch {
    target = undefined;
  }
  return (status) => {
    try {
      return rule(request, target, status);
    } catch {
      return null;
    }
  };
}
