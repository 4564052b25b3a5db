import { it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO_ROOT, TestApp, lastJsonLine } from '../helpers/app';

// Next.js 16's dev server puts back the fetch it found on each reload (`resetFetch`) and patches fetch again,
// setting its global slot (Symbol.for('next-patch')) first, as Next does; each new patched fetch is wrapped by
// Probe as it is assigned: the app's code that runs on in the same synchronous run (a route handler calling fetch
// before any await) calls the wrapper. Done here 500 times in a started Probe: the ledger keeps one entry for Next's
// fetch all along, the newest Next fetch is the one wrapped, and shutdown() puts that newest one back.
const SCRIPT = `
const { start } = require('probe');
const probe = start();
const { patches } = require(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'util', 'patches.js'))});
const SLOT = Symbol.for('next-patch');
const WRAPS = Symbol.for('probe.fetch.next');
const entries = () => patches().filter((p) => p.target.startsWith('globalThis.fetch') && p.target.includes('Next.js')).length;
const before = patches().length;
(async () => {
  const found = globalThis.fetch;
  let newest;
  let wrappedAtOnce = 0;
  const counts = [];
  for (let reload = 0; reload < 500; reload++) {
    // resetFetch: the fetch Next found, and its slot cleared.
    globalThis.fetch = found;
    globalThis[SLOT] = false;
    // patchFetch: the slot first, then Next's function over the fetch it found.
    const original = globalThis.fetch;
    newest = function nextFetch(input, init) { return original(input, init); };
    newest.__nextPatched = true;
    globalThis[SLOT] = true;
    globalThis.fetch = newest;
    // What the app's code that Next runs next in this same run would call.
    if (globalThis.fetch[WRAPS] === newest) wrappedAtOnce++;
    await new Promise((resolve) => setImmediate(resolve));
    counts.push(entries());
  }
  const wrapsNewest = globalThis.fetch !== newest && globalThis.fetch[WRAPS] === newest;
  const most = Math.max(...counts);
  const during = patches().length;
  await probe.shutdown();
  console.log(JSON.stringify({ wrappedAtOnce, most, last: counts.at(-1), before, during, wrapsNewest, restored: globalThis.fetch === newest, left: patches().length }));
})();
`;

it("a re-wrap of Next.js's fetch (500 dev reloads) reuses its ledger entry: the ledger stays bounded", { timeout: 120_000 }, async () => {
  const app = new TestApp({ 'main.js': SCRIPT });
  const result = await app.run('main.js', { preload: 'none' });
  assert.equal(result.code, 0, result.stderr);
  const out = lastJsonLine<Record<string, number | boolean>>(result.stdout);
  assert.equal(out.wrapsNewest, true, "the newest Next fetch is wrapped by Probe's");
  assert.equal(out.wrappedAtOnce, 500, 'each Next fetch is wrapped as it is assigned, before any other code runs');
  assert.equal(out.last, 1, "one ledger entry for Next's fetch");
  assert.equal(out.most, 1, 'never more than one along the way');
  assert.equal(out.during, (out.before as number) + 1, 'the ledger grew by that one entry only');
  assert.equal(out.restored, true, 'shutdown() puts the newest Next fetch back');
  assert.equal(out.left, 0);
});

// Next.js 14 sets no slot: its dev server puts back the fetch it stored before each request and assigns a new
// patched one inside the request, right before the app's code. Once Probe saw one (as a request starts), each
// later assignment is wrapped as it is made: here 300 requests, each new Next fetch wrapped at once, one ledger
// entry each for the wrap and the assignment watch, and shutdown() leaves the newest Next fetch as a plain value.
const NEXT_14 = `
const diagnostics = require('node:diagnostics_channel');
const { start } = require('probe');
const probe = start();
const { patches } = require(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'util', 'patches.js'))});
const WRAPS = Symbol.for('probe.fetch.next');
const stored = globalThis.fetch;
const requestStart = diagnostics.channel('http.server.request.start');
let newest;
let wrappedAtOnce = 0;
const patchFetch = () => {
  const original = globalThis.fetch;
  newest = function nextFetch(input, init) { return original(input, init); };
  newest.__nextPatched = true;
  globalThis.fetch = newest;
};
(async () => {
  for (let request = 0; request < 300; request++) {
    requestStart.publish({ request: {}, response: {}, socket: {}, server: {} });
    globalThis.fetch = stored; // restorePatchedGlobals
    patchFetch();
    if (globalThis.fetch[WRAPS] === newest) wrappedAtOnce++;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const targets = patches().map((p) => p.target).filter((t) => t.includes('Next.js'));
  await probe.shutdown();
  const after = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  console.log(JSON.stringify({ wrappedAtOnce, targets, restored: after.value === newest && after.writable === true, left: patches().length }));
})();
`;

it("Next.js 14's fetch, assigned anew in every request, is wrapped as it is assigned, with a bounded ledger", { timeout: 120_000 }, async () => {
  const app = new TestApp({ 'main.js': NEXT_14 });
  const result = await app.run('main.js', { preload: 'none' });
  assert.equal(result.code, 0, result.stderr);
  const out = lastJsonLine<{ wrappedAtOnce: number; targets: string[]; restored: boolean; left: number }>(result.stdout);
  // The first request's fetch is seen only as the second request starts (Next 14 marks nothing before).
  assert.equal(out.wrappedAtOnce, 299, 'every Next fetch after the first is wrapped as it is assigned');
  assert.deepEqual(out.targets.sort(), ['globalThis.fetch (Next.js)', 'globalThis.fetch assignments (Next.js)']);
  assert.equal(out.restored, true, 'shutdown() leaves the newest Next fetch, a plain writable value');
  assert.equal(out.left, 0);
});
