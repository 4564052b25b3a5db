import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { TestApp } from '../helpers/app';
import { maskUrlPasswords } from '../../src/mask/urlPasswords';

// People keep credentials in URLs (database URLs in a config body, a callback in a query value, a fetch to
// http://user:pass@host/): wherever such a URL is recorded, its password is masked and its user kept.

const SECRETS = ['DbPass55x', 'QueryPw77', 'TextPw88', 'GqlPw99', 'PwdVal11', 'PasswdVal22', 'UrlPass3k', 'NamePw44'];

const APP = `
const { job } = require('probe');
const base = process.env.BASE;
const json = { 'content-type': 'application/json' };
job('sync postgres://ops:NamePw44@db/app', async () => {
  await (await fetch(base + '/json', { method: 'POST', headers: json, body: JSON.stringify({ database_url: 'x', config: { db: 'postgres://dbuser:DbPass55x@db:5432/app' } }) })).text();
  await (await fetch(base + '/q?db=postgres://quser:QueryPw77@db/app&enc=' + encodeURIComponent('mysql://euser:QueryPw77@h/x'))).text();
  await (await fetch(base + '/text', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'connect with redis://tuser:TextPw88@cache:6379 now' })).text();
  await (await fetch(base + '/graphql', { method: 'POST', headers: json, body: JSON.stringify({ query: 'mutation($pw: String!) { login(pw: $pw) }', variables: { pw: 'GqlPw99', pwd: 'PwdVal11', passwd: 'PasswdVal22' } }) })).text();
  try { await fetch('http://alice:UrlPass3k@127.0.0.1:' + new URL(base).port + '/creds'); } catch (error) { console.log('caught', error.constructor.name); }
});
`;

function startServer(): Promise<{ base: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/json' ? '{"echo":"postgres://dbuser:DbPass55x@db:5432/app"}' : '{"ok":true}');
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

describe('maskUrlPasswords', () => {
  test('masks the password, keeps the user, plain and percent-encoded; leaves other text alone', () => {
    assert.equal(maskUrlPasswords('{"db":"postgres://u:p4ss@h:5432/x"}'), '{"db":"postgres://u:********@h:5432/x"}');
    assert.equal(maskUrlPasswords('a=postgres%3A%2F%2Fu%3Ap4ss%40h%2Fx&b=1'), 'a=postgres%3A%2F%2Fu%3A********%40h%2Fx&b=1');
    assert.equal(maskUrlPasswords('http://user@h/ and http://h/a:b@c and mailto:a@b'), 'http://user@h/ and http://h/a:b@c and mailto:a@b');
    assert.equal(maskUrlPasswords('x://a:b@c y://d:e@f'), 'x://a:********@c y://d:********@f');
  });

  test('linear: steps stay within a few passes over the text, however it is built', () => {
    for (const text of [
      '://'.repeat(50_000),
      `${'a:'.repeat(50_000)}`,
      `http://${'a:'.repeat(50_000)}`,
      '%3a%2f%2f'.repeat(20_000),
      `x://${'@'.repeat(100_000)}`,
    ]) {
      const stats = { steps: 0 };
      maskUrlPasswords(text, stats);
      assert.ok(stats.steps <= 2 * text.length, `${stats.steps} steps for ${text.length} characters`);
    }
  });
});

describe('credentials in URLs are masked wherever they are recorded', { timeout: 180_000 }, () => {
  const app = new TestApp({ 'app.cjs': APP, 'probe.config.json': JSON.stringify({ lenses: { HttpClientLens: { bodies: true } } }) });
  let close: () => Promise<void>;
  let stored: string;
  before(async () => {
    const server = await startServer();
    close = server.close;
    const run = await app.run('app.cjs', { env: { BASE: server.base } });
    assert.equal(run.code, 0, run.stderr);
    const dir = path.join(app.dir, '.probe', 'captures');
    stored = readdirSync(dir)
      .map((name) => readFileSync(path.join(dir, name), 'utf8'))
      .join('\n');
  });
  after(() => close());

  test('the store: bodies, query values, text, GraphQL variables, the exception, the summary, the name', () => {
    for (const secret of SECRETS) assert.ok(!stored.includes(secret), `${secret} is stored in clear`);
    for (const user of ['dbuser:', 'quser:', 'euser%3A', 'tuser:', 'alice:', 'ops:']) assert.ok(stored.includes(user), `${user} kept`);
    assert.match(stored, /includes credentials/, 'the exception is recorded');
  });

  test('HAR, MSW, nock, undici snapshot and the CLI say no password either', async () => {
    for (const args of [
      ['export', '--har'],
      ['export', '*', '--msw'],
      ['export', '*', '--nock'],
      ['export', '*', '--undici-snapshot'],
      ['list'],
      ['show'],
      ['rows', '--since', '1d', '--fields', 'url,request_body,exception.message'],
    ]) {
      const run = await app.cli(args);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
      for (const secret of SECRETS) assert.ok(!(run.stdout + run.stderr).includes(secret), `probe ${args.join(' ')} shows ${secret}`);
    }
  });
});
