import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { InstrumentationBase, InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import { alsoHookEsm } from '../lens/esmHook';
import type { Logger } from '../util/logger';
import { patchMethod, recordPatch } from '../util/patches';
import type { TestRunnerSource } from './TestRunnerSource';
import { recordVitestRunner } from './vitestTests';
import { MAX_CODE_BYTES, readSafeText } from '../util/safeRead';
import { readManifest } from '../util/manifest';

/** The entry scripts of Vitest's own processes: the runner itself and its pools' workers before a file runs. */
const RUNNER_ENTRIES = [
  /[\\/]vitest[\\/]vitest\.mjs$/,
  /[\\/]\.bin[\\/]vitest$/,
  /[\\/]tinypool[\\/]dist[\\/]entry[\\/]/,
  /[\\/]vitest[\\/]dist[\\/]workers[\\/]/,
];

/** The Vitest versions whose pool workers Probe adds its setup file to (the worker entry is found in dist/worker.js). */
const WORKER_VERSIONS = ['>=3.0.0'];
const WORKER_SOURCE = 'https://github.com/vitest-dev/vitest/blob/v4.1.12/packages/vitest/src/runtime/workers/init.ts';
const WHY_WORKER = `Vitest evaluates test files through its own module runner (in a vm context for the vm pools), out of reach of require and import hooks; the pool worker receives the config the tests receive (TestProject.serializedConfig) before any test file runs, through the function \`vitest/worker\` exports (Vitest 3: run(ctx); Vitest 4 and later: init(worker), whose runTests gets the worker state), and a setup file listed there runs in the tests' own realm, for every pool (${WORKER_SOURCE})`;

/**
 * Where the `probe/vitest` setup file finds Probe's hooks from any realm (vm contexts share `process`), and the
 * file of Vitest's runner class (the app's, which Probe's package cannot resolve from its own folder).
 */
const BRIDGE = Symbol.for('probe.vitest.runner');

export interface VitestBridge {
  /**
   * The file URL of the app's `vitest` (the package's import entry), the one running this worker: the setup file
   * imports it by URL, since a bare `vitest` is resolved from the setup file's folder, and Probe installed outside
   * the project (its own folder, global, linked) finds none there.
   */
  vitest: string;
  /** The file URL of `vitest/runners` (`dist/runners.js`, beside the worker entry). */
  runners: string;
  record: typeof recordVitestRunner;
  /** Says once (and under PROBE_DEBUG each time) why the setup file records no test. */
  warn(error: unknown): void;
}
/** Probe's setup file (`probe/vitest`), beside this file's folder in the package. */
const SETUP_FILE = path.join(__dirname, '..', 'vitest.mjs');

const isVitestProcess = () => RUNNER_ENTRIES.some((entry) => entry.test(process.argv[1] ?? ''));

/**
 * A process or thread Vitest may run tests in: one of its own, or a worker thread made by one (a thread's
 * script is not known when the preload runs; Vitest marks its environment, which threads copy, with `VITEST`).
 */
const mayRunVitestTests = () => isVitestProcess() || (!isMainThread && process.env.VITEST === 'true');

/**
 * Vitest: each test is a capture of type `test`, with no configuration. The function the pool worker's entry
 * gets its config through (see workerEntry) is hooked where it loads (the ESM loader, in worker threads too) to
 * list `probe/vitest` in the worker's setup files; that setup file hooks Vitest's runner class in the realm the
 * tests run in (see vitestTests). An app that lists `probe/vitest` itself gets it once.
 */
export const vitestRunner: TestRunnerSource = {
  name: 'vitest',
  isRunnerProcess: isVitestProcess,
  units: ({ config, logger }) => {
    if (!config.http || !mayRunVitestTests()) return null;
    const entry = workerEntry();
    if (!entry || !existsSync(SETUP_FILE)) return null;
    alsoHookEsm(entry.url, { imported: true, inThreads: true });
    hookedEntry = entry;
    const bridge: VitestBridge = {
      vitest: entry.index,
      runners: new URL('runners.js', entry.worker).href,
      record: recordVitestRunner,
      warn: (error) => logger.warnOnce('vitest-setup', 'could not record Vitest tests: the setup file could not load vitest', error),
    };
    return { name: 'vitest', instrumentations: [new VitestWorkerInstrumentation(bridge, logger)], enable: () => () => {} };
  },
};

/**
 * Where the app's pool workers receive their config: the module `vitest/worker` (dist/worker.js, beside the pool
 * entries) defines or re-exports it from. Vitest 3 defines `run(ctx)` and `collect(ctx)` there, `ctx.config`
 * being the config; Vitest 4 and 5 re-export `init(worker)` from a chunk that the pool entries import directly,
 * and `worker.runTests(state)` / `worker.collectTests(state)` get the worker state, `state.config` the config.
 * Found by what the module exports, not by version.
 */
interface WorkerEntry {
  /** dist/worker.js's file URL (the real path, as the ESM loader names it). */
  worker: string;
  /** The file URL of the package's import entry (`vitest`: dist/index.js). */
  index: string;
  /** The file URL of the module that defines the function, and its path in the package. */
  url: string;
  file: string;
  /** The names it exports the functions under, and how they receive the config. */
  exports: string[];
  kind: 'run' | 'init';
}

function workerEntry(): WorkerEntry | null {
  const from = [process.cwd()];
  if (process.argv[1]) from.unshift(path.dirname(path.resolve(process.argv[1])));
  try {
    const root = path.dirname(realpathSync(require.resolve('vitest/package.json', { paths: from })));
    const workerFile = path.join(root, 'dist', 'worker.js');
    const worker = pathToFileURL(workerFile).href;
    const index = new URL(importEntry(root), pathToFileURL(path.join(root, 'package.json'))).href;
    const source = readSafeText(workerFile, { maxBytes: MAX_CODE_BYTES, follow: true });
    const init = reExport(source, 'init');
    if (init) {
      const file = path.posix.join('dist', init.from);
      return { worker, index, url: new URL(init.from, worker).href, file, exports: [init.local], kind: 'init' };
    }
    if (/\bexport\s*\{[^}]*\brun\b[^}]*\}\s*;/.test(source))
      return { worker, index, url: worker, file: 'dist/worker.js', exports: ['run', 'collect'], kind: 'run' };
    return null;
  } catch {
    return null;
  }
}

