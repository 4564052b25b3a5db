import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HttpRow } from '../../src/capture/types';
import type { EventStreamCards } from '../../src/response/EventStreamCapture';
import { TestApp, type RunResult } from '../helpers/app';
import { resolveConfig } from '../../src/config/resolve';
import { startSseServer, type SseServer } from './sse-server';

// A real app under the preload reads real SSE streams with fetch and node:http, hashing every byte it gets.
const APP = `
const http = require('node:http');
const { createHash } = require('node:crypto');
const U = process.env.SSE;
const sha = (b) => createHash('sha256').update(b).digest('hex');
const report = (tag, b) => console.log(JSON.stringify({ tag, sha: sha(b), bytes: b.length }));

async function viaFetch(route, tag) {
  const r = await fetch(U + route + '?c=' + tag);
  const chunks = [];
  for await (const c of r.body) chunks.push(Buffer.from(c));
  report(tag, Buffer.concat(chunks));
}
function viaHttp(route, tag) {
  return new Promise((resolve, reject) => http.get(U + route + '?c=' + tag, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => { report(tag, Buffer.concat(chunks)); resolve(); });
  }).on('error', reject));
}
// Reads up to the first event, then asks the server for the second: the server sends it only then.
async function pacedFetch(k) {
  const r = await fetch(U + '/paced?k=' + k);
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let text = '';
  while (!text.includes('\\n\\n')) { const { value, done } = await reader.read(); if (done) break; text += dec.decode(value, { stream: true }); }
  const firstRead = text;
  await (await fetch(U + '/release?k=' + k)).text();
  for (;;) { const { value, done } = await reader.read(); if (done) break; text += dec.decode(value, { stream: true }); }
  console.log(JSON.stringify({ tag: k, firstRead, all: text }));
}
function pacedHttp(k) {
  return new Promise((resolve, reject) => http.get(U + '/paced?k=' + k, (res) => {
    let text = '', firstRead = null;
    res.setEncoding('utf8');
    res.on('data', (c) => {
      text += c;
      if (firstRead === null && text.includes('\\n\\n')) { firstRead = text; http.get(U + '/release?k=' + k, (r) => r.resume()); }
    });
    res.on('end', () => { console.log(JSON.stringify({ tag: k, firstRead, all: text })); resolve(); });
  }).on('error', reject));
}

async function main() {
  const only = process.env.ONLY;
  if (only === 'long') return Promise.all([viaFetch('/long', 'long-fetch'), viaHttp('/long', 'long-http')]);
  for (const route of ['/openai', '/anthropic', '/hostile']) {
    await viaFetch(route, route.slice(1) + '-fetch');
    await viaHttp(route, route.slice(1) + '-http');
  }
  await pacedFetch('paced-fetch');
  await pacedHttp('paced-http');
}
main().catch((e) => { console.error('app failed', e); process.exitCode = 1; });
`;

/** A value as the default masker shows it (which names count as secrets is the masker's own tests' concern). */
const asMasked = (value: unknown) => resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }).http!.masker.maskValue(value);

const FIRST = 'event: first\ndata: {"n":1}\n\n';
const ALL = FIRST + 'event: second\ndata: {"n":2}\n\n';

function rowsOf(app: TestApp): HttpRow[] {
  const capture = app.captures().find((c) => c.type === 'command');
  return (capture?.sections.http ?? []) as HttpRow[];
}

function rowFor(rows: HttpRow[], tag: string): HttpRow {
  const found = rows.filter((row) => {
    const params = new URL(row.url).searchParams;
    return params.get('c') === tag || (params.get('k') === tag && new URL(row.url).pathname === '/paced');
  });
  assert.equal(found.length, 1, `one row for ${tag}: ${rows.map((r) => r.url).join(', ')}`);
  return found[0]!;
}

function cardsOf(row: HttpRow): EventStreamCards {
  assert.equal(row.response_capture?.capture, 'EventStreamCapture', `${row.url} has an EventStreamCapture`);
  return row.response_capture!.cards as EventStreamCards;
}

