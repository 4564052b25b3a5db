import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Capture, HttpRow } from '../../src/capture/types';
import { findingsOf } from '../../src/findings/findingsOf';
import { durationsByEndpoint, endpointStats } from '../../src/findings/endpointStats';
import {
  foldEndpoint,
  learnTemplates,
  mergeTemplateEvidence,
  templateEndpoints,
  templateEvidence,
  type TemplateEvidence,
} from '../../src/builder/endpointTemplates';

// Rule-level checks on hand-made rows; the end-to-end test (findings-app.test.ts) runs a real app.
function row(over: Partial<HttpRow> & { url: string; time: number }): HttpRow {
  const url = new URL(over.url);
  return {
    method: 'GET',
    host: url.host,
    endpoint: `${over.method ?? 'GET'} ${url.origin}${url.pathname.replace(/\/\d+/g, '/{id}')}`,
    request_headers: {},
    request_bytes: 0,
    request_payload: null,
    request_body: null,
    status: 200,
    response_headers: {},
    response_bytes: 0,
    response_capture: null,
    response_body: null,
    duration: 10,
    timing: null,
    failed: false,
    exception: null,
    pool: null,
    fake: false,
    origin: { file: 'app.js', line: 1, chain: [] },
    ...over,
  } as HttpRow;
}

const captureOf = (rows: HttpRow[]) => ({ sections: { http: rows } }) as unknown as Capture;

test('N+1 at the configured count, not below', () => {
  const loop = (n: number) =>
    Array.from({ length: n }, (_, i) => row({ url: `http://api.test/items/${i}`, time: i * 20, origin: { file: 'app.js', line: 7, chain: [] } }));
  assert.deepEqual(
    findingsOf(captureOf(loop(4))).map((f) => f.kind),
    [],
  );
  const [found] = findingsOf(captureOf(loop(5)));
  assert.equal(found?.kind, 'n_plus_one');
  assert.deepEqual(found?.rows, [0, 1, 2, 3, 4]);
  assert.deepEqual(found?.lines, ['app.js:7']);
  assert.equal(findingsOf(captureOf(loop(4)), { nPlusOne: 3 })[0]?.kind, 'n_plus_one');
});

test('sequential calls: independent ones are found with their saving; one that uses an earlier answer is not', () => {
  const a = row({
    url: 'http://api.test/user',
    time: 0,
    duration: 30,
    response_capture: { capture: 'JsonCapture', cards: { id: 'u-12345678', plan: 'pro' }, raw: null },
  });
  const b = row({ url: 'http://api.test/flags', time: 31, duration: 20, origin: { file: 'app.js', line: 2, chain: [] } });
  const [found] = findingsOf(captureOf([a, b]));
  assert.equal(found?.kind, 'sequential');
  assert.equal(found?.saving_ms, 20);
  assert.deepEqual(found?.lines, ['app.js:1', 'app.js:2']);
  const uses = row({ url: 'http://api.test/orders?user=u-12345678', time: 31 });
  assert.deepEqual(findingsOf(captureOf([a, uses])), []);
  const parallel = row({ url: 'http://api.test/flags', time: 5 });
  assert.deepEqual(findingsOf(captureOf([a, parallel])), [], 'calls that overlapped already ran together');
});

test('duplicate and retry are told apart: a failed call then the same call is a retry, two answered ones a duplicate', () => {
  const failed = row({ url: 'http://api.test/pay', method: 'POST', request_payload: { amount: 5 }, time: 0, status: 503, failed: true });
  const retried = row({ url: 'http://api.test/pay', method: 'POST', request_payload: { amount: 5 }, time: 20 });
  const kinds = findingsOf(captureOf([failed, retried])).map((f) => f.kind);
  assert.deepEqual(kinds, ['retry']);
  const again = row({ url: 'http://api.test/pay', method: 'POST', request_payload: { amount: 5 }, time: 40 });
  assert.deepEqual(
    findingsOf(captureOf([failed, retried, again])).map((f) => [f.kind, f.rows]),
    [
      ['repeated_write', [1, 2]],
      ['retry', [0, 1]],
    ],
    'a POST made again after it succeeded is a repeated write, listed first',
  );
  const otherBody = row({ url: 'http://api.test/pay', method: 'POST', request_payload: { amount: 6 }, time: 40 });
  assert.deepEqual(findingsOf(captureOf([retried, otherBody])), []);
});

