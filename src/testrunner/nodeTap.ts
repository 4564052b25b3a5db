import type { AsyncResource } from 'node:async_hooks';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../util/logger';
import { patchMethod, recordPatch } from '../util/patches';
import type { TestRunnerSource } from './TestRunnerSource';
import { TestCase } from './TestCase';

/** What Probe reads of a node-tap test (its TestBase, tap 18 to 21): its name, parent, hook, verdict and events. */
interface TapTest {
  name?: unknown;
  parent?: TapTest | null;
  /** The AsyncResource node-tap runs the test's function in (`this.hook.runInAsyncScope(cb, …)`). */
  hook?: AsyncResource;
  options?: { skip?: unknown; todo?: unknown };
  passing?: () => boolean;
  runMain?: (this: TapTest, ...args: unknown[]) => unknown;
  /** A test's (TestBase's) own: makes a subtest. */
  sub?: unknown;
  on?: (event: string, listener: (child: TapTest) => void) => unknown;
}

/**
 * Where node-tap registers the process's root test (`@tapjs/core` tap.ts: `g[Symbol.for('TAP private constructor')]
 * = this` as the root TAP is made), so that every copy of tap a process loads (CommonJS, ESM, through a TypeScript
 * loader) shares one root.
 */
const ROOT = Symbol.for('TAP private constructor');
const VERSIONS = 'tap 18 to 21';
const WHY_ROOT = `node-tap (${VERSIONS}) registers each process's root test on globalThis under Symbol.for('TAP private constructor') as it makes it, before any test of the file is declared, whichever loader brought it (an import through tsx is out of reach of import hooks): the slot is watched, and hands Probe the root (https://github.com/tapjs/tapjs/blob/main/src/core/src/tap.ts)`;
const WHY_RUN_MAIN =
  "node-tap runs a test's afterEach hooks in the callback its runMain gets, which it may call from the end of the test's last subtest, in that subtest's async context: the callback runs in the test's own (https://github.com/tapjs/tapjs/blob/main/src/after-each/src/index.ts)";

/** The case of each node-tap test running, by its TestBase and by its AsyncResource. */
const cases = new WeakMap<object, TestCase>();
const watched = new WeakSet<object>();

/**
 * node-tap: each test (`t.test()`, subtests included) is a capture of type `test`, with no configuration. tap runs
 * each test file in a process of its own (TypeScript files too, through its loader), where the file's root test is
 * made as the file loads `tap`; Probe follows that root's own lifecycle events (see watch). Only where the project
 * has tap installed.
 */
export const nodeTapRunner: TestRunnerSource = {
  name: 'node-tap',
  isRunnerProcess: () => false,
  units: ({ config, logger }) => {
    if (!config.http || !tapInstalled()) return null;
    return { name: 'node-tap', instrumentations: [], enable: () => watchRoot(logger) };
  },
};

function tapInstalled(): boolean {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'node_modules', 'tap', 'package.json'))) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/** An accessor in the root's slot: the root tap sets there is watched as it is set, and kept as it would be. */
function watchRoot(logger: Logger): () => void {
  const holder = globalThis as unknown as Record<symbol, unknown>;
  if (Object.getOwnPropertyDescriptor(holder, ROOT)) return () => {};
  let root: unknown;
  const descriptor: PropertyDescriptor = {
    configurable: true,
    enumerable: false,
    get: () => root,
    set: (value: unknown) => {
      root = value;
      try {
        if (value && typeof value === 'object' && hookRunMain(value as TapTest)) watch(value as TapTest);
      } catch (error) {
        logger.warnOnce('node-tap', 'could not record node-tap tests', error);
      }
    },
  };
  Object.defineProperty(holder, ROOT, descriptor);
  const undo = () => {
    if (Object.getOwnPropertyDescriptor(holder, ROOT)?.set !== descriptor.set) return;
    // The value tap set stays, as a plain property.
    Object.defineProperty(holder, ROOT, { value: root, writable: true, configurable: true, enumerable: true });
    if (root === undefined) delete holder[ROOT];
  };
  recordPatch(`globalThis[Symbol.for('TAP private constructor')]`, WHY_ROOT, undo);
  return undo;
}

