import { it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO_ROOT, TestApp, lastJsonLine } from '../helpers/app';

// Started in code (no preload), then shut down: every function Probe patched is the original again, and the
// ledger listed each patch while it ran.
const SCRIPT = `
const http = require('node:http');
const https = require('node:https');
const net = require('node:net');
const tls = require('node:tls');
const { context } = require('@opentelemetry/api');
const slots = () => ({
  'http.request': http.request, 'http.get': http.get, 'https.request': https.request, 'https.get': https.get,
  'http.Server.prototype.emit': http.Server.prototype.emit, 'net.connect': net.connect,
  'net.createConnection': net.createConnection, 'tls.connect': tls.connect, 'globalThis.fetch': globalThis.fetch,
  'context.setGlobalContextManager': context.setGlobalContextManager,
});
const before = slots();
const { start } = require('probe');
const probe = start();
const { patches } = require(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'util', 'patches.js'))});
const during = slots();
const listed = patches().map((p) => p.target);
const whys = patches().map((p) => p.why);
probe.shutdown().then(() => {
  const after = slots();
  const changed = Object.keys(before).filter((k) => during[k] !== before[k]);
  const notRestored = Object.keys(before).filter((k) => after[k] !== before[k]);
  console.log(JSON.stringify({ changed, notRestored, listed, whys, left: patches().length }));
});
`;

it('shutdown() undoes every patch of the ledger, and each patch says why', async () => {
  const app = new TestApp({ 'main.js': SCRIPT });
  const result = await app.run('main.js', { preload: 'none' });
  assert.equal(result.code, 0, result.stderr);
  const out = lastJsonLine<{
    changed: string[];
    notRestored: string[];
    listed: string[];
    whys: string[];
    left: number;
  }>(result.stdout);
  // Probe really patched these while it ran (emit is instrumentation-http's, undone when it is disabled).
  for (const name of [
    'http.request',
    'http.get',
    'https.request',
    'net.connect',
    'tls.connect',
    'globalThis.fetch',
    'context.setGlobalContextManager',
    'http.Server.prototype.emit',
  ])
    assert.ok(out.changed.includes(name), `${name} was not patched: ${JSON.stringify(out.changed)}`);
  assert.deepEqual(out.notRestored, []);
  assert.equal(out.left, 0);
  for (const target of ['node:http(s).request', 'net.connect', 'tls.connect', 'globalThis.fetch', '@opentelemetry/api context.setGlobalContextManager'])
    assert.ok(out.listed.includes(target), `${target} not in the ledger: ${JSON.stringify(out.listed)}`);
  for (const why of out.whys) assert.ok(why.length > 20, `a patch without its reason: ${why}`);
});

// start() that fails after the lenses are on (here: the exit hooks cannot be installed) undoes what it did.
const HALF_WAY = `
const http = require('node:http');
const net = require('node:net');
const { context } = require('@opentelemetry/api');
const slots = () => ({ 'http.request': http.request, 'http.get': http.get, 'net.connect': net.connect, 'globalThis.fetch': globalThis.fetch, 'context.setGlobalContextManager': context.setGlobalContextManager });
const before = slots();
const on = process.on;
process.on = function (event, ...rest) {
  if (event === 'beforeExit') throw new Error('no exit hooks here');
  return on.call(this, event, ...rest);
};
const { start } = require('probe');
let message = '';
try {
  start();
} catch (error) {
  message = error.message;
}
process.on = on;
const { patches } = require(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'util', 'patches.js'))});
const after = slots();
const notRestored = Object.keys(before).filter((k) => after[k] !== before[k]);
const left = patches().length;
// Nothing running: a later start() starts afresh.
const probe = start();
console.log(JSON.stringify({ message, notRestored, left, again: patches().length > 0 }));
probe.shutdown();
`;

it('start() that throws half-way undoes every patch it made and leaves no instance running', async () => {
  const app = new TestApp({ 'main.js': HALF_WAY });
  const result = await app.run('main.js', { preload: 'none' });
  assert.equal(result.code, 0, result.stderr);
  const out = lastJsonLine<{ message: string; notRestored: string[]; left: number; again: boolean }>(result.stdout);
  assert.equal(out.message, 'no exit hooks here');
  assert.deepEqual(out.notRestored, []);
  assert.equal(out.left, 0);
  assert.equal(out.again, true);
});
