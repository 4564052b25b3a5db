import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { context, ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { hookLoadedPackage, learnFromStack, learnedPackages } from '../../src/origin/hops/learnedEntries';
import { LEARNED_FILE, readLearned, rememberLearned } from '../../src/origin/hops/learnedFile';
import { setStackCapture } from '../../src/origin/origin';

/*
 * A learned package's hook is a guest in the library's code: reached again from inside Probe's own part of the hook
 * it calls straight through, and when Probe's part throws the call goes on as if unhooked. Either way the package
 * is unhooked and taken off the learned list, so the next run does not meet it again.
 */

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-learned-guard-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** A package of the app's node_modules (name, version 1.0.0, one file), required; its folder and exports. */
function installPackage(name: string, code: string): { folder: string; exports: Record<string, unknown> } {
  const folder = path.join(root, 'node_modules', name);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'index.js' }));
  fs.writeFileSync(path.join(folder, 'index.js'), code);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return { folder, exports: require(path.join(folder, 'index.js')) as Record<string, unknown> };
}

/** A call's stack with only that package's frame (the hop learnFromStack learns from). */
function learn(folder: string): void {
  learnFromStack([{ getFileName: () => path.join(folder, 'index.js'), isEval: () => false } as unknown as NodeJS.CallSite], root);
}

function listed(): string[] {
  return readLearned(root).map(({ name }) => name);
}

/** An async context manager of the app's own (the idea of Probe's, in no list of Probe's). */
const MANAGER = `class Manager {
  constructor(root) { this.current = root; }
  active() { return this.current; }
  with(ctx, fn, thisArg, ...args) { const before = this.current; this.current = ctx; try { return fn.call(thisArg, ...args); } finally { this.current = before; } }
  bind(ctx, target) { return target; }
  enable() { return this; }
  disable() { return this; }
}
module.exports = { Manager };
`;

test("a hooked method Probe's own context lookup reaches calls through; the package is unhooked and off the list", () => {
  setStackCapture(true);
  // An async context manager of the app's own (a copy of the idea, in no list of Probe's): every context lookup,
  // the hook's own included, runs its `active`.
  const { folder, exports } = installPackage('app-context', MANAGER);
  const Manager = exports.Manager as new (root: Context) => ContextManager;
  const active = Manager.prototype.active;
  context.setGlobalContextManager(new Manager(ROOT_CONTEXT));
  try {
    learn(folder);
    assert.deepEqual(listed(), ['app-context']);
    assert.notEqual(Manager.prototype.active, active, 'hooked');
    // The hook's lookup of the current entry calls `active` again: without the guard, until the stack runs out.
    const key = Symbol('k');
    assert.equal(
      context.with(ROOT_CONTEXT.setValue(key, 1), () => context.active().getValue(key)),
      1,
    );
    assert.equal(context.active(), ROOT_CONTEXT);
    assert.equal(Manager.prototype.active, active, 'unhooked');
    assert.ok(!learnedPackages().includes(folder));
    assert.deepEqual(listed(), []);
    // Not learned again in this run.
    learn(folder);
    assert.equal(Manager.prototype.active, active);
    assert.deepEqual(listed(), []);
  } finally {
    context.disable();
  }
});

test("a hook whose own part throws lets the call go on untouched, is undone and taken off the list; the library's own error is its own", () => {
  setStackCapture(true);
  const { folder, exports } = installPackage(
    'app-client',
    `class Client {
  get(a) { return a * 2; }
  fail() { throw new Error('the library failed'); }
}
module.exports = { Client };
`,
  );
  const Client = exports.Client as new () => { get(a: number): number; fail(): never };
  const get = Client.prototype.get;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  learn(folder);
  assert.notEqual(Client.prototype.get, get, 'hooked');
  const client = new Client();
  // A throw of the library's own passes through the hook unchanged and keeps the hook.
  assert.throws(() => client.fail(), { message: 'the library failed' });
  assert.ok(learnedPackages().includes(folder));
  assert.deepEqual(listed(), ['app-client']);
  context.disable();

  // An app's context manager that fails to run a callback in a context: Probe's part of the hook throws.
  class Failing implements ContextManager {
    active(): Context {
      return ROOT_CONTEXT;
    }
    with(): never {
      throw new Error('no context here');
    }
    bind<T>(_: Context, target: T): T {
      return target;
    }
    enable(): this {
      return this;
    }
    disable(): this {
      return this;
    }
  }
  context.setGlobalContextManager(new Failing());
  try {
    assert.equal(client.get(21), 42);
    assert.equal(Client.prototype.get, get, 'unhooked');
    assert.ok(!learnedPackages().includes(folder));
    assert.deepEqual(listed(), []);
    assert.ok(fs.lstatSync(path.join(root, '.probe', LEARNED_FILE)).isFile());
  } finally {
    context.disable();
  }
});

test('a package hooked at load from the list (its next runs) is taken off the list the same way', () => {
  setStackCapture(true);
  const { folder, exports } = installPackage('app-context-next', MANAGER);
  rememberLearned(root, { name: 'app-context-next', version: '1.0.0', esm: false });
  const Manager = exports.Manager as new (root: Context) => ContextManager;
  const active = Manager.prototype.active;
  context.setGlobalContextManager(new Manager(ROOT_CONTEXT));
  try {
    hookLoadedPackage('app-context-next', exports, root);
    assert.ok(learnedPackages().includes(folder));
    assert.notEqual(Manager.prototype.active, active, 'hooked');
    const key = Symbol('k');
    assert.equal(
      context.with(ROOT_CONTEXT.setValue(key, 2), () => context.active().getValue(key)),
      2,
    );
    assert.equal(Manager.prototype.active, active, 'unhooked');
    assert.ok(!listed().includes('app-context-next'));
    // Loaded again (another require of it): not hooked again.
    hookLoadedPackage('app-context-next', exports, root);
    assert.equal(Manager.prototype.active, active);
  } finally {
    context.disable();
  }
});
