import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { TestApp } from '../helpers/app';
import type { HttpRow } from '../../src/capture/types';
import { requestBodyOf } from '../../src/dashboard/ui/curl';
import { harOf } from '../../src/export/har';

// JSON may name a member `__proto__`: JSON.parse makes it an own member, but copying it with `out[key] = …`
// sets the copy's prototype instead, so the member vanished from what Probe stored (and the copy read as
// inheriting it). Recorded bodies must be the bytes the app sent, masked by the same rules, and nothing
// Probe reads may be polluted.

const SENT = '{"a":{"__proto__":{"p3":1}},"__proto__":{"polluted":true},"password":"hunter2"}';
const ANSWER = '{"b":{"__proto__":{"p4":2}},"token":"tok-secret","__proto__":{"isAdmin":true}}';

const APP = `
const base = process.env.BASE;
(async () => {
  const json = { 'content-type': 'application/json' };
  const res = await fetch(base + '/json', { method: 'POST', headers: json, body: ${JSON.stringify(SENT)} });
  await res.text();
  const form = await fetch(base + '/plain', { method: 'POST', headers: json, body: '{"__proto__":{"x":1}}' });
  await form.text();
})();
`;

function startServer(): Promise<{ base: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/json' ? ANSWER : '{"__proto__":{"y":2}}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

describe('__proto__ members of recorded JSON are kept as sent, masked alike, and pollute nothing', { timeout: 120_000 }, () => {
  const app = new TestApp({ 'app.cjs': APP, 'probe.config.json': JSON.stringify({ lenses: { HttpClientLens: { bodies: true } } }) });
  let rows: HttpRow[];
  let fileText: string;
  let close: () => Promise<void>;
  before(async () => {
    const server = await startServer();
    close = server.close;
    const run = await app.run('app.cjs', { env: { BASE: server.base } });
    assert.equal(run.code, 0, run.stderr);
    const capture = app.captures().find((one) => (one.sections.http?.length ?? 0) === 2)!;
    rows = capture.sections.http as HttpRow[];
    const dir = path.join(app.dir, '.probe', 'captures');
    fileText = readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => readFileSync(path.join(dir, name), 'utf8'))
      .join('\n');
  });
  after(() => close());

  test('the stored file holds every __proto__ member, secrets masked', () => {
    assert.ok(
      fileText.includes('{\\"a\\":{\\"__proto__\\":{\\"p3\\":1}},\\"__proto__\\":{\\"polluted\\":true},\\"password\\":\\"********\\"}'),
      'request_body as sent, masked',
    );
    assert.ok(fileText.includes('"__proto__":{"p3":1}'), 'request_payload keeps the member');
    assert.ok(
      fileText.includes('{\\"b\\":{\\"__proto__\\":{\\"p4\\":2}},\\"token\\":\\"********\\",\\"__proto__\\":{\\"isAdmin\\":true}}'),
      'the response raw as received, masked',
    );
    assert.ok(!fileText.includes('hunter2') && !fileText.includes('tok-secret'));
    assert.ok(fileText.includes('{\\"__proto__\\":{\\"x\\":1}}'), 'a body with only __proto__ kept as sent');
  });

  test('read back, the members are own data: no prototype changed, nothing inherited, nothing polluted', () => {
    const [first] = rows;
    const payload = first!.request_payload as Record<string, unknown>;
    assert.ok(Object.hasOwn(payload, '__proto__'));
    assert.equal(Object.getPrototypeOf(payload), Object.prototype);
    const a = payload.a as Record<string, unknown>;
    assert.ok(Object.hasOwn(a, '__proto__'));
    assert.equal(Object.getPrototypeOf(a), Object.prototype);
    assert.equal((a as { p3?: unknown }).p3, undefined);
    assert.equal((payload as { polluted?: unknown }).polluted, undefined);
    assert.equal(({} as { polluted?: unknown; isAdmin?: unknown; p3?: unknown }).polluted, undefined);
    assert.equal(({} as { isAdmin?: unknown }).isAdmin, undefined);
    assert.deepEqual(JSON.parse(first!.request_body!), JSON.parse(SENT.replace('hunter2', '********')));
    assert.equal(first!.request_body, SENT.replace('hunter2', '********'));
  });

  test('copy as curl and HAR send the bytes the app sent (masked)', () => {
    const [first] = rows;
    assert.equal(requestBodyOf(first!), SENT.replace('hunter2', '********'));
    const withoutBody = { ...first!, request_body: null };
    assert.equal(requestBodyOf(withoutBody), SENT.replace('hunter2', '********'), 'rebuilt from the payload, the member kept');
    const har = harOf([{ ...app.captures().find((one) => (one.sections.http?.length ?? 0) === 2)! }], 'test');
    assert.equal(har.log.entries[0]!.request.postData?.text, SENT.replace('hunter2', '********'));
  });
});
