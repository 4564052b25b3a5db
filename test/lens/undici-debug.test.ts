import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

/**
 * undici prints its own debug lines under NODE_DEBUG (Node's fetch and the `undici` package each decide, as they
 * load, whether to subscribe their loggers). The app's stderr is its own: the same lines with Probe as without.
 */
const APP = `
const undici = require('undici');
const U = process.env.UPSTREAM;
(async () => {
  await (await undici.fetch(U + '/text')).text();
  await (await undici.request(U + '/json')).body.text();
  await (await fetch(U + '/html')).text();
  console.log('done');
})().catch((e) => { console.error('app failed', e); process.exit(1); });
`;

/** undici's debug lines, ports, process ids and other numbers written as N. */
const debugLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => /^(FETCH|UNDICI) \d+:/.test(line))
    .map((line) => line.replace(/\d+/g, 'N'));

describe("undici's NODE_DEBUG lines", () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  for (const flag of ['fetch', 'undici']) {
    it(`NODE_DEBUG=${flag}: the same lines with Probe as without, and the calls recorded`, async () => {
      const env = { NODE_DEBUG: flag };
      const baseline = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload: 'none', env });
      assert.equal(baseline.result.code, 0, baseline.result.stderr);
      const expected = debugLines(baseline.result.stderr);
      assert.ok(expected.length >= 15, `undici printed its lines for three calls:\n${baseline.result.stderr}`);
      const run = await runLensApp(up, { 'app.js': APP }, 'app.js', { preload: 'require', env });
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.deepEqual(debugLines(run.result.stderr), expected);
      const paths = run.rows.map((row) => new URL(row.url).pathname).sort();
      assert.deepEqual(paths, ['/html', '/json', '/text']);
      for (const row of run.rows) assert.equal(row.status, 200, row.url);
    });
  }
});
