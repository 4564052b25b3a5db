import diagnostics from 'node:diagnostics_channel';
import { syncBuiltinESMExports } from 'node:module';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AlwaysOnSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { ProbeConfig } from './config/types';
import type { ProbeRuntime } from './runtime/state';
import { openStore } from './store/openStore';
import { createLogger } from './util/logger';
import { CaptureWriter } from './runtime/CaptureWriter';
import { Recorder } from './runtime/Recorder';
import { ProbeSpanProcessor } from './runtime/ProbeSpanProcessor';
import { currentRuntime, setRuntime } from './runtime/state';
import { installSocketWatch } from './runtime/sockets';
import { undoPatches } from './runtime/patches';
import { installExitHooks } from './runtime/exit';
import { linkNewThreads, ThreadFlusher } from './runtime/threads';
import { UndiciLens } from './lens/UndiciLens';
import { HttpLens } from './lens/HttpLens';
import { wrapFetch } from './lens/fetch';
import { UndiciFetchInstrumentation } from './lens/UndiciFetchInstrumentation';
import { LibraryEntryInstrumentation } from './lens/libraryEntries';
import { UndiciInterceptorInstrumentation } from './lens/undiciInterceptors';
import { Joiner, type JoinLens } from './runtime/join/Joiner';
import { hasContextManager, watchTracerProvider } from './runtime/join/globals';
import { yieldContextManagerTo } from './runtime/join/context';
import { appApi } from './runtime/appApi';
import { adoptAppHttpInstrumentation } from './runtime/join/adopt';
import { appInstrumentsHttp, neverUnwrapOthers } from './runtime/join/appHttp';
import { wrapHttpEntries } from './lens/httpEntry';
import { alsoHookEsm } from './lens/esmHook';
import { NodeTestInstrumentation, nodeTestMayRun } from './testrunner/nodeTest';
import { isTestRunnerProcess } from './testrunner/runnerProcess';
import { watchRoutes } from './lens/routes/watchRoutes';
import { JobInstrumentation } from './lens/jobs/JobInstrumentation';

/** A channel subscription that never throws into the publisher; returns its undo. */
function subscribe(name: string, handler: (message: unknown) => void): () => void {
  const safe = (message: unknown) => {
    try {
      handler(message);
    } catch {
      // recording never disturbs the app
    }
  };
  diagnostics.subscribe(name, safe);
  return () => diagnostics.unsubscribe(name, safe);
}

export interface ProbeHandle {
  /** Stops recording, stores what is pending and releases the store. */
  shutdown(): Promise<void>;
}

const NOOP: ProbeHandle = { shutdown: async () => {} };

/**
 * Starts Probe in this process: resolves the config once, makes the store, and turns on the lens. Bad
 * configuration throws a ProbeConfigError naming the setting (the preload catches it and prints one line).
 * Calling it again returns the running instance.
 */
