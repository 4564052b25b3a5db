import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { InstrumentationBase, InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import { alsoHookEsm } from '../lens/esmHook';
import type { Logger } from '../util/logger';
import { patchMethod, recordPatch } from '../util/patches';
import type { TestRunnerSource } from './TestRunnerSource';
import { recordVitestRunner } from './vitestTests';

/** The entry scripts of Vitest's own processes: the runner itself and its pools' workers before a file runs. */
const RUNNER_ENTRIES = [
  /[\\/]vitest[\\/]vitest\.mjs$/,
  /[\\/]\.bin[\\/]vitest$/,
  /[\\/]tinypool[\\/]dist[\\/]entry[\\/]/,
  /[\\/]vitest[\\/]dist[\\/]workers[\\/]/,
];

/** The Vitest versions whose pool workers Probe adds its setup file to (their worker entry is `dist/worker.js`). */
const WORKER_VERSIONS = ['>=3.0.0 <4'];
const WORKER_SOURCE = 'https://github.com/vitest-dev/vitest/blob/v3.2.4/packages/vitest/src/runtime/worker.ts';
const WHY_WORKER = `Vitest evaluates test files through its own module runner (in a vm context for the vm pools), out of reach of require and import hooks; the pool worker's entry receives the resolved config (run(ctx)) before any test file runs, and a setup file listed there runs in the tests' own realm, for every pool (${WORKER_SOURCE})`;

/**
 * Where the `probe/vitest` setup file finds Probe's hooks from any realm (vm contexts share `process`), and the
 * file of Vitest's runner class (the app's, which Probe's package cannot resolve from its own folder).
 */
const BRIDGE = Symbol.for('probe.vitest.runner');

export interface VitestBridge {
  /** The file URL of `vitest/runners` (`dist/runners.js`, beside the worker entry). */
  runners: string;
  record: typeof recordVitestRunner;
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
 * Vitest: each test is a capture of type `test`, with no configuration. Vitest 3's pool worker entry is hooked
 * where it loads (the ESM loader, in worker threads too) to list `probe/vitest` in the worker's setup files;
 * that setup file hooks Vitest's runner class in the realm the tests run in (see vitestTests). An app that lists
 * `probe/vitest` itself gets it once.
 */
export const vitestRunner: TestRunnerSource = {
  name: 'vitest',
  isRunnerProcess: isVitestProcess,
  units: ({ config, logger }) => {
    if (!config.http || !mayRunVitestTests()) return null;
    const worker = workerEntryUrl();
    if (!worker || !existsSync(SETUP_FILE)) return null;
    alsoHookEsm(worker, { imported: true, inThreads: true });
    const bridge: VitestBridge = { runners: new URL('runners.js', worker).href, record: recordVitestRunner };
    return { name: 'vitest', instrumentations: [new VitestWorkerInstrumentation(bridge, logger)], enable: () => () => {} };
  },
};

/** The file URL of the app's Vitest 3 worker entry (as the ESM loader names it: the real path), or null. */
function workerEntryUrl(): string | null {
  const from = [process.cwd()];
  if (process.argv[1]) from.unshift(path.dirname(path.resolve(process.argv[1])));
  try {
    const manifest = require.resolve('vitest/package.json', { paths: from });
    const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version ?? '';
    if (!/^3\./.test(version)) return null;
    return pathToFileURL(realpathSync(path.join(path.dirname(manifest), 'dist', 'worker.js'))).href;
  } catch {
    return null;
  }
}

interface WorkerContext {
  config?: { setupFiles?: unknown };
}

class VitestWorkerInstrumentation extends InstrumentationBase {
  constructor(
    private readonly bridge: VitestBridge,
    private readonly probeLogger: Logger,
  ) {
    super('probe-vitest', '0.1.0', {});
  }

  protected init() {
    return new InstrumentationNodeModuleDefinition('vitest', WORKER_VERSIONS, undefined, undefined, [
      new InstrumentationNodeModuleFile(
        'vitest/dist/worker.js',
        WORKER_VERSIONS,
        (exports: { run?: (ctx: WorkerContext) => unknown }) => {
          try {
            if (exports) hookWorker(exports, this.bridge);
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

function hookWorker(exports: { run?: (ctx: WorkerContext) => unknown }, bridge: VitestBridge): void {
  const holder = process as unknown as Record<symbol, unknown>;
  if (!holder[BRIDGE]) {
    Object.defineProperty(holder, BRIDGE, { value: bridge, configurable: true, writable: true, enumerable: false });
    recordPatch('process[probe.vitest.runner]', WHY_WORKER, () => {
      if (holder[BRIDGE] === bridge) delete holder[BRIDGE];
    });
  }
  patchMethod(
    exports,
    'run',
    'vitest dist/worker.js run',
    WHY_WORKER,
    (original) =>
      function run(this: unknown, ctx: WorkerContext) {
        try {
          addSetupFile(ctx);
        } catch {
          // never in the tests' way
        }
        return original!.call(this, ctx);
      },
  );
}

/** Probe's setup file first in the worker's list, unless the app lists it (the same file) itself. */
function addSetupFile(ctx: WorkerContext): void {
  const files = ctx?.config?.setupFiles;
  if (!Array.isArray(files)) return;
  const setup = realpathSync(SETUP_FILE);
  if (files.some((file) => typeof file === 'string' && samePath(file, setup))) return;
  files.unshift(setup);
}

function samePath(file: string, real: string): boolean {
  try {
    return realpathSync(file) === real;
  } catch {
    return false;
  }
}