function lines(result: RunResult): Array<Record<string, unknown>> {
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('text/event-stream responses (real loopback SSE server, real app under the preload)', () => {
  let sse: SseServer;
  let app: TestApp;
  let withProbe: RunResult;
  let without: RunResult;
  let rows: HttpRow[];

  before(async () => {
    sse = await startSseServer();
    app = new TestApp({ 'app.js': APP });
    const env = { SSE: sse.url };
    without = await app.run('app.js', { preload: 'none', env });
    // Room for the paced server's 15 s stall fallback.
    withProbe = await app.run('app.js', { env });
    rows = rowsOf(app);
  });

  after(async () => {
    await sse?.close();
  });

  it('the app gets the same bytes with Probe as without, and every stream whole', () => {
    assert.equal(withProbe.code, 0, withProbe.stderr);
    assert.equal(without.code, 0, without.stderr);
    assert.equal(withProbe.stderr, without.stderr);
    assert.deepEqual(lines(withProbe), lines(without));
    for (const line of lines(withProbe).filter((l) => 'sha' in l)) {
      const route = `/${String(line.tag).replace(/-(fetch|http)$/, '')}`;
      assert.deepEqual({ sha256: line.sha, bytes: line.bytes }, sse.sent(route), `${String(line.tag)} byte for byte`);
    }
  });

  it('streams reach the app event by event: the first event is read before the server sends the second', () => {
    for (const tag of ['paced-fetch', 'paced-http']) {
      const line = lines(withProbe).find((l) => l.tag === tag)!;
      assert.equal(line.firstRead, FIRST, `${tag}: the first read held the first event alone`);
      assert.equal(line.all, ALL);
      assert.ok(sse.releasedByClient.has(tag), `${tag}: the second event was sent because the app asked, after reading the first`);
      const cards = cardsOf(rowFor(rows, tag));
      assert.equal(cards.count, 2);
      assert.deepEqual(cards.events, [
        { event: 'first', data: { n: 1 } },
        { event: 'second', data: { n: 2 } },
      ]);
    }
  });

  it('an OpenAI-style chat.completion.chunk stream: events, count, assembled text and usage', () => {
    for (const tag of ['openai-fetch', 'openai-http']) {
      const row = rowFor(rows, tag);
      assert.equal(row.response_bytes, sse.sent('/openai').bytes);
      assert.equal(row.truncated, undefined);
      const cards = cardsOf(row);
      assert.equal(cards.count, 7);
      assert.equal(cards.style, 'openai');
      assert.equal(cards.model, 'gpt-4o-mini-2024-07-18');
      assert.equal(cards.text, 'Hello, world!');
      assert.equal(cards.stop_reason, 'stop');
      assert.deepEqual(cards.usage, asMasked({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16, prompt_tokens_details: { cached_tokens: 0 } }));
      assert.equal(cards.events[6]!.data, '[DONE]', 'data that is not JSON stays text');
      assert.equal((cards.events[1]!.data as { choices: Array<{ delta: { content: string } }> }).choices[0]!.delta.content, 'Hello');
      assert.equal(cards.events[0]!.event, undefined, 'no event field: the default type');
      // The raw body as sent, each JSON data line as the masker shows its value.
      const expectedRaw = readStream('/openai').replace(/^data: (\{.*)$/gm, (_, json: string) => `data: ${JSON.stringify(asMasked(JSON.parse(json)))}`);
      assert.equal(row.response_capture!.raw, expectedRaw);
    }
  });

  it('an Anthropic-style message_start/content_block_delta/message_delta stream', () => {
    for (const tag of ['anthropic-fetch', 'anthropic-http']) {
      const cards = cardsOf(rowFor(rows, tag));
      assert.equal(cards.count, 8);
      assert.equal(cards.style, 'anthropic');
      assert.equal(cards.model, 'claude-sonnet-4-5');
      assert.equal(cards.text, 'Bonjour le monde');
      assert.deepEqual(cards.usage, asMasked({ input_tokens: 25, output_tokens: 15 }));
      assert.equal(cards.stop_reason, 'end_turn');
      assert.deepEqual(
        cards.events.map((e) => e.event),
        ['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'],
      );
    }
  });

  it('event data is masked like inputs, in the cards and the raw body; markup stays text; CRLF, comments and multi-line data parse', () => {
    for (const tag of ['hostile-fetch', 'hostile-http']) {
      const row = rowFor(rows, tag);
      const cards = cardsOf(row);
      assert.equal(cards.count, 2, 'a comment-only block is no event');
      assert.equal(cards.style, undefined);
      assert.equal(cards.text, undefined);
      assert.deepEqual(cards.events[0], { event: 'session', id: '7', data: { token: '********', note: '<img src=x onerror="window.__pwned=true">' } });
      assert.equal(cards.events[1]!.data, 'plain <b>text</b> line one\nline two');
      assert.ok(!row.response_capture!.raw!.includes('sse-secret-token'));
      assert.ok(row.response_capture!.raw!.includes('data: {"token":"********","note":'));
      assert.ok(row.response_capture!.raw!.startsWith(': a comment line\r\n\r\nevent: session\r\nid: 7\r\n'), 'every other byte kept');
    }
    const files = readdirSync(path.join(app.dir, '.probe', 'captures')).map((name) => readFileSync(path.join(app.dir, '.probe', 'captures', name), 'utf8'));
    assert.ok(files.length > 0 && files.every((text) => !text.includes('sse-secret-token')), 'the secret is in no stored file');
  });
});

describe('a stream past max_body_bytes', () => {
  it('is kept cut: the row is truncated, the cards hold the events before the cut, the app still gets every byte', async () => {
    const sse = await startSseServer();
    try {
      const app = new TestApp({ 'app.js': APP, 'probe.config.cjs': `module.exports = { lenses: { HttpClientLens: { max_body_bytes: 1000 } } };` });
      const result = await app.run('app.js', { env: { SSE: sse.url, ONLY: 'long' } });
      assert.equal(result.code, 0, result.stderr);
      for (const line of lines(result)) assert.deepEqual({ sha256: line.sha, bytes: line.bytes }, sse.sent('/long'));
      const rows = rowsOf(app);
      for (const tag of ['long-fetch', 'long-http']) {
        const row = rowFor(rows, tag);
        assert.equal(row.truncated, true);
        assert.equal(row.response_bytes, sse.sent('/long').bytes, 'the size counts every byte');
        const cards = cardsOf(row);
        assert.equal(cards.truncated, true);
        const eventBytes = Buffer.byteLength(readStream('/long').split('\n\n')[0]! + '\n\n');
        assert.equal(cards.count, Math.floor(1000 / eventBytes), 'every event that arrived whole before the cut, and no partial one');
        assert.deepEqual(
          cards.events.map((e) => e.id),
          Array.from({ length: cards.count }, (_, i) => String(i)),
        );
        assert.ok(row.response_capture!.raw!.length <= 1000);
      }
    } finally {
      await sse.close();
    }
  });
});

function readStream(route: string): string {
  // The fixtures the server sends, joined (the server module is the single source of them).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fixtures = require('./sse-server') as typeof import('./sse-server');
  const byRoute: Record<string, () => string[]> = {
    '/openai': fixtures.openAiStream,
    '/anthropic': fixtures.anthropicStream,
    '/hostile': fixtures.hostileStream,
    '/long': () => fixtures.longStream(),
  };
  return byRoute[route]!().join('');
}
