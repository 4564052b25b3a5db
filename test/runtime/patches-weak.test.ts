import { it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/app';
import { runChild } from '../helpers/child';

// A weak patch (an object of a short-lived realm: a test runner's class in a vm context per test file) is undone
// like any other while its owner lives, and leaves the ledger when its owner is collected, without keeping it alive.
const SCRIPT = `
const vm = require('node:vm');
const { patchMethod, patches, undoPatches } = require(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'util', 'patches.js'))});
const kept = { hello() { return 'original'; } };
const original = kept.hello;
patchMethod(kept, 'hello', 'kept.hello', 'test', (fn) => function () { return 'patched ' + fn.call(this); }, { weak: true });
const patched = kept.hello();
(() => {
  // An object of another realm, patched and then dropped with its realm.
  const Realm = vm.runInNewContext('(class Runner { onBeforeRunTask() { return 1; } })');
  patchMethod(Realm.prototype, 'onBeforeRunTask', 'Runner.prototype.onBeforeRunTask', 'test', (fn) => function () { return fn.call(this) + 1; }, { weak: true });
})();
const listed = patches().length;
(async () => {
  for (let i = 0; i < 100 && patches().length > 1; i++) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const left = patches().map((p) => p.target);
  undoPatches();
  console.log(JSON.stringify({ patched, listed, left, restored: kept.hello === original }));
})();
`;

it('a weak patch is undone while its owner lives, and leaves the ledger with it', async () => {
  const run = await runChild(process.execPath, ['--expose-gc', '-e', SCRIPT], { cwd: REPO_ROOT });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { patched: 'patched original', listed: 2, left: ['kept.hello'], restored: true });
});
