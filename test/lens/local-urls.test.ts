import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

/*
 * fetch answers data:, blob: and about: URLs inside the process (the Fetch standard's scheme fetch): no outgoing
 * HTTP call, so no row, whatever its size (a test reporter loads its WebAssembly from a data: URL of 95 kB).
 */

let up: Upstreams;
before(async () => (up = await startUpstreams()));
after(() => up.close());

const SCRIPT = `
(async () => {
  const big = 'data:application/octet-stream;base64,' + Buffer.alloc(96 * 1024, 7).toString('base64');
  console.log('data', (await (await fetch(big)).arrayBuffer()).byteLength);
  console.log('text', await (await fetch('DATA:text/plain,hello')).text());
  const blob = URL.createObjectURL(new Blob(['from a blob']));
  console.log('blob', await (await fetch(blob)).text());
  console.log('http', (await fetch(process.env.UPSTREAM + '/json?c=real')).status);
})();
`;

test('data: and blob: fetches are no rows; an http fetch beside them is one', async () => {
  const without = await runLensApp(up, { 'app.js': SCRIPT }, 'app.js', { preload: 'none' });
  const run = await runLensApp(up, { 'app.js': SCRIPT }, 'app.js');
  assert.equal(run.result.stdout, without.result.stdout);
  assert.equal(run.result.code, 0, run.result.stderr);
  assert.deepEqual(
    run.rows.map((row) => new URL(row.url).protocol),
    ['http:'],
  );
  assert.ok(!JSON.stringify(run.capture).includes('base64,'), 'no data: URL stored anywhere in the capture');
});
