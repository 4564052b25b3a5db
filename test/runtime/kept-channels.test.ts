import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp } from '../helpers/app';

/**
 * Channels Probe subscribed to and left (its shutdown) stay the objects their publishers will use: on Node 20 a
 * channel left without subscribers is held weakly, and its finalizer, run late, deletes the entry of a channel of the
 * same name made since, so a subscriber the app adds in between never hears a publish. The app below subscribes right
 * after a collection, then a publisher that loads later publishes: it hears it, with Probe as without.
 */
const APP = `
const dc = require('node:diagnostics_channel');
const names = ['fastify.initialization', 'tracing:express.router.request:start'];
const turn = () => new Promise((resolve) => setImmediate(resolve));
(async () => {
  if (process.env.WITH_PROBE) {
    const handle = require('probe').start();
    await turn();
    await handle.shutdown();
  }
  await turn();
  globalThis.gc();
  const seen = Object.fromEntries(names.map((name) => [name, 0]));
  for (const name of names) dc.subscribe(name, () => seen[name]++);
  for (let i = 0; i < 3; i++) {
    await turn();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  // The publisher loads now: it takes the channel by name, as frameworks do.
  for (const name of names) dc.channel(name).publish({});
  console.log(JSON.stringify(seen));
})();
`;

test('a channel Probe left is the one a later publisher uses: the app hears every publish after Probe shut down', async () => {
  const app = new TestApp({ 'app.js': APP });
  const env = { NODE_OPTIONS: '--expose-gc' };
  const without = await app.run('app.js', { preload: 'none', env });
  assert.equal(without.code, 0, without.stderr);
  const withProbe = await app.run('app.js', { preload: 'none', env: { ...env, WITH_PROBE: '1' } });
  assert.equal(withProbe.code, 0, withProbe.stderr);
  assert.deepEqual(JSON.parse(withProbe.stdout.trim()), JSON.parse(without.stdout.trim()));
  assert.deepEqual(JSON.parse(without.stdout.trim()), { 'fastify.initialization': 1, 'tracing:express.router.request:start': 1 });
});