export function start(overrides: ProbeConfig = {}): ProbeHandle {
  const running = currentRuntime();
  if (running) return running;
  const logger = createLogger();
  const { config, store } = openStore({ overrides, logger, recording: true });
  if (!store) return NOOP;
  const writer = new CaptureWriter(config, store, logger);
  const recorder = new Recorder(config, writer, logger);
  if (isTestRunnerProcess()) recorder.ranTests = true;

  // Undone last: every patch of someone else's code, from the one ledger (see patches.ts).
  const cleanups: Array<() => void> = [undoPatches];
  // Context propagation is needed for units to see their calls. An app's own setup (before or after this)
  // keeps its context manager: Probe registers one only when there is none, and steps aside for a later one.
  // Registered through the app's copy of the API, so the registry takes the app's version (see appApi.ts).
  if (!hasContextManager()) {
    const { context } = appApi(config.root);
    const manager = new AsyncLocalStorageContextManager().enable();
    if (context.setGlobalContextManager(manager)) yieldContextManagerTo(manager, context);
  }
  const processor = new ProbeSpanProcessor(recorder, logger);
  const provider = new BasicTracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [processor] });
  const ownTracer = provider.getTracer('probe');
  const lens: JoinLens = {};
  const joiner = new Joiner(provider, processor, lens, logger);
  cleanups.push(() => joiner.stop());

  if (config.http) {
    const maxBody = config.http.max_body_bytes;
    const undiciLens = new UndiciLens(recorder, maxBody, logger);
    const httpLens = new HttpLens(recorder, maxBody, logger);
    lens.http = httpLens.requestHook as JoinLens['http'];
    lens.undici = undiciLens.requestHook as JoinLens['undici'];
    lens.httpResponse = httpLens.responseHook as JoinLens['httpResponse'];
    installSocketWatch();
    // An app setup that ran first has patched node:http when it is loaded: load it now, before deciding.
    for (const name of ['http', 'https', 'node:http', 'node:https']) require(name);
    const appHttp = appInstrumentsHttp();
    // With an app setup present, the app's instrumentations make the client spans and headers (see Joiner).
    const httpHooks = { requestHook: joiner.once(httpLens.requestHook as never) as never, responseHook: httpLens.responseHook as never };
    // node:test files are ESM often: their `import 'node:test'` goes through the loader only if it is listed.
    if (nodeTestMayRun()) alsoHookEsm('node:test');
    const instrumentations: Instrumentation[] = [
      new NodeTestInstrumentation(logger),
      new UndiciInstrumentation({ requestHook: joiner.once(undiciLens.requestHook as never) as never, ignoreRequestHook: () => joiner.appPresent }),
      new UndiciFetchInstrumentation(recorder, maxBody, logger),
      new LibraryEntryInstrumentation(logger),
      // undici 7's interceptors: cache hits as rows, retries with the app's context and line.
      new UndiciInterceptorInstrumentation(recorder, maxBody, logger),
    ];
    let http: HttpInstrumentation | undefined;
    if (!appHttp) {
      http = new HttpInstrumentation({ ...httpHooks, ignoreOutgoingRequestHook: () => joiner.appPresent, enabled: false });
      neverUnwrapOthers(http);
      joiner.stepAsideForAppServerSpans(http);
      instrumentations.unshift(http);
    }
    cleanups.push(registerInstrumentations({ tracerProvider: provider, instrumentations }));
    if (http) adoptAppHttpInstrumentation(HttpInstrumentation, http, httpHooks, logger);
    undiciLens.enable();
    cleanups.push(() => undiciLens.disable());
    cleanups.push(wrapFetch(recorder, maxBody, logger));
    // instrumentation-http patches on require: load the modules again now so ESM apps (which import them
    // later through the loader) get the patched exports, then refresh ESM named exports.
    for (const name of ['http', 'https', 'node:http', 'node:https']) require(name);
    cleanups.push(wrapHttpEntries([require('node:http'), require('node:https')], joiner.clientRequest));
    syncBuiltinESMExports();
  }
  // Web frameworks' route templates (Express, Fastify, Koa, Hono; NestJS through its adapter).
  cleanups.push(watchRoutes(recorder, provider, subscribe, logger));
  // Queue consumers and scheduled tasks (BullMQ, bee-queue, node-cron, croner) as job captures.
  cleanups.push(registerInstrumentations({ tracerProvider: provider, instrumentations: [new JobInstrumentation(logger)] }));
  cleanups.push(
    subscribe('http.server.request.start', (message) => {
      const request = (message as { request?: object } | undefined)?.request;
      if (request) recorder.noteIncoming(request);
    }),
  );
  // Node publishes every ChildProcess it creates (spawn, exec, execFile, fork) on 'child_process'
  // (nodejs/node#44045): a process that started one and made no call is a launcher, not a command to keep.
  cleanups.push(
    subscribe('child_process', () => {
      recorder.startedChild = true;
    }),
  );
  // A Worker made by the app carries which capture made it, so the thread's captures link to it (runtime/threads).
  const threads = new ThreadFlusher();
  cleanups.push(
    linkNewThreads(() => {
      const unit = recorder.activeUnit();
      return { id: unit.id, name: recorder.processUnit.name };
    }, threads),
  );
  // Joins an app provider registered already (its setup ran first, or start() runs after its SDK) or later.
  watchTracerProvider(joiner.onProvider);
  cleanups.push(installExitHooks(recorder, writer, threads));

  let stopped = false;
  const runtime: ProbeRuntime = {
    recorder,
    get tracer() {
      return joiner.tracer(ownTracer);
    },
    async shutdown() {
      if (stopped) return;
      stopped = true;
      recorder.closeAll(Number(process.exitCode ?? 0), 'exit');
      for (const cleanup of cleanups.reverse()) {
        try {
          cleanup();
        } catch {
          // best effort
        }
      }
      await writer.shutdown();
      await store.close?.();
      await provider.shutdown();
      setRuntime(undefined);
    },
  };
  setRuntime(runtime);
  return runtime;
}
