// An APM agent's own calls carry no mark of it when they are lookups of its own (New Relic's cloud metadata when
// it connects): Probe tells them by where they come from. A real app under the preload loads a package folder
// laid out as New Relic's: a module of its utilization/ that calls out (the agent's own: no row, not counted) and
// a wrapper of its instrumentation/ around node:http's get, on the stack of the app's calls (kept), and a hook of
// the app's the agent's code calls (the app's call: kept).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

const NR = 'vendor/node_modules/newrelic/lib';
const FILES = {
  // As lib/instrumentation/core/http-outbound.js: wraps http.get, so it is on every app call's stack.
  [`${NR}/instrumentation/http-outbound.js`]: `
const http = require('node:http');
const original = http.get;
http.get = function wrappedGet() { return original.apply(this, arguments); };
`,
  // As lib/utilization/common.js: the agent's own lookup; and a hook of the app's it runs.
  [`${NR}/utilization/probe.js`]: `
const http = require('node:http');
exports.lookup = (url) => new Promise((done, fail) => http.get(url, (res) => { res.resume(); res.on('end', done); }).on('error', fail));
exports.runHook = (hook) => hook();
`,
  'app.js': `
require('./${NR}/instrumentation/http-outbound.js');
const http = require('node:http');
const agent = require('./${NR}/utilization/probe.js');
const get = (url) => new Promise((done, fail) => http.get(url, (res) => { res.resume(); res.on('end', done); }).on('error', fail));
(async () => {
  await agent.lookup(process.env.UPSTREAM + '/agent-own');
  await get(process.env.UPSTREAM + '/app-call');
  await agent.runHook(() => get(process.env.UPSTREAM + '/app-hook'));
  console.log('done');
})();
`,
};

describe("an agent's own calls, told by their stack", () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  for (const origin of [true, false]) {
    it(`records no row for them, and keeps the app's calls through the agent's wrappers (origin ${origin ? 'on' : 'off'})`, async () => {
      const config = `module.exports = { origin: { enabled: ${origin} } };`;
      const run = await runLensApp(up, { ...FILES, 'probe.config.js': config }, 'app.js');
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.match(run.result.stdout, /done/);
      assert.deepEqual(
        up.plain.received.slice(-3).map((r) => r.url),
        ['/agent-own', '/app-call', '/app-hook'],
        'every call went out',
      );
      const paths = run.rows.map((row) => new URL(row.url).pathname);
      assert.deepEqual(paths, ['/app-call', '/app-hook']);
      assert.equal(run.capture?.summary.totals?.http_calls, 2, 'the agent call is not counted');
      if (origin)
        assert.deepEqual(
          run.rows.map((row) => row.origin?.file),
          ['app.js', 'app.js'],
        );
      else
        assert.deepEqual(
          run.rows.map((row) => row.origin),
          [null, null],
        );
    });
  }
});