test('slow: much slower than the endpoint p95 across stored captures, with enough calls to know', () => {
  const usual = Array.from({ length: 20 }, (_, i) => row({ url: 'http://api.test/search', time: i * 20, duration: 10 + (i % 3) }));
  const stats = endpointStats([durationsByEndpoint(usual)]);
  const slow = row({ url: 'http://api.test/search', time: 0, duration: 400 });
  const [found] = findingsOf(captureOf([slow]), undefined, stats);
  assert.equal(found?.kind, 'slow');
  assert.match(found!.message, /p95/);
  assert.deepEqual(findingsOf(captureOf([slow]), undefined, endpointStats([durationsByEndpoint(usual.slice(0, 2))])), [], 'too few calls to judge');
});

test('endpoint templates: one call site varying one segment is one endpoint; answers of different shapes, or the first segment, stay apart', () => {
  const site = { file: 'app.js', line: 3, chain: ['app.js:3 get', 'app.js:9 load'] };
  const cards = (value: unknown) => ({ capture: 'JsonCapture', cards: value, raw: null });
  const loop = ['Zx-9', 'hello.world', 'ümlaut'].map((id, i) =>
    row({ url: `http://api.test/things/${encodeURIComponent(id)}`, time: i * 10, origin: site, response_capture: cards({ id, size: i }) }),
  );
  assert.deepEqual(new Set(templateEndpoints(loop)), new Set(['GET http://api.test/things/{id}']));
  const resources = ['config', 'profile'].map((name, i) =>
    row({ url: `http://api.test/me/${name}`, time: i * 10, origin: site, response_capture: cards(i ? { name: 'ada' } : { theme: 'dark' }) }),
  );
  assert.deepEqual(templateEndpoints(resources), ['GET http://api.test/me/config', 'GET http://api.test/me/profile'], 'answers of different shapes');
  const top = ['config', 'profile'].map((name, i) => row({ url: `http://api.test/${name}`, time: i * 10, origin: site, response_capture: cards({ ok: 1 }) }));
  assert.deepEqual(templateEndpoints(top), ['GET http://api.test/config', 'GET http://api.test/profile'], 'the first segment is never an id');
});

test('dependence: a value too short proves nothing (page=1 after an answer holding 1); polling is no duplicate', () => {
  const a = row({ url: 'http://api.test/user', time: 0, duration: 30, response_capture: { capture: 'JsonCapture', cards: { id: 1, n: 12 }, raw: null } });
  const b = row({ url: 'http://api.test/feed?page=1', time: 31, duration: 30, origin: { file: 'app.js', line: 2, chain: [] } });
  assert.deepEqual(
    findingsOf(captureOf([a, b])).map((f) => f.kind),
    ['sequential'],
  );
  const poll = (state: string, i: number) =>
    row({
      url: 'http://api.test/jobs/7',
      time: i * 100,
      duration: 30,
      response_capture: { capture: 'JsonCapture', cards: { state }, raw: JSON.stringify({ state }) },
    });
  // Named as polling (listed only with every finding), never a duplicate nor an N+1.
  assert.deepEqual(
    findingsOf(captureOf([poll('running', 0), poll('running', 1), poll('done', 2)])).map((f) => [f.kind, f.below_floor]),
    [['polling', true]],
  );
});

test('a pool that keeps two calls in flight is not sequential; findings under the floor are marked, not dropped', () => {
  const calls = [0, 0, 40, 40].map((time, i) => row({ url: `http://api.test/r${i}`, time, duration: 40, origin: { file: 'app.js', line: 10 + i, chain: [] } }));
  assert.deepEqual(findingsOf(captureOf(calls)), []);
  const quick = [0, 3].map((time, i) => row({ url: `http://api.test/q${i}`, time, duration: 2, origin: { file: 'app.js', line: 20 + i, chain: [] } }));
  const [found] = findingsOf({ ...captureOf(quick), duration: 10 } as Capture);
  assert.equal(found?.kind, 'sequential');
  assert.equal(found?.below_floor, true);
  assert.deepEqual(found?.cost, { ms: 2, calls: 0, bytes: 0 });
});

