import { AsyncResource, executionAsyncResource } from 'node:async_hooks';
import { recordPatch } from '../util/patches';
import { TestCase } from './TestCase';

/** What Probe reads of node:test's Test, Suite and TestHook (internal classes, all AsyncResources). */
interface NodeTestResource extends AsyncResource {
  signal?: unknown;
  /** A test's or suite's: the test or suite it was declared in. */
  parent?: NodeTestResource | null;
  /** A hook's: the test or suite it was registered on. */
  parentTest?: NodeTestResource | null;
  getRunArgs?: () => { ctx?: { signal?: unknown } } | undefined;
}

/** Deeper than any suite a person writes: a bound on the walk up, whatever the objects hold. */
const MAX_DEPTH = 1000;

const KEY = 'runInAsyncScope';

const WHY =
  "node:test calls a test's function and its hooks with `this.runInAsyncScope(fn, ctx, ...)` on the test's own " +
  'AsyncResource, made where the test was declared (https://github.com/nodejs/node/blob/v20.20.2/lib/internal/test_runner/test.js, ' +
  "Test.prototype.run; the same in v24): a context set around the call is replaced by the resource's own, and a wrapper " +
  "of the function would show in the test's stack traces. Reading the property is where the test is known and no frame is " +
  "on the stack: the resource is given the test's context there, and the method read is the one it had.";

/**
 * node:test's tests and hooks run in their test's context (see TestCase.bind). `hook` is the AsyncResource of a
 * node:test hook running now (Probe's own root `beforeEach`); from it come the TestHook and Test prototypes, which
 * get a `runInAsyncScope` accessor that binds the resource to the test it runs for and answers the method as it
 * was. A test's own case is found by its `signal` (`caseOf`); a hook runs for the test whose context it is handed
 * (`beforeEach`, `afterEach`), else for the test or suite it was registered on (`before`, `after`). A suite, or a
 * suite's hook, belongs to the test it is declared in, and to no test when it is in none: a nested suite's
 * `before` run while its concurrent siblings run keeps its calls in the process's capture. False when the shape
 * is not node:test's as Probe knows it: then nothing is changed.
 */
export function bindNodeTestContexts(caseOf: (signal: unknown) => TestCase | undefined): boolean {
  const hook = executionAsyncResource() as NodeTestResource;
  if (!(hook instanceof AsyncResource) || typeof hook.getRunArgs !== 'function') return false;
  const hookProto = Object.getPrototypeOf(hook) as object;
  const testProto = Object.getPrototypeOf(hookProto) as object | null;
  if (!testProto || !['createSubtest', 'runHook'].every((name) => typeof (testProto as Record<string, unknown>)[name] === 'function')) return false;
  if ([hookProto, testProto].some((proto) => Object.prototype.hasOwnProperty.call(proto, KEY))) return false;

  // Neither has a method of its own (checked above): both answer the one above Test's prototype (AsyncResource's).
  const above = Object.getPrototypeOf(testProto) as object;
  define(
    hookProto,
    above,
    'node:test TestHook.prototype.runInAsyncScope',
    (hook) => caseOf(hook.getRunArgs?.()?.ctx?.signal) ?? enclosing(hook.parentTest, caseOf),
  );
  define(testProto, above, 'node:test Test.prototype.runInAsyncScope', (test) => enclosing(test, caseOf));
  return true;
}

/** The case of `test` or of the nearest test it is declared in; null when it is in none. */
function enclosing(test: NodeTestResource | null | undefined, caseOf: (signal: unknown) => TestCase | undefined): TestCase | null {
  for (let depth = 0; test && depth < MAX_DEPTH; depth++, test = test.parent) {
    const found = caseOf(test.signal);
    if (found) return found;
  }
  return null;
}

function define(proto: object, inherited: object, target: string, caseOf: (resource: NodeTestResource) => TestCase | null): void {
  const descriptor: PropertyDescriptor = {
    configurable: true,
    get(this: NodeTestResource) {
      try {
        const test = caseOf(this);
        if (test) test.bind(this);
        else TestCase.unbind(this);
      } catch {
        // never in the tests' way: the test's code runs as it would
      }
      return Reflect.get(inherited, KEY, this) as unknown;
    },
    // Set on an instance (a mock, a subclass's own): an own property of that instance, as an assignment would be.
    set(this: object, value: unknown) {
      Object.defineProperty(this, KEY, { value, writable: true, configurable: true, enumerable: true });
    },
  };
  Object.defineProperty(proto, KEY, descriptor);
  recordPatch(target, WHY, () => {
    if (Object.getOwnPropertyDescriptor(proto, KEY)?.get === descriptor.get) delete (proto as Record<string, unknown>)[KEY];
  });
}
