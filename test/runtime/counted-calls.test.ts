// A unit keeps its first `max_rows` calls as rows; the calls it starts after that are only counted (folded into the
// totals). Such a call takes no stack and keeps no body: a script or worker making thousands of calls in one capture
// pays for its first rows' details only. Read from a child app under the preload: the rows and totals as stored, the
// app thread's stack count (stacksTaken, origin/origin.ts), each row's origin against the line an Error made at the call names.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/app';
import { runLensApp, startUpstreams, type Upstreams } from '../lens/lens-app';

let up: Upstreams;
before(async () => (up = await startUpstreams()));
after(() => up.close());

const ORIGIN = path.join(REPO_ROOT, 'dist', 'origin', 'origin.js');
const MAX_ROWS = 4;
const CALLS = 80; // past max_rows + the fold's sweep (64): folded calls and calls still held both count

const APP = `const http = require('node:http');
const { stacksTaken } = require(process.env.ORIGIN);
const U = process.env.UPSTREAM;
const agent = new http.Agent({ keepAlive: true });
const lines = {};
const lineOf = (error) => Number(/:(\\d+):\\d+\\)?$/m.exec(error.stack.split('\\n')[1])[1]);
function viaHttp(i) {
  return new Promise((resolve, reject) => {
    const at = new Error(); const req = http.request(U + '/echo?c=h' + i, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => { res.resume(); res.on('end', resolve); });
    lines.http = lineOf(at);
    req.on('error', reject);
    req.end(JSON.stringify({ call: i }));
  });
}
async function viaFetch(i) {
  const at = new Error(); const res = await fetch(U + '/echo?c=f' + i, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ call: i }) });
  lines.fetch = lineOf(at);
  await res.text();
}
(async () => {
  for (let i = 0; i < ${CALLS}; i++) await (i % 2 ? viaHttp(i) : viaFetch(i));
  agent.destroy();
  console.log('LINES ' + JSON.stringify(lines));
  console.log('STACKS ' + stacksTaken.count);
})();
`;

test('calls past a unit’s row cap are counted, with no stack nor body kept; the rows before them are whole', async () => {
  const run = await runLensApp(up, { 'app.js': APP, 'probe.config.json': JSON.stringify({ lenses: { HttpClientLens: { max_rows: MAX_ROWS } } }) }, 'app.js', {
    env: { ORIGIN },
  });
  assert.equal(run.result.code, 0, run.result.stderr);
  const lines = JSON.parse(/^LINES (.*)$/m.exec(run.result.stdout)![1]!) as Record<'http' | 'fetch', number>;
  const stacks = Number(/^STACKS (\d+)$/m.exec(run.result.stdout)![1]);

  const capture = run.capture!;
  assert.equal(capture.summary.totals?.http_calls, CALLS, 'every call is counted');
  assert.equal(capture.summary.dropped_rows, CALLS - MAX_ROWS);
  assert.deepEqual(
    run.rows.map((row) => new URL(row.url).searchParams.get('c')),
    ['f0', 'h1', 'f2', 'h3'],
    'the rows are the first calls',
  );
  for (const row of run.rows) {
    const client = new URL(row.url).searchParams.get('c')!.startsWith('h') ? 'http' : 'fetch';
    assert.equal(row.origin?.file, 'app.js', row.url);
    assert.equal(row.origin?.line, lines[client], `${row.url}: the line an Error made at the call names`);
    assert.match(String(row.request_body ?? JSON.stringify(row.request_payload)), /"call":\s*\d+/, `${row.url}: its request body`);
    assert.ok(row.response_bytes && row.response_bytes > 0, `${row.url}: its response`);
  }
  // One stack per row's call; none for the calls only counted.
  assert.equal(stacks, MAX_ROWS, 'stacks taken on the app thread');
});
