// An aborted call's row names what aborted it (SPEC 2.1 exception): fetch rejects with a DOMException whose
// name (AbortError, TimeoutError) is the class, without its legacy numeric code (20, 23); node:http's own
// AbortError keeps its string code and carries the signal's reason in `previous`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpRow } from '../../src/capture/types';
import { runLensApp, startUpstreams, type Upstreams } from './lens-app';

const APP = `
const http = require('node:http');
const U = process.env.UPSTREAM;
const seen = [];
const note = (what, e) => seen.push(what + ' ' + e.name + ' ' + e.constructor.name + ' ' + e.code);
(async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 30);
  await fetch(U + '/slow?ms=2000&c=controller', { signal: ac.signal }).catch((e) => note('controller', e));
  await fetch(U + '/slow?ms=2000&c=timeout', { signal: AbortSignal.timeout(30) }).catch((e) => note('timeout', e));
  await new Promise((resolve) => {
    const hc = new AbortController();
    const req = http.request(U + '/slow?ms=2000&c=http', { signal: hc.signal }, (res) => res.resume());
    req.on('error', (e) => { note('http', e); resolve(); });
    req.end();
    setTimeout(() => hc.abort(), 30);
  });
  await new Promise((resolve) => {
    const req = http.request(U + '/slow?ms=2000&c=http-timeout', { signal: AbortSignal.timeout(30) }, (res) => res.resume());
    req.on('error', (e) => { note('http-timeout', e); resolve(); });
    req.end();
  });
  console.log(seen.join('\\n'));
})().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

const byMarker = (rows: HttpRow[], marker: string): HttpRow => {
  const row = rows.find((r) => new URL(r.url).searchParams.get('c') === marker);
  assert.ok(row, `a row for ${marker}`);
  return row;
};

describe('aborted calls', () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  it('store the DOMException name as the class and no numeric code', async () => {
    const run = await runLensApp(up, { 'app.js': APP }, 'app.js');
    assert.equal(run.result.code, 0, run.result.stderr);
    // What the app saw is unchanged: fetch's DOMExceptions carry their legacy codes, node:http its AbortError.
    assert.deepEqual(run.result.stdout.trim().split('\n'), [
      'controller AbortError DOMException 20',
      'timeout TimeoutError DOMException 23',
      'http AbortError AbortError ABORT_ERR',
      'http-timeout AbortError AbortError ABORT_ERR',
    ]);
    const exception = (marker: string) => byMarker(run.rows, marker).exception;
    assert.deepEqual(pick(exception('controller')), { class: 'AbortError', code: null, message: 'This operation was aborted', previous: [] });
    assert.deepEqual(pick(exception('timeout')), { class: 'TimeoutError', code: null, message: 'The operation was aborted due to timeout', previous: [] });
    assert.deepEqual(pick(exception('http')), {
      class: 'AbortError',
      code: 'ABORT_ERR',
      message: 'The operation was aborted',
      previous: [{ class: 'AbortError', code: null, message: 'This operation was aborted' }],
    });
    assert.deepEqual(pick(exception('http-timeout')), {
      class: 'AbortError',
      code: 'ABORT_ERR',
      // The cause says more than the message (why it was aborted): the row states it.
      message: 'The operation was aborted due to timeout',
      previous: [{ class: 'TimeoutError', code: null, message: 'The operation was aborted due to timeout' }],
    });
    for (const marker of ['controller', 'timeout', 'http', 'http-timeout']) {
      const row = byMarker(run.rows, marker);
      assert.equal(row.status, null);
      assert.equal(row.failed, true);
    }
  });
});

function pick(exception: HttpRow['exception']): unknown {
  assert.ok(exception);
  const { class: cls, code, message, previous } = exception;
  return { class: cls, code, message, previous };
}
