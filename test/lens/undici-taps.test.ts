import { it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { HttpRow } from '../../src/capture/types';
import { REPO_ROOT, TestApp, lastJsonLine } from '../helpers/app';

// undici's request class is observed once, on its prototype (body bytes, protocol switch): the ledger lists it
// while Probe runs, shutdown() puts undici's own methods back, and a request Probe does not follow (made before
// it started, after it stopped) goes through the observer untouched.
const SCRIPT = `
const http = require('node:http');
const diagnostics = require('node:diagnostics_channel');
let proto = null;
diagnostics.subscribe('undici:request:create', ({ request }) => { proto ??= Object.getPrototypeOf(request); });
const names = ['onBodySent', 'onData', 'onResponseData', 'onUpgrade'];
const methods = () => Object.fromEntries(names.map((name) => [name, proto?.[name]]));
const server = http.createServer((req, res) => {
  let size = 0;
  req.on('data', (chunk) => (size += chunk.length));
  req.on('end', () => res.end('got ' + size));
});
server.listen(0, '127.0.0.1', async () => {
  const url = 'http://127.0.0.1:' + server.address().port + '/echo';
  const call = async () => (await fetch(url, { method: 'POST', body: 'x'.repeat(300) })).text();
  const answers = [await call()];
  const before = methods();
  const { start } = require('probe');
  const probe = start();
  const { patches } = require(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'util', 'patches.js'))});
  answers.push(await call());
  const during = methods();
  const listed = patches().map((p) => p.target).filter((target) => target.startsWith('undici request'));
  await probe.shutdown();
  const after = methods();
  answers.push(await call());
  server.close();
  const changed = names.filter((name) => before[name] !== during[name]);
  const notRestored = names.filter((name) => before[name] !== after[name]);
  console.log(JSON.stringify({ answers, changed, notRestored, listed, kinds: names.filter((name) => typeof before[name] === 'function') }));
});
`;

it("undici's request handler methods are observed on their class while Probe runs and undici's own again after shutdown()", async () => {
  const app = new TestApp({ 'main.js': SCRIPT });
  const result = await app.run('main.js', { preload: 'none' });
  assert.equal(result.code, 0, result.stderr);
  const out = lastJsonLine<{
    answers: string[];
    changed: string[];
    notRestored: string[];
    listed: string[];
    kinds: string[];
  }>(result.stdout);
  // The app's answers are the server's, before, while and after Probe runs.
  assert.deepEqual(out.answers, ['got 300', 'got 300', 'got 300']);
  // The methods undici's class has for a request body, the response body (onData, renamed onResponseData in
  // undici 8) and a protocol switch (undici 8 reports it elsewhere) are the ones observed.
  const expected = ['onBodySent', out.kinds.includes('onData') ? 'onData' : 'onResponseData', ...(out.kinds.includes('onUpgrade') ? ['onUpgrade'] : [])];
  assert.deepEqual(out.changed, expected, JSON.stringify(out));
  assert.deepEqual(out.listed.sort(), out.changed.map((name) => `undici request ${name}`).sort());
  assert.deepEqual(out.notRestored, []);
  // The one call made while Probe ran is its row, both bodies counted through the observed methods.
  const capture = app.captures().find((c) => c.type === 'command');
  const rows = ((capture?.sections.http ?? []) as HttpRow[]).filter((row) => row.url.endsWith('/echo'));
  assert.equal(rows.length, 1, JSON.stringify(capture?.sections.http));
  assert.equal(rows[0]!.request_bytes, 300, JSON.stringify(rows[0]));
  assert.equal(rows[0]!.response_bytes, Buffer.byteLength(out.answers[1]!));
});
