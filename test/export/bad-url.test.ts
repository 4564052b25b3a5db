import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { REPO_ROOT, TestApp, eventually } from '../helpers/app';
import { startChild, waitForLine } from '../helpers/child';
import { startCollector, type RunningCollector } from '../collector/collectCli';
import { exportRequest, span } from '../collector/otlpFixtures';

// A span sent to `probe collect` may say anything in url.full: `-o./x` is no URL. The capture holding it must not
// break an export of it or of every capture, nor the dashboard's downloads: that call is left out and named.

const BAD_URL = '-o./x';

function trace(): Array<Record<string, unknown>> {
  const call = (spanId: string, url: string, start: number) =>
    span({
      spanId,
      parentSpanId: 'aaaaaaaaaaaaaaa1',
      name: 'HEAD',
      kind: 3,
      start,
      end: start + 5,
      attributes: { 'http.request.method': 'HEAD', 'url.full': url, 'http.response.status_code': 200 },
    });
  return [
    span({
      spanId: 'aaaaaaaaaaaaaaa1',
      name: 'GET /sync',
      kind: 2,
      start: 0,
      end: 50,
      attributes: { 'http.request.method': 'GET', 'url.path': '/sync', 'http.response.status_code': 200 },
    }),
    call('aaaaaaaaaaaaaaa2', BAD_URL, 5),
    call('aaaaaaaaaaaaaaa3', 'https://api.example.test/ping', 20),
  ];
}

describe('one capture whose URL is not a URL never breaks the rest', { timeout: 120_000 }, () => {
  const app = new TestApp({});
  let collector: RunningCollector;
  let id: string;
  before(async () => {
    collector = await startCollector(app);
    const post = await fetch(`${collector.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(exportRequest(trace())),
    });
    assert.equal(post.status, 200);
    const capture = await eventually(() => app.captures().find((one) => one.name === 'GET /sync' && (one.sections.http?.length ?? 0) === 2));
    id = capture.id;
  });
  after(async () => {
    await collector.stop();
  });

  for (const flag of ['--msw', '--nock', '--undici-snapshot', '--har']) {
    // HAR is one capture's file; `*` is for mocks.
    for (const which of flag === '--har' ? ['newest'] : ['newest', '*']) {
      test(`probe export ${which === '*' ? '* ' : ''}${flag}: the good call exported, the bad one named in one line`, async () => {
        const file = `out-${flag.slice(2)}-${which === '*' ? 'all' : 'one'}`;
        const run = await app.cli(['export', ...(which === '*' ? ['*'] : []), flag, '--out', file]);
        assert.equal(run.code, 0, run.stderr);
        assert.doesNotMatch(run.stderr, /TypeError|    at /, 'no stack trace');
        const text = readFileSync(path.join(app.dir, file), 'utf8');
        assert.ok(text.includes('api.example.test'), 'the good call is in the file');
        if (flag !== '--har') {
          const named = run.stderr.split('\n').filter((line) => line.includes(BAD_URL));
          assert.equal(named.length, 1, run.stderr);
          assert.match(named[0]!, /^probe export: left out HEAD -o\.\/x \(capture \S+ row 0\): /);
        }
      });
    }
  }

  test('the dashboard answers every download of that capture, none with 500', async () => {
    const child = startChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'dashboard', '--port', '0'], {
      cwd: app.dir,
      env: app.env({ preload: 'none' }),
    });
    try {
      const [, url] = await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+\/)/);
      for (const route of ['mocks/msw', 'mocks/nock', 'mocks/undici-snapshot', 'har', '']) {
        const response = await fetch(`${url}api/captures/${id}${route ? `/${route}` : ''}`);
        assert.equal(response.status, 200, `${route}: ${await response.clone().text()}`);
        assert.ok((await response.text()).includes('api.example.test'), route);
      }
    } finally {
      child.kill();
    }
  });
});