/** The package's `import` entry for `.` as its manifest declares it (`./dist/index.js` in Vitest 3 to 5). */
function importEntry(root: string): string {
  let target: unknown = (readManifest(root) as { exports?: Record<string, unknown> } | null)?.exports?.['.'];
  // Conditions nest (`import: { types, default }`): the ESM loader's choice, `import` then `default`.
  while (target && typeof target === 'object') {
    const conditions = target as Record<string, unknown>;
    target = conditions.import ?? conditions.node ?? conditions.default;
  }
  return typeof target === 'string' && target.startsWith('./') ? target : './dist/index.js';
}

/** The local name and relative module of `export { x as name } from './chunk.js'` in a bundled module, or null. */
function reExport(source: string, name: string): { local: string; from: string } | null {
  for (const match of source.matchAll(/export\s*\{([^}]*)\}\s*from\s*['"](\.\/[^'"]+)['"]/g)) {
    for (const part of match[1]!.split(',')) {
      const [local, exported = local] = part.trim().split(/\s+as\s+/);
      if (exported === name && local) return { local, from: match[2]! };
    }
  }
  return null;
}

interface WorkerConfig {
  config?: { setupFiles?: unknown };
}
type WorkerFunction = (this: unknown, ...args: unknown[]) => unknown;
interface PoolWorker {
  runTests?: WorkerFunction;
  collectTests?: WorkerFunction;
}

/** The worker entry of this process's Vitest, for VitestWorkerInstrumentation's init (which runs in its constructor). */
let hookedEntry: WorkerEntry | null = null;

class VitestWorkerInstrumentation extends InstrumentationBase {
  constructor(
    private readonly bridge: VitestBridge,
    private readonly probeLogger: Logger,
  ) {
    super('probe-vitest', '0.1.0', {});
  }

  protected init() {
    const entry = hookedEntry;
    if (!entry) return [];
    return new InstrumentationNodeModuleDefinition('vitest', WORKER_VERSIONS, undefined, undefined, [
      new InstrumentationNodeModuleFile(
        `vitest/${entry.file}`,
        WORKER_VERSIONS,
        (exports: Record<string, unknown>) => {
          try {
            if (exports) hookWorker(exports, entry, this.bridge);
          } catch (error) {
            this.probeLogger.warnOnce('vitest', 'could not record Vitest tests', error);
          }
          return exports;
        },
        (exports: unknown) => exports,
      ),
    ]);
  }
}

function hookWorker(exports: Record<string, unknown>, entry: WorkerEntry, bridge: VitestBridge): void {
  const holder = process as unknown as Record<symbol, unknown>;
  if (!holder[BRIDGE]) {
    Object.defineProperty(holder, BRIDGE, { value: bridge, configurable: true, writable: true, enumerable: false });
    recordPatch('process[probe.vitest.runner]', WHY_WORKER, () => {
      if (holder[BRIDGE] === bridge) delete holder[BRIDGE];
    });
  }
  for (const name of entry.exports) {
    if (typeof exports[name] !== 'function') continue;
    patchMethod(exports as Record<string, WorkerFunction>, name, `vitest ${entry.file} ${entry.kind === 'init' ? 'init' : name}`, WHY_WORKER, (original) =>
      entry.kind === 'run'
        ? function (this: unknown, ...args: unknown[]) {
            addSetupFile(args[0] as WorkerConfig);
            return original!.apply(this, args);
          }
        : function (this: unknown, ...args: unknown[]) {
            hookPoolWorker(args[0] as PoolWorker);
            return original!.apply(this, args);
          },
    );
  }
}

/** A Vitest 4+ pool worker (the object its entry passes to init): its state's config gets the setup file. */
function hookPoolWorker(worker: PoolWorker | undefined): void {
  if (!worker || typeof worker !== 'object') return;
  for (const method of ['runTests', 'collectTests'] as const) {
    patchMethod(
      worker,
      method,
      `vitest pool worker ${method}`,
      WHY_WORKER,
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          addSetupFile(args[0] as WorkerConfig);
          return original!.apply(this, args);
        },
      { weak: true },
    );
  }
}

/** Probe's setup file first in the worker's list, unless the app lists it (the same file) itself. */
function addSetupFile(ctx: WorkerConfig | undefined): void {
  try {
    const files = ctx?.config?.setupFiles;
    if (!Array.isArray(files)) return;
    const setup = realpathSync(SETUP_FILE);
    if (files.some((file) => typeof file === 'string' && samePath(file, setup))) return;
    files.unshift(setup);
  } catch {
    // never in the tests' way
  }
}

function samePath(file: string, real: string): boolean {
  try {
    return realpathSync(file) === real;
  } catch {
    return false;
  }
}