test('template evidence merged capture by capture teaches what all the rows together teach', () => {
  // Call sites of every kind: one segment varying across captures only, two segments varying, answers of two shapes,
  // one call alone; each capture gets some of each site's rows, in any split.
  const site = (line: number) => ({ file: 'app.js', line, chain: [`app.js:${line} load`] });
  const shaped = (keys: string[]) => ({ cards: Object.fromEntries(keys.map((key) => [key, 1])) }) as HttpRow['response_capture'];
  const rows: HttpRow[] = [
    ...['a-x', 'b-y', 'c-z', 'd-w'].map((id, i) => row({ url: `http://api.test/parts/${id}`, time: i, origin: site(3) })),
    ...['1x/a', '2y/b', '3z/b'].map((path, i) => row({ url: `http://api.test/bins/${path}`, time: 10 + i, origin: site(4) })),
    ...[
      ['config', ['theme']],
      ['profile', ['name']],
    ].map(([slug, keys], i) =>
      row({ url: `http://api.test/pages/${slug as string}`, time: 20 + i, origin: site(5), response_capture: shaped(keys as string[]) }),
    ),
    row({ url: 'http://api.test/once/only-1', time: 30, origin: site(6) }),
  ];
  const together = learnTemplates(templateEvidence(rows));
  assert.deepEqual([...together.templates].sort(), ['GET http://api.test/parts/{id}']);
  for (const sizes of [
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [3, 4, 3],
    [5, 5],
  ]) {
    const merged: TemplateEvidence = new Map();
    let at = 0;
    for (const size of sizes) {
      mergeTemplateEvidence(merged, templateEvidence(rows.slice(at, at + size)));
      at += size;
    }
    assert.deepEqual(learnTemplates(merged), together, sizes.join('+'));
  }
  // Folding an endpoint already folded within its capture gives the same template.
  assert.equal(foldEndpoint(together, 'GET http://api.test/parts/{id}'), 'GET http://api.test/parts/{id}');
  assert.equal(foldEndpoint(together, 'GET http://api.test/parts/e-v'), 'GET http://api.test/parts/{id}');
  assert.equal(foldEndpoint(together, 'GET http://api.test/once/only-1'), 'GET http://api.test/once/only-1');
});

test('polling: the same read, one after another, answers changing; not when calls overlap or a write explains the change', () => {
  const answer = (state: string) => ({ cards: { state } }) as HttpRow['response_capture'];
  const poll = (times: number[], states: string[], duration = 10) =>
    times.map((time, i) => row({ url: 'http://api.test/jobs/7', time, duration, response_capture: answer(states[i]!), response_bytes: states[i]!.length }));
  const kinds = (rows: HttpRow[]) => findingsOf(captureOf(rows)).map((f) => [f.kind, f.below_floor === true]);
  const [named] = findingsOf(captureOf(poll([0, 50, 100, 150], ['run', 'run', 'run', 'done'])));
  assert.equal(named?.kind, 'polling');
  assert.equal(named?.below_floor, true, 'a pattern named, nothing to save: listed only with every finding');
  assert.match(named!.message, /asked 4 times, one after another every 50 ms on average, its answer changing 1 time/);
  assert.deepEqual(kinds(poll([0, 50], ['run', 'done'])), [], 'two reads are not a loop');
  assert.equal(kinds(poll([0, 9.9, 19.8], ['a', 'b', 'c']))[0]?.[0], 'polling', 'back to back, times rounded: still one after another');
  assert.deepEqual(kinds(poll([0, 5, 10], ['a', 'b', 'c'])), [], 'calls in flight together are not one waiting for the other');
  assert.deepEqual(kinds(poll([0, 50, 100], ['run', 'run', 'run'])), [['duplicate', false]], 'the same answer each time is a duplicate');
  const written = [...poll([0, 50, 100], ['1', '2', '3']), row({ method: 'POST', url: 'http://api.test/jobs', time: 30, duration: 5 })];
  assert.ok(!kinds(written).some(([kind]) => kind === 'polling'), 'a write in between explains the change');
});
