// What the builder notes before masking: which earlier answers a request used (a token sent back in a masked header,
// an id in a URL), and the endpoint template a call site's varying segment makes; both stable across the versions
// of a long unit whose rows the RowCache keeps, and the text it serialises says the same as the capture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCapture } from '../../src/builder/buildCapture';
import { RowCache } from '../../src/builder/RowCache';
import { captureText } from '../../src/store/captureText';
import { resolveConfig } from '../../src/config/resolve';
import { callInput, unitOf, T0 } from '../helpers/call-input';

const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
const json = (value: unknown) => {
  const body = Buffer.from(JSON.stringify(value));
  return { responseHeaders: { 'content-type': 'application/json' }, responseBody: { chunks: [body], size: body.length, truncated: false } };
};
const site = (line: number) => ({ file: 'job.js', line, chain: [`job.js:${line} run`] });

test('uses: a token answered then sent in a header (masked in the row), an id sent in a URL; nothing stored of either', () => {
  const token = 'tk_9f8e7d6c5b4a39281706';
  const calls = [
    callInput({ spanId: 'a', method: 'POST', url: 'https://api.test/login', ...json({ access_token: token }), start: T0, end: T0 + 5, origin: site(1) }),
    callInput({
      spanId: 'b',
      url: 'https://api.test/me',
      requestHeaders: { authorization: `Bearer ${token}` },
      ...json({ org: 'org_55aa31' }),
      start: T0 + 6,
      end: T0 + 9,
      origin: site(2),
    }),
    callInput({ spanId: 'c', url: 'https://api.test/orgs/org_55aa31', ...json({ ok: true }), start: T0 + 10, end: T0 + 12, origin: site(3) }),
    callInput({ spanId: 'd', url: 'https://api.test/flags', ...json({ ok: true }), start: T0 + 3, end: T0 + 4, origin: site(4) }),
  ];
  const capture = buildCapture({ ...unitOf(calls), endedAt: T0 + 20 }, config);
  const rows = capture.sections.http!;
  assert.deepEqual(
    rows.map((row) => [row.url, row.uses]),
    [
      ['https://api.test/login', undefined],
      ['https://api.test/flags', undefined],
      ['https://api.test/me', [0]],
      ['https://api.test/orgs/org_55aa31', [2]],
    ],
  );
  assert.ok(!JSON.stringify(capture).includes(token), 'the token is masked everywhere and not kept as a fingerprint');
});

test('endpoint templates are learned across the versions of a long unit; cached rows are serialised again when theirs changes', () => {
  const cache = new RowCache();
  const slug = (n: number, name: string) =>
    callInput({
      spanId: `s${n}`,
      url: `https://api.test/catalog/${name}`,
      ...json({ slug: name, price: n }),
      start: T0 + 10 * n,
      end: T0 + 10 * n + 5,
      origin: site(7),
    });
  const first = [slug(0, 'red-shirt')];
  const v1 = buildCapture({ ...unitOf(first), endedAt: T0 + 8 }, config, cache);
  assert.equal(v1.sections.http![0]!.endpoint, 'GET https://api.test/catalog/red-shirt', 'one call: nothing varies yet');
  assert.ok(captureText(v1, cache).includes('catalog/red-shirt"'));
  const both = [...first, slug(1, 'blue-hat')];
  const v2 = buildCapture({ ...unitOf(both), endedAt: T0 + 18 }, config, cache);
  assert.deepEqual(
    v2.sections.http!.map((row) => row.endpoint),
    ['GET https://api.test/catalog/{id}', 'GET https://api.test/catalog/{id}'],
  );
  assert.equal(captureText(v2, cache), JSON.stringify(v2), 'the cached text follows the row');
});
