import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';
import { ProbeConfigError } from '../../src/config/ProbeConfigError';
import { PartialMask } from '../../src/mask/PartialMask';
import { TestApp } from '../helpers/app';
import type { ProbeConfig } from '../../src/config/types';

const resolve = (file: ProbeConfig, env: NodeJS.ProcessEnv = {}) => resolveConfig({ root: '/app', configFile: null, file, env });

test('defaults follow SPEC 4', () => {
  const config = resolve({});
  assert.equal(config.enabled, true);
  assert.equal(config.storage.driver, 'file');
  assert.equal(config.storage.limit, 200);
  assert.equal(config.storage.file.path, '/app/.probe/captures');
  assert.equal(config.storage.redis.url, 'redis://127.0.0.1:6379');
  assert.equal(config.storage.redis.prefix, 'probe:');
  assert.equal(config.storage.redis.ttl, 86400);
  assert.equal(config.http!.bodies, false);
  assert.equal(config.http!.max_body_bytes, 1048576);
  assert.equal(config.http!.max_rows, 1000);
  assert.deepEqual(
    config.http!.response_types.map((t) => [t.pattern, t.capture.name]),
    [
      ['application/json', 'JsonCapture'],
      ['application/*+json', 'JsonCapture'],
      ['text/event-stream', 'EventStreamCapture'],
    ],
  );
  assert.equal(config.origin.enabled, true);
  assert.deepEqual(config.except, []);
  for (const header of [
    'authorization',
    'proxy-authorization',
    'cookie',
    'set-cookie',
    'x-api-key',
    'api-key',
    'x-auth-token',
    'x-goog-api-key',
    'x-amz-security-token',
    'x-csrf-token',
    'x-xsrf-token',
  ]) {
    assert.equal(config.masker.headers({ [header]: 'v' })[header], '********');
  }
  for (const name of ['password', 'secret', 'token', 'api_key', 'access_token', 'refresh_token', 'client_secret', 'credit_card']) {
    assert.ok(config.masker.isSecretName(name), name);
  }
  assert.ok(Object.isFrozen(config) && Object.isFrozen(config.storage));
});

test('environment overrides the file', () => {
  const config = resolve(
    { enabled: true, storage: { driver: 'file' } },
    { PROBE_ENABLED: 'false', PROBE_STORAGE: 'cache', REDIS_URL: 'redis://10.0.0.9:6380' },
  );
  assert.equal(config.enabled, false);
  assert.equal(config.storage.driver, 'redis', 'cache is an alias of redis');
  assert.equal(config.storage.redis.url, 'redis://10.0.0.9:6380');
});

test('per-lens masks and custom masks', () => {
  const config = resolve({
    mask: {
      headers: { 'x-session': PartialMask, cookie: false, HttpClientLens: { 'x-lens-only': 'FullMask' } },
      inputs: ['^pin$', { HttpClientLens: ['ssn'] }],
    },
  });
  assert.equal(config.masker.headers({ 'X-Session': 'abcdefghijkl' })['x-session'], '********ijkl');
  assert.equal(config.masker.headers({ cookie: 'a=1' }).cookie, 'a=1');
  assert.equal(config.masker.headers({ 'x-lens-only': 'v' })['x-lens-only'], 'v');
  assert.equal(config.http!.masker.headers({ 'x-lens-only': 'v' })['x-lens-only'], '********');
  assert.ok(config.masker.isSecretName('pin') && !config.masker.isSecretName('ssn'));
  assert.ok(config.http!.masker.isSecretName('ssn'));
  const custom = resolve({ mask: { headers: { 'x-upper': { mask: (v: string) => v.toUpperCase() } } } });
  assert.equal(custom.masker.headers({ 'x-upper': 'abc' })['x-upper'], 'ABC');
});

const bad: Array<[string, ProbeConfig | Record<string, unknown>, string]> = [
  ['path outside .probe', { storage: { file: { path: '../elsewhere' } } }, 'storage.file.path'],
  ['malformed regex, named by its place in the user list', { mask: { inputs: ['^pin$', '(unclosed'] } }, 'mask.inputs[1]'],
  ['limit not a number', { storage: { limit: 'many' } }, 'storage.limit'],
  ['unknown mask', { mask: { headers: { authorization: 'HalfMask' } } }, 'mask.headers.authorization'],
  ['unknown setting', { storage_driver: 'file' }, 'storage_driver'],
  ['unknown lens option', { lenses: { HttpClientLens: { bodys: true } } }, 'lenses.HttpClientLens.bodys'],
  [
    'capture without a capture method',
    { lenses: { HttpClientLens: { capture: { response_types: { 'text/*': class Nope {} } } } } },
    "lenses.HttpClientLens.capture.response_types['text/*']",
  ],
  ['bad redis url', { storage: { redis: { url: 'http://x' } } }, 'storage.redis.url'],
  ['N+1 count below 2', { findings: { n_plus_one: 1 } }, 'findings.n_plus_one'],
  ['N+1 count not whole', { findings: { n_plus_one: 2.5 } }, 'findings.n_plus_one'],
  ['unknown findings setting', { findings: { n_plus_two: 3 } }, 'findings.n_plus_two'],
];

test('findings.n_plus_one: 5 by default, as set otherwise', () => {
  assert.equal(resolve({}).findings.nPlusOne, 5);
  assert.equal(resolve({ findings: { n_plus_one: 3 } }).findings.nPlusOne, 3);
});
for (const [what, file, setting] of bad) {
  test(`bad config names the setting: ${what}`, () => {
    assert.throws(
      () => resolve(file as ProbeConfig),
      (error: unknown) => error instanceof ProbeConfigError && error.setting === setting && error.message.startsWith(setting),
    );
  });
}

test('a broken config prints one line and the app runs unrecorded; the CLI says the same', async () => {
  const app = new TestApp({
    'probe.config.mjs': `export default { storage: { driver: 'nosuch' } };`,
    'run.js': `console.log('app ran');`,
  });
  const run = await app.run('run.js');
  assert.equal(run.code, 0);
  assert.equal(run.stdout.trim(), 'app ran');
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /storage\.driver: unknown driver "nosuch"/);
  assert.equal(app.captures().length, 0);
  const cli = await app.cli(['clear']);
  assert.equal(cli.code, 2);
  assert.match(cli.stderr, /storage\.driver: unknown driver "nosuch"/);
});

test('an unreadable config file is named', async () => {
  const app = new TestApp({ 'probe.config.json': '{ not json', 'run.js': `console.log('ok');` });
  const run = await app.run('run.js');
  assert.equal(run.stdout.trim(), 'ok');
  assert.match(run.stderr, /probe\.config\.json: invalid JSON/);
});

test('enabled: false installs nothing', async () => {
  const probeMarks = `const http = require('node:http');
console.log(JSON.stringify({ http: Boolean(http.request.__wrapped), fetch: Boolean(fetch[Symbol.for('probe.fetch.original')]) }));`;
  const on = new TestApp({ 'run.js': probeMarks });
  assert.deepEqual(JSON.parse((await on.run('run.js')).stdout), { http: true, fetch: true }, 'the check sees an installed Probe');
  const off = new TestApp({ 'probe.config.json': JSON.stringify({ enabled: false }), 'run.js': probeMarks });
  assert.deepEqual(JSON.parse((await off.run('run.js')).stdout), { http: false, fetch: false });
  const env = new TestApp({ 'run.js': probeMarks });
  assert.deepEqual(JSON.parse((await env.run('run.js', { env: { PROBE_ENABLED: '0' } })).stdout), { http: false, fetch: false });
  assert.equal(off.captures().length + env.captures().length, 0);
});
