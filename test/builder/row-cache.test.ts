// RowCache and captureText: a done call's row is built and serialised once for every version of its unit, and the
// text joined from cached rows is the text JSON.stringify gives the capture (the oracle), request section and all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCapture } from '../../src/builder/buildCapture';
import { RowCache } from '../../src/builder/RowCache';
import { captureText } from '../../src/store/captureText';
import { resolveConfig } from '../../src/config/resolve';
import { threadWork } from '../../src/util/threadWork';
import type { CallInput, UnitInput } from '../../src/builder/input';

const T0 = 1_700_000_000_000;
const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });

const call = (n: number, end: number | null = T0 + 10 * n + 5): CallInput => ({
  spanId: `s${n}`,
  parentSpanId: 'root1',
  method: 'post',
  url: `https://api.test/items/${n}?token=t`,
  requestHeaders: { authorization: 'Bearer x', 'content-type': 'application/json' },
  requestBody: { chunks: [Buffer.from(`{"n":${n},"password":"p","note":"é \\u2028 \\"q\\""}`)], size: 40, truncated: false },
  status: end === null ? null : 200,
  responseHeaders: end === null ? {} : { 'content-type': 'application/json', 'set-cookie': 's=1' },
  responseBody: end === null ? null : { chunks: [Buffer.from(`{"id":${n},"api_key":"k"}`)], size: 20, truncated: false },
  clientDecodes: false,
  start: T0 + 10 * n,
  end,
  timing: null,
  error: null,
  pool: null,
  fake: false,
  origin: { file: 'src/app.js', line: 12, chain: ['src/app.js:12 run'] },
});

const unit = (calls: CallInput[], endedAt: number): UnitInput => ({
  id: 'cap_00000001',
  type: 'command',
  name: 'node run.js --password=secret',
  status: 'running',
  parentId: null,
  traceId: 'f'.repeat(32),
  linkedVia: null,
  rootSpanId: 'root1',
  startedAt: T0,
  endedAt,
  endedBy: 'exit',
  label: null,
  tags: [],
  jobId: null,
  meta: { pid: 1, hostname: 'h', node: 'v20', service: 's' },
  request: { method: 'get', url: 'http://app.test/x?token=t', headers: { cookie: 'c=1' }, route: '/x', status: 200, remoteAddress: '127.0.0.1' },
  spans: [],
  calls,
  pools: [],
  partial: true,
});

test('versions of a long unit build and serialise each done call once, and give the text JSON.stringify gives', () => {
  const rows = new RowCache();
  const calls = Array.from({ length: 5 }, (_, i) => call(i));
  const before = { ...threadWork };
  for (let version = 1; version <= 5; version++) {
    const capture = buildCapture(unit(calls.slice(0, version), T0 + 100 * version), config, rows);
    assert.equal(captureText(capture, rows), JSON.stringify(capture), `version ${version}`);
    // A capture built without the cache is the same capture.
    assert.deepEqual(capture, buildCapture(unit(calls.slice(0, version), T0 + 100 * version), config));
  }
  // 5 rows by the cached builds, 15 by the uncached ones (1 + 2 + ... + 5); 5 row texts.
  assert.equal(threadWork.rows - before.rows, 5 + 15);
  assert.equal(threadWork.rowsSerialised - before.rowsSerialised, 5);
});

test('a call still running is built each time; the same call under another unit start or lens is built again', () => {
  const rows = new RowCache();
  const open = call(1, null);
  const done = call(2);
  const before = threadWork.rows;
  buildCapture(unit([open, done], T0 + 100), config, rows);
  buildCapture(unit([open, done], T0 + 200), config, rows);
  assert.equal(threadWork.rows - before, 3, 'the running call twice, the done one once');
  const other = resolveConfig({ root: '/app', configFile: null, file: { lenses: { HttpClientLens: { bodies: true } } }, env: {} });
  const withBodies = buildCapture(unit([done], T0 + 100), other, rows);
  assert.equal(threadWork.rows - before, 4);
  assert.deepEqual(withBodies, buildCapture(unit([done], T0 + 100), other));
});

test('rows the cache did not build are serialised each time', () => {
  const rows = new RowCache();
  const capture = buildCapture(unit([call(1)], T0 + 100), config);
  const before = threadWork.rowsSerialised;
  assert.equal(captureText(capture, rows), JSON.stringify(capture));
  assert.equal(captureText(capture, rows), JSON.stringify(capture));
  assert.equal(threadWork.rowsSerialised - before, 2);
});
