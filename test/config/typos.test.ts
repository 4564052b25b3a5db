// Issue 16.5: a typo at any depth of the config is one line naming it and the closest valid key, in the app's
// stderr and in every CLI command; syntax errors name the line; start(overrides) merges deeply.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';
import { ProbeConfigError } from '../../src/config/ProbeConfigError';
import { closestKey } from '../../src/config/suggest';
import { TestApp } from '../helpers/app';
import type { ProbeConfig } from '../../src/config/types';
import { CONFIG_TEMPLATE } from '../../src/cli/commands/install';

const resolve = (file: unknown, env: NodeJS.ProcessEnv = {}) => resolveConfig({ root: '/app', configFile: null, file: file as ProbeConfig, env });

function rejects(file: unknown, setting: string, message: RegExp, env: NodeJS.ProcessEnv = {}): void {
  assert.throws(
    () => resolve(file, env),
    (error: unknown) => {
      assert.ok(error instanceof ProbeConfigError, String(error));
      assert.equal(error.setting, setting);
      assert.match(error.message, message);
      return true;
    },
  );
}

const typos: Array<[string, unknown, string]> = [
  ['storage.drvier', { storage: { drvier: 'redis' } }, 'storage.driver'],
  ['storage.redis.urll', { storage: { redis: { urll: 'redis://127.0.0.1:1' } } }, 'storage.redis.url'],
  ['storage.file.pth', { storage: { file: { pth: '.probe/x' } } }, 'storage.file.path'],
  ['mask.header', { mask: { header: { 'x-secret': 'FullMask' } } }, 'mask.headers'],
  ['origin.enable', { origin: { enable: false } }, 'origin.enabled'],
  ['lense', { lense: {} }, 'lenses'],
  ['lenses.HttpClientLens.bodeis', { lenses: { HttpClientLens: { bodeis: true } } }, 'lenses.HttpClientLens.bodies'],
  [
    'lenses.HttpClientLens.capture.response_type',
    { lenses: { HttpClientLens: { capture: { response_type: {} } } } },
    'lenses.HttpClientLens.capture.response_types',
  ],
  ['lenses.HttpClientLen', { lenses: { HttpClientLen: true } }, 'lenses.HttpClientLens'],
  ['mask.inputs[1].HttpClientLen', { mask: { inputs: ['pin', { HttpClientLen: ['ssn'] }] } }, 'mask.inputs[1].HttpClientLens'],
  ['sampling.rat', { sampling: { rat: 0.5 } }, 'sampling.rate'],
  ['sampling.max_per_sec', { sampling: { max_per_sec: 5 } }, 'sampling.max_per_second'],
];
for (const [setting, file, meant] of typos) {
  test(`a typo at any depth is named with the closest valid key: ${setting}`, () => {
    rejects(file, setting, new RegExp(`^${escape(setting)}: unknown setting \\(did you mean ${escape(meant)}\\?\\)$`));
  });
}

test('an unknown key with no close match lists the valid keys of its level', () => {
  rejects({ origin: { colour: 'blue' } }, 'origin.colour', /^origin\.colour: unknown setting \(valid here: enabled\)$/);
  rejects(
    { storage: { driver: 'file', colour: 'blue' } },
    'storage.colour',
    /valid here: driver, limit, test_limit, file, redis, or the settings object of a driver registered with extendStore/,
  );
});

test('closestKey: Levenshtein over the valid keys, nothing when none is close', () => {
  assert.equal(closestKey('drvier', ['driver', 'limit', 'file', 'redis']), 'driver');
  assert.equal(closestKey('URLL', ['url', 'prefix', 'ttl']), 'url');
  assert.equal(closestKey('storage_driver', ['enabled', 'storage', 'lenses']), null);
});

test('mask.inputs entries are named by their place in the user list, in every form', () => {
  rejects({ mask: { inputs: ['^pin$', '(unclosed'] } }, 'mask.inputs[1]', /malformed regex/);
  rejects({ mask: { inputs: ['^pin$', { HttpClientLens: ['ssn', '(x'] }] } }, 'mask.inputs[1].HttpClientLens[1]', /malformed regex/);
  rejects({ mask: { inputs: ['ok', 5] } }, 'mask.inputs[1]', /expected a regex string or RegExp, got 5/);
  rejects({ mask: { inputs: { '*': ['a', '[z-a]'] } } }, "mask.inputs['*'][1]", /malformed regex/);
  rejects({ mask: { inputs: { HttpClientLens: ['(y'] } } }, 'mask.inputs.HttpClientLens[0]', /malformed regex/);
  rejects({ mask: { inputs: 'password' } }, 'mask.inputs', /expected an array of patterns, got "password"/);
});

test('a glob with too many `?` (its match would not be linear) is refused, named by its place', () => {
  rejects({ except: ['GET /health', '?'.repeat(17)] }, 'except[1]', /a glob holds at most 16 `\?`/);
});

test('wrong types name the setting and the value', () => {
  rejects({ storage: { redis: { ttl: -1 } } }, 'storage.redis.ttl', /expected a whole number ≥ 1, got -1/);
  rejects({ origin: { enabled: 'no' } }, 'origin.enabled', /expected true or false, got "no"/);
  rejects({ lenses: { HttpClientLens: 'yes' } }, 'lenses.HttpClientLens', /expected true, false or an options object, got "yes"/);
  rejects({ except: ['GET /health', 7] }, 'except[1]', /expected a glob string or RegExp, got 7/);
  rejects({ register: 'setup' }, 'register', /expected a function/);
});

