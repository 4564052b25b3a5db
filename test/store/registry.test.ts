// Driver selection (SPEC 4–5): built-ins, the `cache` alias, custom drivers from register(probe), and the
// refusal of in-process memory stores that the CLI, the dashboard and other processes could not read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ProbeConfigError } from '../../src/config/ProbeConfigError';
import { FileStore } from '../../src/store/FileStore';
import { RedisStore } from '../../src/store/RedisStore';
import { TestApp } from '../helpers/app';
import { makeCapture, openStore } from './contract';

const DRIVER = path.join(__dirname, 'fixtures', 'json-file-store.mjs');

test('file is the default driver; redis and its alias cache select the Redis store', async () => {
  assert.ok(openStore(new TestApp()) instanceof FileStore);
  for (const driver of ['redis', 'cache']) {
    const store = openStore(new TestApp({ 'probe.config.mjs': `export default { storage: { driver: '${driver}', redis: { prefix: 'x:' } } };\n` }));
    assert.ok(store instanceof RedisStore);
    assert.equal((store as RedisStore).prefix, 'x:');
    await store.close?.();
  }
});

for (const driver of ['memory', 'array']) {
  test(`an in-process "${driver}" store is refused with a clear error naming storage.driver`, () => {
    const app = new TestApp({ 'probe.config.mjs': `export default { storage: { driver: '${driver}' } };\n` });
    assert.throws(
      () => openStore(app),
      (error: unknown) =>
        error instanceof ProbeConfigError && error.setting === 'storage.driver' && /one process/.test(error.message) && /"redis"/.test(error.message),
    );
  });
}

test('a custom driver gets app {root, config, logger} and its own settings with limit', () => {
  const app = new TestApp({
    'probe.config.mjs': `export let seen;
export default {
  storage: { driver: 'spy', limit: 7, spy: { colour: 'blue' } },
  register(probe) {
    probe.extendStore('spy', (app, config) => {
      globalThis.__probeSpy = { root: app.root, driver: app.config.storage.driver, logger: typeof app.logger.warn, config };
      return { put: async () => {}, find: async () => null, index: async () => [], clear: async () => {} };
    });
  },
};
`,
  });
  openStore(app);
  const seen = (globalThis as { __probeSpy?: Record<string, unknown> }).__probeSpy;
  assert.deepEqual(seen, { root: app.dir, driver: 'spy', logger: 'function', config: { colour: 'blue', limit: 7 } });
});

test('the CLI resolves the same custom driver from the same config', async () => {
  const app = new TestApp({
    'probe.config.mjs': `import path from 'node:path';
import { JsonFileStore } from ${JSON.stringify(DRIVER)};
export default {
  storage: { driver: 'jsonfile', jsonfile: { file: '.probe/custom/captures.json' } },
  register(probe) {
    probe.extendStore('jsonfile', (app, config) => new JsonFileStore(path.resolve(app.root, config.file), config.limit));
  },
};
`,
  });
  const store = openStore(app);
  await store.put(makeCapture());
  assert.equal((await store.index()).length, 1);
  const result = await app.cli(['clear']);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(await store.index(), []);
});
