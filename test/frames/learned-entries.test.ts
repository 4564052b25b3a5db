import { test } from 'node:test';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { learnFromStack, learnedPackages, packageOf } from '../../src/origin/hops/learnedEntries';
import { currentEntry } from '../../src/origin/entry';
import { setStackCapture } from '../../src/origin/origin';

test('the package of a file: scoped and unscoped, the innermost node_modules', () => {
  const sep = path.sep;
  const at = (...parts: string[]) => parts.join(sep);
  assert.equal(packageOf(at('', 'app', 'node_modules', 'request', 'request.js')), at('', 'app', 'node_modules', 'request'));
  assert.equal(
    packageOf(at('', 'app', 'node_modules', '@apollo', 'datasource-rest', 'dist', 'RESTDataSource.js')),
    at('', 'app', 'node_modules', '@apollo', 'datasource-rest'),
  );
  assert.equal(packageOf(at('', 'app', 'node_modules', 'a', 'node_modules', 'b', 'x.js')), at('', 'app', 'node_modules', 'a', 'node_modules', 'b'));
  assert.equal(packageOf(at('', 'app', 'src', 'x.js')), null);
});

test("a learned package's class methods become entries: same results, names and lengths; an entry while they run", () => {
  setStackCapture(true);
  // The async context the entry rides in (Probe registers one when it starts).
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-learned-'));
  const pkg = path.join(dir, 'node_modules', 'hopper');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(
    path.join(pkg, 'index.js'),
    'class Client { get(a, b) { return [a, b, this.seen()]; } seen() { return this.probe(); } }\nmodule.exports = { Client, helper: () => 1 };\n',
  );
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Client } = require(path.join(pkg, 'index.js')) as { Client: new () => { get(a: number, b: number): unknown[]; probe(): unknown } };
  const client = new Client();
  client.probe = () => currentEntry() !== null;
  assert.deepEqual(client.get(1, 2), [1, 2, false]);
  learnFromStack([{ getFileName: () => path.join(pkg, 'index.js') } as NodeJS.CallSite]);
  assert.ok(learnedPackages().includes(pkg));
  assert.deepEqual(client.get(1, 2), [1, 2, true]);
  const proto = Client.prototype as unknown as { get: Function };
  assert.equal(proto.get.name, 'get');
  assert.equal(proto.get.length, 2);
  fs.rmSync(dir, { recursive: true, force: true });
  context.disable();
});

test("a stack with a frame of the app's own teaches nothing (its origin is null for another reason: no map)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-learned-app-'));
  try {
    const pkg = path.join(dir, 'node_modules', 'not-learned');
    const site = (file: string) => ({ getFileName: () => file, isEval: () => false }) as unknown as NodeJS.CallSite;
    learnFromStack([site(path.join(pkg, 'index.js')), site(path.join(dir, 'src', 'main.ts')), site('node:internal/timers')]);
    assert.ok(!learnedPackages().includes(pkg));
    learnFromStack([site(path.join(pkg, 'index.js')), site('node:internal/timers')]);
    assert.ok(learnedPackages().includes(pkg));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