/**
 * Follows a test's subtests through node-tap's own events
 * (https://github.com/tapjs/tapjs/blob/main/src/core/src/test-base.ts, `#process`, `#onIndentedEnd`): `subtestStart` comes right before the
 * parent calls the subtest's `runMain` (its beforeEach hooks, then its function), `subtestEnd` once it ended and
 * its result is final (the one the parent prints, `passing()`). The subtest's `runMain` (its own, or the one
 * the beforeEach plugin set on it) runs in the test's context, and so does the AsyncResource its function runs in
 * (made where the test was declared: in its parent's context).
 */
function watch(test: TapTest): void {
  if (!test || typeof test.on !== 'function' || watched.has(test)) return;
  watched.add(test);
  test.on('subtestAdd', (child) => {
    try {
      watch(child);
    } catch {
      // never in the tests' way
    }
  });
  test.on('subtestStart', (child) => {
    try {
      begin(child);
    } catch {
      // never in the tests' way
    }
  });
  // A subtest that ended without its runMain's callback (node-tap aborted it): ended with the parent's verdict.
  test.on('subtestEnd', (child) => {
    try {
      end(child);
    } catch {
      // never in the tests' way
    }
  });
}

function begin(test: TapTest): void {
  // A subtest that is a test file run by `tap` (a process, a worker: no `sub`, it declares no tests) is recorded
  // in its own process.
  if (!test || cases.has(test) || typeof test.runMain !== 'function' || typeof test.sub !== 'function') return;
  // tap runs each test file as the script of a process of its own.
  const open = TestCase.begin(namePath(test), process.argv[1] ?? null);
  if (!open) return;
  cases.set(test, open);
  if (test.hook) {
    // Its AsyncResource, one per test: the way to the case from the test as its plugins hold it (a proxy).
    cases.set(test.hook, open);
    open.bind(test.hook);
  }
  const runMain = test.runMain;
  // An own property, as node-tap's hook plugins set one: the parent calls it right after this event, with the
  // callback it calls once the test and its afterEach hooks are done, when the result is final.
  test.runMain = function (this: TapTest, done: unknown, ...rest: unknown[]) {
    const ended =
      typeof done === 'function'
        ? function (this: unknown, ...args: unknown[]) {
            end(test);
            return (done as (...a: unknown[]) => unknown).apply(this, args);
          }
        : done;
    return open.run(() => runMain.call(this, ended, ...rest));
  };
}

/**
 * node-tap's runMain (on the prototype of every test, the file's root one included) gets the callback it calls once
 * the test's function is done: the test's afterEach hooks run there, and they run in the test's context (node-tap
 * may call it from a subtest's end). Patched once, when `tap` loads, before any test is made: node-tap's hook plugins
 * read a test's runMain as it is made. False when the shape is not node-tap's as Probe knows it.
 */
function hookRunMain(root: TapTest): boolean {
  let proto = Object.getPrototypeOf(root) as object | null;
  for (let depth = 0; proto && depth < 20 && !Object.prototype.hasOwnProperty.call(proto, 'runMain'); depth++)
    proto = Object.getPrototypeOf(proto) as object | null;
  if (!proto || typeof (proto as TapTest).runMain !== 'function') return false;
  if (hookedProtos.has(proto)) return true;
  hookedProtos.add(proto);
  patchMethod(
    proto as Required<Pick<TapTest, 'runMain'>>,
    'runMain',
    'node-tap Base.prototype.runMain',
    WHY_RUN_MAIN,
    (original) =>
      function (this: TapTest, done: unknown, ...rest: unknown[]) {
        const open = this?.hook ? cases.get(this.hook) : undefined;
        const inTest =
          open && typeof done === 'function'
            ? function (this: unknown, ...args: unknown[]) {
                return open.run(() => (done as (...a: unknown[]) => unknown).apply(this, args));
              }
            : done;
        return original.call(this, inTest, ...rest);
      },
  );
  return true;
}
const hookedProtos = new WeakSet<object>();

function end(test: TapTest): void {
  const open = cases.get(test);
  if (!open || open.ended) return;
  const passed = typeof test.passing === 'function' ? test.passing() : true;
  open.end(!passed ? false : test.options?.skip ? 'skipped' : true);
}

/** The test's name and its parents' up to the file's root test (left out), as node-tap reports them. */
function namePath(test: TapTest): string[] {
  const names: string[] = [];
  for (let at: TapTest | null | undefined = test; at?.parent && names.length < 1000; at = at.parent) names.unshift(String(at.name ?? 'test'));
  return names;
}
