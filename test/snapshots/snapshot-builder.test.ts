import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CallInput } from '../../src/builder/input';
import { buildCapture } from '../../src/builder/buildCapture';
import { readableCapture } from '../../src/capture/readableCapture';
import { resolveConfig } from '../../src/config/resolve';
import type { ProbeConfig } from '../../src/config/types';
import { snapshotOfCapture } from '../../src/snapshots/snapshotOfCapture';
import { compareSnapshots, sameCalls } from '../../src/snapshots/compareSnapshots';
import { hostAllowed } from '../../src/snapshots/allowedHosts';
import { parseIgnorePath } from '../../src/util/ignorePaths';
import { snapshotPathOf, snapshotText, testFileOf } from '../../src/snapshots/snapshotFiles';
import { callInput, T0, unitOf } from '../helpers/call-input';

const json = (value: unknown) => {
  const buffer = Buffer.from(JSON.stringify(value));
  return { chunks: [buffer], size: buffer.length, truncated: false };
};
const config = (file: ProbeConfig = {}) => resolveConfig({ root: '/app', configFile: null, file, env: {} });

function captureOf(calls: CallInput[], file: ProbeConfig = {}) {
  const resolved = config(file);
  return { capture: readableCapture(buildCapture(unitOf(calls), resolved)), settings: resolved.snapshots };
}

function userCalls(port: number, start: number, over: { role?: string; id?: string } = {}): CallInput[] {
  return [
    callInput({
      spanId: 'a1',
      method: 'POST',
      url: `http://127.0.0.1:${port}/users?token=s3cr3t-token&b=2&a=1`,
      requestHeaders: { 'content-type': 'application/json', authorization: 'Bearer s3cr3t-token', 'user-agent': 'undici', 'x-request-id': String(start) },
      requestBody: json({ name: 'Ada', role: over.role ?? 'user', password: 's3cr3t-password' }),
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: json({
        id: over.id ?? '0b9c4a8e-6a1b-4b8e-9a57-1f2d3c4b5a69',
        created_at: new Date(start).toISOString(),
        self: `http://localhost:${port}/users/42`,
      }),
      status: 201,
      start,
      end: start + 3,
      origin: { file: 'test/users.test.js', line: 12, chain: [] },
    }),
    callInput({
      spanId: 'a2',
      url: `http://127.0.0.1:${port}/users/42`,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: json({ name: 'Ada' }),
      start: start + 5,
      end: start + 9,
      origin: { file: 'test/users.test.js', line: 14, chain: [] },
    }),
  ];
}

test('a snapshot keeps what a test did and nothing that changes run to run: ports, times, UUIDs, durations, unchosen headers', () => {
  const first = captureOf(userCalls(41234, T0));
  const second = captureOf(userCalls(52345, T0 + 60_000, { id: '7d1e2f30-1111-4222-8333-944455566677' }));
  const a = snapshotOfCapture(first.capture, first.settings, first.settings.hosts);
  const b = snapshotOfCapture(second.capture, second.settings, second.settings.hosts);
  assert.equal(JSON.stringify(a.snapshot), JSON.stringify(b.snapshot), 'two runs of the same test give the same snapshot');
  assert.deepEqual(a.outside, []);
  const [post, get] = a.snapshot.calls;
  assert.equal(post!.url, 'http://127.0.0.1:{port}/users?a=1&b=2&token=********');
  assert.equal(get!.url, 'http://127.0.0.1:{port}/users/{id}');
  assert.deepEqual(post!.request!.headers, { 'content-type': 'application/json', authorization: '********' });
  assert.deepEqual(post!.request!.body, { name: 'Ada', password: '********', role: 'user' });
  assert.deepEqual(post!.response!.body, { created_at: '{datetime}', id: '{uuid}', self: 'http://localhost:{port}/users/42' });
  assert.equal(post!.line, 'test/users.test.js:12');
  assert.doesNotMatch(JSON.stringify(a.snapshot), /s3cr3t/);
});

