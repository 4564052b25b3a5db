import { AsyncResource, executionAsyncResource } from 'node:async_hooks';
import { recordPatch } from '../util/patches';
import type { TestCase } from './TestCase';

/** What Probe reads of node:test's Test and TestHook (internal classes, both AsyncResources). */
interface NodeTestResource extends AsyncResource {
  signal?: unknown;
  getRunArgs?: () => { ctx?: { signal?: unknown } } | undefined;
}

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
 * get a `runInAsyncScope` accessor that binds the resource to the test `caseOf` finds for its signal (a test's
 * own `signal`; a hook's, from the test context it runs for) and answers the method as it was. False when the
 * shape is not node:test's as Probe knows it: then nothing is changed.
 */
export function bindNodeTestContexts(caseOf: (signal: unknown) => TestCase | undefined): boolean {
  const hook = executionAsyncResource() as NodeTestResource;
  if (!(hook instanceof AsyncResource) || typeof hook.getRunArgs !== 'function') return false;
  const hookProto = Object.getPrototypeOf(hook) as object;
  const testProto = Object.getPrototypeOf(hookProto) as object | null;
  if (!testProto || !['createSubtest', 'runHook'].every((name) => typeof (testProto as Record<string, unknown>)[name] === 'function')) return false;
  if ([hookProto, testProto].some((proto) => Object.prototype.hasOwnProperty.call(proto, KEY))) return false;

  // A hook runs for the test whose context it is handed (`before` of a suite: its suite's, no test's).
  define(hookProto, 'node:test TestHook.prototype.runInAsyncScope', (resource) => caseOf(resource.getRunArgs?.()?.ctx?.signal));
  define(testProto, 'node:test Test.prototype.runInAsyncScope', (resource) => caseOf(resource.signal));
  return true;
}

function define(proto: object, target: string, caseOf: (resource: NodeTestResource) => TestCase | undefined): void {
  const inherited = Object.getPrototypeOf(proto) as object;
  const descriptor: PropertyDescriptor = {
    configurable: true,
    get(this: NodeTestResource) {
      try {
        caseOf(this)?.bind(this);
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
