import diagnostics from 'node:diagnostics_channel';
import { keepChannel } from './util/keptChannels';
import { syncBuiltinESMExports } from 'node:module';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AlwaysOnSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import type { ProbeConfig } from './config/types';
import type { ProbeRuntime } from './runtime/state';
import type { Lens } from './lens/Lens';
import type { Source, SourceFactory, SourceHost } from './runtime/UnitSource';
import { openStore } from './store/openStore';
import { createLogger } from './util/logger';
import { CaptureWriter } from './runtime/CaptureWriter';
import { Recorder } from './runtime/Recorder';
import { ProbeSpanProcessor } from './runtime/ProbeSpanProcessor';
import { currentRuntime, setRuntime } from './runtime/state';
import { undoPatches } from './util/patches';
import { installExitHooks } from './runtime/exit';
import { keepRequireCacheSemantics } from './runtime/requireCache';
import { launcherWatch } from './runtime/launcher';
import { ThreadFlusher } from './runtime/threads';
import { threadUnits } from './runtime/threadUnits';
import { Joiner } from './runtime/join/Joiner';
import { hasContextManager, watchTracerProvider } from './runtime/join/globals';
import { yieldContextManagerTo } from './runtime/join/context';
import { appApi } from './runtime/appApi';
import { IncomingRequests } from './lens/IncomingRequests';
import { httpLens } from './lens/HttpLens';
import { undiciLens } from './lens/UndiciLens';
import { fetchLens } from './lens/fetchLens';
import { http2Lens } from './lens/Http2Lens';
import { libraryEntriesLens } from './lens/libraryEntries';
import { learnedHopsLens } from './lens/learnedHops';
import { undiciInterceptorsLens } from './lens/undiciInterceptors';
import { routeTemplates } from './lens/routes/watchRoutes';
import { TEST_RUNNERS, isTestRunnerProcess } from './testrunner/runners';
import { queueJobUnits } from './lens/jobs/JobInstrumentation';
import { watchCompiledCode } from './origin/compiledCode';

/** A channel subscription that never throws into the publisher; returns its undo. */
function subscribe(name: string, handler: (message: unknown) => void): () => void {
  const safe = (message: unknown) => {
    try {
      handler(message);
    } catch {
      // recording never disturbs the app
    }
  };
  keepChannel(name);
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
  const undoAll = () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        cleanup();
      } catch {
        // best effort
      }
    }
  };
  // Before the first instrumentation installs the require hook: a module deleted from require.cache loads again.
  keepRequireCacheSemantics(logger);
  const processor = new ProbeSpanProcessor(recorder, logger);
  const provider = new BasicTracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [processor] });
  try {
    // Context propagation is needed for units to see their calls. An app's own setup (before or after this)
    // keeps its context manager: Probe registers one only when there is none, and steps aside for a later one.
    // Registered through the app's copy of the API, so the registry takes the app's version (see appApi.ts).
    if (!hasContextManager()) {
      const { context } = appApi(config.root);
      const manager = new AsyncLocalStorageContextManager().enable();
      if (context.setGlobalContextManager(manager)) yieldContextManagerTo(manager, context);
    }
    const joiner = new Joiner(provider, processor, logger);
    cleanups.push(() => joiner.stop());
    const host: SourceHost = { config, recorder, logger, provider, joiner, subscribe };
    const requests = new IncomingRequests(host);
    // Worker threads Probe runs in, asked at exit to store what they hold.
    const threads = new ThreadFlusher();
    // Every source of units and of calls, made in this order, which matters twice:
    // - the node:http lens loads node:http(s) before any instrumentation exists: the first instrumentation made
    //   installs require-in-the-middle, which hooks a module only the first time it is required through it, so
    //   a require in between would leave node:http unpatched;
    // - a constructor may hook the ESM loader, which takes only the modules listed when it starts: the test
    //   runners (node:test) list their modules before the fetch lens's UndiciFetchInstrumentation starts it (with
    //   undici and the library entries' modules).
    const factories: Array<SourceFactory<Source> | SourceFactory<Lens>> = [
      httpLens(requests),
      ...TEST_RUNNERS.map((runner) => runner.units),
      () => requests,
      learnedHopsLens,
      undiciLens,
      fetchLens,
      libraryEntriesLens,
      undiciInterceptorsLens,
      http2Lens,
      routeTemplates(requests),
      queueJobUnits,
      launcherWatch,
      threadUnits(threads),
    ];
    const sources = factories.map((make) => make(host)).filter((source): source is Source => source !== null);
    for (const source of sources) {
      if (!isLens(source)) continue;
      recorder.ownsCallSpans(source.scopes);
      joiner.join(source.joins);
    }
    cleanups.push(registerInstrumentations({ tracerProvider: provider, instrumentations: sources.flatMap((source) => [...source.instrumentations]) }));
    for (const source of sources) cleanups.push(source.enable());
    // The lenses patched node:http(s) and node:http2 exports: ESM named imports made later see them.
    syncBuiltinESMExports();
    // The source maps of code transformers and test runners compile under a file's name (origins at the lines as written).
    if (config.origin.enabled) watchCompiledCode();
    // Joins an app provider registered already (its setup ran first, or start() runs after its SDK) or later.
    watchTracerProvider(joiner.onProvider);
    cleanups.push(installExitHooks(recorder, writer, threads));

    const ownTracer = provider.getTracer('probe');
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
        undoAll();
        await writer.shutdown();
        await store.close?.();
        await provider.shutdown();
        setRuntime(undefined);
      },
    };
    setRuntime(runtime);
    return runtime;
  } catch (error) {
    // Half-started: what was patched, subscribed and registered is undone, and the error goes to the caller
    // (the preload prints it) with the app left as it was.
    undoAll();
    void writer
      .shutdown()
      .then(() => store.close?.())
      .catch(() => {});
    void provider.shutdown().catch(() => {});
    throw error;
  }
}

function isLens(source: Source): source is Lens {
  return Array.isArray((source as Lens).scopes) && Array.isArray((source as Lens).joins);
}
