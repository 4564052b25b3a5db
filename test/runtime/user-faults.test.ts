import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TestApp } from '../helpers/app';

// A mask, a response capture class and a store written by a user, each throwing (the store also rejecting):
// the app must get the same responses and exit code as without Probe, and nothing unhandled.

let upstream: http.Server;
let base: string;

before(async () => {
  upstream = http.createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.setHeader('x-session', 'server-secret');
    response.end(JSON.stringify({ path: request.url, session: request.headers['x-session'] ?? null }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

const CONFIG = `import { appendFileSync } from 'node:fs';
const note = (what) => appendFileSync(new URL('./faults.log', import.meta.url), what + '\\n');

class ThrowingMask {
  // Its error quotes the value: Probe must not print it.
  mask(value) { note('mask'); throw new Error('cannot mask ' + value); }
}
class ThrowingCapture {
  capture() { note('capture'); throw new Error('capture failed'); }
}
let puts = 0;
const store = {
  // Every other put throws synchronously; the others reject.
  put() {
    note('put');
    if (++puts % 2) throw new Error('put threw');
    return Promise.reject(new Error('put rejected'));
  },
  find: async () => null,
  index: async () => [],
  clear: async () => {},
};

export default {
  storage: { driver: 'faulty' },
  mask: { headers: { 'x-session': ThrowingMask } },
  lenses: { HttpClientLens: { capture: { response_types: { 'application/json': ThrowingCapture } } } },
  register(probe) { probe.extendStore('faulty', () => store); },
};
`;

const APP = `const http = require('node:http');
const { job } = require('probe');
process.on('unhandledRejection', (error) => console.log('UNHANDLED REJECTION', error && error.message));
process.on('uncaughtException', (error) => { console.log('UNCAUGHT', error && error.message); process.exit(9); });

function get(url) {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { 'x-session': 'client-secret' } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, type: response.headers['content-type'], session: response.headers['x-session'], body }));
    }).on('error', reject);
  });
}

async function viaFetch(url) {
  const response = await fetch(url, { headers: { 'x-session': 'client-secret' } });
  return { status: response.status, type: response.headers.get('content-type'), session: response.headers.get('x-session'), body: await response.text() };
}

(async () => {
  for (const name of ['first', 'second', 'third']) {
    console.log(JSON.stringify(await job(name, async () => [await get(process.env.UPSTREAM + '/' + name), await viaFetch(process.env.UPSTREAM + '/' + name + '?via=fetch')])));
  }
  console.log(JSON.stringify(await viaFetch(process.env.UPSTREAM + '/last')));
  process.exitCode = 3;
})();
`;

test('a mask, a capture class and a store that throw or reject leave the app untouched', async () => {
  const app = new TestApp({ 'probe.config.mjs': CONFIG, 'app.js': APP }, 'user-faults');
  const env = { UPSTREAM: base };
  const without = await app.run('app.js', { preload: 'none', env });
  const withProbe = await app.run('app.js', { env });

  assert.equal(without.code, 3, without.stderr);
  assert.equal(withProbe.code, without.code, withProbe.stderr);
  assert.equal(withProbe.stdout, without.stdout);
  assert.doesNotMatch(withProbe.stdout, /UNHANDLED|UNCAUGHT/);
  assert.equal(without.stderr, '');

  // Probe really ran each user part, and they really failed.
  const log = readFileSync(path.join(app.dir, 'faults.log'), 'utf8').trim().split('\n');
  assert.deepEqual([...new Set(log)].sort(), ['capture', 'mask', 'put']);
  assert.ok(log.filter((what) => what === 'put').length >= 2, 'both a put that throws and one that rejects');

  // Probe's stderr: each part's fault said once, naming its setting; never the secret the mask was given.
  const lines = withProbe.stderr.trim().split('\n').filter(Boolean);
  assert.ok(
    lines.every((line) => line.startsWith('[probe] ')),
    withProbe.stderr,
  );
  assert.equal(lines.length, 4, withProbe.stderr);
  assert.equal(lines.filter((line) => line.includes('mask.headers.x-session: the mask threw')).length, 1, withProbe.stderr);
  assert.equal(lines.filter((line) => line.includes("response_types['application/json']: ThrowingCapture.capture() threw")).length, 1, withProbe.stderr);
  assert.equal(lines.filter((line) => /could not store a capture: put (threw|rejected)/.test(line)).length, 1, withProbe.stderr);
  // What the failing store cost, said at exit (it never answered again): the three jobs and the command.
  assert.equal(lines.filter((line) => /^\[probe\] 4 capture\(s\) were lost while the faulty store failed/.test(line)).length, 1, withProbe.stderr);
  assert.doesNotMatch(withProbe.stderr, /client-secret|server-secret/);
});