test('snapshots.ignore leaves out JSON paths and headers; bodies: shapes keeps types', () => {
  const { capture, settings } = captureOf(userCalls(4000, T0), {
    snapshots: { ignore: ['$.role', 'Authorization', '$.self'], headers: ['content-type', 'authorization', 'x-request-id'], bodies: 'shapes' },
  });
  const [post] = snapshotOfCapture(capture, settings, settings.hosts).snapshot.calls;
  assert.deepEqual(post!.request, {
    headers: { 'content-type': 'application/json', 'x-request-id': String(T0) },
    body: { name: 'string', password: 'string' },
  });
  assert.deepEqual(post!.response!.body, { created_at: 'string', id: 'string' });
  assert.deepEqual(parseIgnorePath('$.items[*].id'), ['items', '*', 'id']);
  assert.deepEqual(parseIgnorePath('$["e-mail"][0]'), ['e-mail', 0]);
  assert.equal(parseIgnorePath('items.id'), null);
  assert.throws(() => config({ snapshots: { ignore: ['$..x'] } }), /snapshots\.ignore/);
});

test('a changed body field, an added call and a removed call are told in probe diff terms, with code lines', () => {
  const before = captureOf(userCalls(4000, T0));
  const after = captureOf([
    ...userCalls(5000, T0, { role: 'admin' }).slice(0, 1),
    callInput({ url: 'http://127.0.0.1:5000/audit', start: T0 + 5, end: T0 + 6, origin: { file: 'test/users.test.js', line: 20, chain: [] } }),
  ]);
  const a = snapshotOfCapture(before.capture, before.settings, []).snapshot;
  const b = snapshotOfCapture(after.capture, after.settings, []).snapshot;
  assert.equal(sameCalls(a, b), false);
  const diff = compareSnapshots('users > creates', a, b);
  assert.deepEqual(
    diff.changed.map((change) => [change.line, change.request_payload]),
    [['test/users.test.js:12', [{ path: '$.role', before: 'user', after: 'admin' }]]],
  );
  assert.deepEqual(
    diff.added.map((call) => [call.url, call.line]),
    [['http://127.0.0.1:{port}/audit', 'test/users.test.js:20']],
  );
  assert.deepEqual(
    diff.removed.map((call) => [call.url, call.line]),
    [['http://127.0.0.1:{port}/users/{id}', 'test/users.test.js:14']],
  );
  // A line that moved is no change.
  const moved = { calls: a.calls.map((call) => ({ ...call, line: 'test/users.test.js:99' })) };
  assert.equal(sameCalls(a, moved), true);
});

test('hosts: loopback and private by default; a public host, faked or not, is told apart', () => {
  const hosts = ['loopback', 'private'];
  for (const host of ['localhost', 'api.localhost', '127.0.0.2', '::1', '[::1]', '10.1.2.3', '172.20.0.1', '192.168.1.1', 'db', 'api.internal', 'fd00::1'])
    assert.equal(hostAllowed(host, hosts), true, host);
  for (const host of ['api.example.com', '8.8.8.8', '172.32.0.1', '2001:db8::1', 'example.com']) assert.equal(hostAllowed(host, hosts), false, host);
  assert.equal(hostAllowed('api.stripe.com', ['*.stripe.com']), true);
  assert.equal(hostAllowed('stripe.com.evil.io', ['*.stripe.com']), false);
  const real = captureOf([callInput({ url: 'https://api.example.com/v1/charge', origin: { file: 'test/pay.test.js', line: 3, chain: [] } })]);
  assert.deepEqual(snapshotOfCapture(real.capture, real.settings, hosts).outside, [{ url: 'https://api.example.com/v1/charge', line: 'test/pay.test.js:3' }]);
  const faked = captureOf([callInput({ url: 'https://api.example.com/v1/charge', fake: true })]);
  assert.deepEqual(snapshotOfCapture(faked.capture, faked.settings, hosts).outside, []);
});

test('snapshot files: beside the test file, sorted, stable text', () => {
  assert.equal(snapshotPathOf('test/users.test.ts'), 'test/__probe__/users.test.ts.json');
  assert.equal(snapshotPathOf('a.test.js'), '__probe__/a.test.js.json');
  assert.equal(testFileOf('test/__probe__/users.test.ts.json'), 'test/users.test.ts');
  assert.equal(testFileOf('__probe__/a.test.js.json'), 'a.test.js');
  const tests = JSON.parse('{"b": {"calls": []}, "__proto__": {"calls": []}, "a": {"calls": []}}');
  const text = snapshotText({ probe_snapshot: 1, file: 'a.test.js', tests });
  assert.deepEqual(Object.keys(JSON.parse(text).tests), ['__proto__', 'a', 'b'], 'a test named __proto__ is kept as a test');
  assert.ok(text.endsWith('}\n'));
});
