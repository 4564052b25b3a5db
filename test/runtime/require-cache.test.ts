import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { TestApp } from '../helpers/app';
import { installPinned } from '../helpers/pinned';

/**
 * Module loaders that lean on require.cache work as without Probe: a file deleted from the cache is evaluated
 * again on the next require (decache, jest.resetModules-style resets), and proxyquire, which deletes itself from
 * the cache while it loads to learn which test file required it, stubs each test file's own `./lib`. The app
 * counts every evaluation; its output with Probe must be the output without it.
 */
const CACHE = process.env.PROBE_REQUIRE_CACHE_CACHE ?? path.join(os.homedir(), '.cache', 'probe-require-cache');
const PROXYQUIRE = '2.1.3';

const counted = (name: string, value: string) =>
  `globalThis.evaluations = globalThis.evaluations || {}; globalThis.evaluations[${JSON.stringify(name)}] = (globalThis.evaluations[${JSON.stringify(name)}] || 0) + 1;\nmodule.exports = ${value};\n`;

const TEST_FILE = (dir: string) =>
  `const proxyquire = require(process.env.PROXYQUIRE);\nmodule.exports = proxyquire('./lib', { './dep': { name: 'stub of ${dir}' } });\n`;

const FILES: Record<string, string> = {
  'a/t.js': TEST_FILE('a'),
  'b/t.js': TEST_FILE('b'),
  'a/lib.js': counted('a/lib', "'a/lib with ' + require('./dep').name"),
  'b/lib.js': counted('b/lib', "'b/lib with ' + require('./dep').name"),
  'a/dep.js': counted('a/dep', "{ name: 'real a/dep' }"),
  'b/dep.js': counted('b/dep', "{ name: 'real b/dep' }"),
  'counter.js': counted('counter', '1'),
  // A package (resolved from a node_modules folder) that leaves the cache while it loads, as proxyquire does.
  'pkgs/node_modules/leaves-cache/index.js': counted('leaves-cache', '1') + 'delete require.cache[__filename];\n',
  'pkgs/node_modules/plain-pkg/index.js': counted('plain-pkg', '1'),
  'pkgs/use.js': 'module.exports = (name) => require(name);\n',
  'app.js': `
const out = [];
out.push('a/t.js: ' + require('./a/t.js'));
out.push('b/t.js: ' + require('./b/t.js'));
// decache: delete, then require again
require('./counter'); delete require.cache[require.resolve('./counter')]; require('./counter');
const use = require('./pkgs/use');
use('plain-pkg'); delete require.cache[require.resolve('./pkgs/node_modules/plain-pkg')]; use('plain-pkg');
use('leaves-cache'); use('leaves-cache');
// jest.resetModules-style: every module of the app dropped, then the test files required again
for (const key of Object.keys(require.cache)) if (key.startsWith(__dirname + '/') && key !== __filename) delete require.cache[key];
out.push('a/t.js again: ' + require('./a/t.js'));
out.push('b/t.js again: ' + require('./b/t.js'));
require('./pkgs/use')('plain-pkg');
out.push('evaluations ' + JSON.stringify(Object.entries(globalThis.evaluations).sort()));
console.log(out.join('\\n'));
`,
};

describe('require.cache as without Probe', () => {
  let proxyquire = '';
  before(async () => {
    const dir = await installPinned({
      dir: path.join(CACHE, `proxyquire-${PROXYQUIRE}`),
      package: { name: 'proxyquire-app', dependencies: { proxyquire: PROXYQUIRE } },
      probe: false,
    });
    proxyquire = path.join(dir, 'node_modules', 'proxyquire');
  });

  it('proxyquire stubs per test file, and a deleted module is evaluated again', async () => {
    const app = new TestApp(FILES);
    const env = { PROXYQUIRE: proxyquire };
    const baseline = await app.run('app.js', { preload: 'none', env });
    assert.equal(baseline.code, 0, baseline.stderr);
    // The oracle does what the test is about: each test file gets its own lib with its own stub.
    assert.match(baseline.stdout, /^b\/t\.js: b\/lib with stub of b$/m);
    assert.match(baseline.stdout, /"leaves-cache",2/);
    for (const preload of ['require', 'import'] as const) {
      const run = await app.run('app.js', { preload, env });
      assert.equal(run.code, 0, `${preload}: ${run.stderr}`);
      assert.equal(run.stdout, baseline.stdout, preload);
    }
  });
});