test('mask.headers and mask.inputs may hold a HttpClientLens key', () => {
  const config = resolve({ mask: { headers: { HttpClientLens: { 'x-lens': 'FullMask' } }, inputs: { HttpClientLens: ['ssn'] } } });
  assert.equal(config.http!.masker.headers({ 'x-lens': 'v' })['x-lens'], '********');
  assert.ok(config.http!.masker.isSecretName('ssn') && !config.masker.isSecretName('ssn'));
});

test('sampling: defaults, file, PROBE_SAMPLE_RATE, and range checks', () => {
  assert.deepEqual(resolve({}).sampling, { rate: 1, maxPerSecond: null });
  assert.deepEqual(resolve({ sampling: { rate: 0.25, max_per_second: 50 } }).sampling, { rate: 0.25, maxPerSecond: 50 });
  assert.deepEqual(resolve({ sampling: { rate: 0.25 } }, { PROBE_SAMPLE_RATE: '0.5' }).sampling, { rate: 0.5, maxPerSecond: null });
  assert.ok(Object.isFrozen(resolve({}).sampling));
  rejects({ sampling: { rate: 1.5 } }, 'sampling.rate', /expected a number from 0 to 1, got 1\.5/);
  rejects({ sampling: { max_per_second: 0 } }, 'sampling.max_per_second', /expected a positive number, got 0/);
  rejects({}, 'PROBE_SAMPLE_RATE', /expected a number from 0 to 1, got "half"/, { PROBE_SAMPLE_RATE: 'half' });
});

test('the app prints one line naming a nested typo and runs unrecorded; every CLI command prints the same line', async () => {
  const app = new TestApp({
    'probe.config.mjs': `export default { storage: { drvier: 'redis' } };\n`,
    'run.js': `fetch('http://127.0.0.1:1/').catch(() => {}).finally(() => console.log('app ran'));`,
  });
  const line = 'storage.drvier: unknown setting (did you mean storage.driver?)';
  const run = await app.run('run.js');
  assert.equal(run.stdout.trim(), 'app ran');
  assert.deepEqual(run.stderr.trim().split('\n'), [`[probe] bad configuration: ${line} (the app runs unrecorded)`]);
  assert.equal(app.captures().length, 0);
  for (const args of [['list'], ['show', 'x'], ['rows', 'x'], ['clear']]) {
    const cli = await app.cli(args);
    assert.equal(cli.code, 2, args.join(' '));
    assert.deepEqual(cli.stderr.trim().split('\n'), [`probe: bad configuration: ${line}`], args.join(' '));
  }
});

test('a syntax error in probe.config.mjs names the file and the line', async () => {
  const app = new TestApp({
    'probe.config.mjs': `export default {\n  storage: {\n    limit: 5,,\n  },\n};\n`,
    'run.js': `console.log('app ran');`,
  });
  const run = await app.run('run.js');
  assert.equal(run.stdout.trim(), 'app ran');
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /^\[probe\] bad configuration: probe\.config\.mjs: syntax error on line 3: /);
  const cli = await app.cli(['list']);
  assert.match(cli.stderr, /^probe: bad configuration: probe\.config\.mjs: syntax error on line 3: /);
  const cjs = new TestApp({ 'probe.config.cjs': `module.exports = {\n  enabled: true\n  service: 'x',\n};\n` });
  assert.match((await cjs.cli(['list'])).stderr, /probe\.config\.cjs: syntax error on line 3: /);
});

// A custom driver that appends what it was given to a file, so the test reads what start() resolved.
const SPY_CONFIG = `import { appendFileSync } from 'node:fs';
export default {
  storage: { driver: 'spy', limit: 50, spy: { colour: 'blue' } },
  register(probe) {
    probe.extendStore('spy', (app, config) => {
      appendFileSync('spy.log', JSON.stringify(config) + '\\n');
      return { put: async () => {}, find: async () => null, index: async () => [], clear: async () => {} };
    });
  },
};
`;

test('start(overrides) merges into the file config at every depth', async () => {
  const app = new TestApp({
    'probe.config.mjs': SPY_CONFIG,
    'run.js': `const probe = require('probe');
const handle = probe.start({ storage: { limit: 5, spy: { size: 'L' } } });
handle.shutdown().then(() => console.log(require('node:fs').readFileSync('spy.log', 'utf8').trim()));`,
  });
  const run = await app.run('run.js', { preload: 'none' });
  assert.equal(run.stderr, '');
  assert.deepEqual(JSON.parse(run.stdout), { colour: 'blue', size: 'L', limit: 5 }, 'the file driver would have been used with a shallow merge');
});

test('settings of a registered custom driver are accepted; a storage key naming no driver is a typo', async () => {
  const ok = new TestApp({ 'probe.config.mjs': SPY_CONFIG });
  const list = await ok.cli(['list']);
  assert.equal(list.code, 0, list.stderr);
  const typo = new TestApp({ 'probe.config.mjs': SPY_CONFIG.replace("spy: { colour: 'blue' }", "sspy: { colour: 'blue' }") });
  const cli = await typo.cli(['list']);
  assert.equal(cli.code, 2);
  assert.equal(cli.stderr.trim(), 'probe: bad configuration: storage.sspy: unknown setting (did you mean storage.spy?)');
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test('a config with nothing set (the probe install template) does not load the schema at start', async () => {
  const zodLoaded = `console.log(Object.keys(require.cache).some((file) => file.includes('/zod/')));\n`;
  const template = new TestApp({ 'probe.config.mjs': CONFIG_TEMPLATE, 'run.js': zodLoaded });
  assert.equal((await template.run('run.js')).stdout.trim(), 'false');
  const set = new TestApp({ 'probe.config.mjs': `export default { except: ['**/health'] };\n`, 'run.js': zodLoaded });
  assert.equal((await set.run('run.js')).stdout.trim(), 'true', 'the check sees the schema when something is set');
});
