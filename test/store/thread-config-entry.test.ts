// Issue 28 (peak RSS): the app's config file, loaded on the store's thread, gets `probe` from package.json's
// `probe-store-thread` condition (src/storeThreadEntry.ts): the parts a config names, not the runtime, so the thread
// loads no OpenTelemetry module. Tests: with the config as `probe install` writes it (an ES module importing from
// 'probe', here with settings and a capture class from the package), the thread loads none and builds captures
// that read back exactly as the app's thread builds them (the same settings, masks and capture class); and the
// entry exports every name of the package's main entry (an ES module config that names one missing would fail).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { UnitInput } from '../../src/builder/input';
import { FileStore } from '../../src/store/FileStore';
import { ThreadedStore } from '../../src/store/ThreadedStore';
import { loadConfig } from '../../src/config/load';
import { REPO_ROOT } from '../helpers/app';
import { callInput, T0, unitOf, rowOf } from '../helpers/call-input';

// The thread runs compiled code: the suite runs after `npm run build`.
const SCRIPT = path.join(REPO_ROOT, 'dist', 'store', 'storeThread.js');

// Installed as an app installs it (node_modules/probe), so 'probe' resolves through package.json's exports. On the
// thread the config says what it was given and what the thread had loaded by then (its own modules load first).
const CONFIG = `import { defineConfig, GraphqlCapture, start, pool, RedisStore } from 'probe';
import { isMainThread } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';

if (!isMainThread) {
  const require = createRequire(import.meta.url);
  const loaded = Object.keys(require.cache);
  writeFileSync(process.env.REPORT, JSON.stringify({
    probe: require.resolve('probe'),
    otel: loaded.filter((file) => file.includes('@opentelemetry')),
    runtime: [typeof start, typeof pool, typeof RedisStore],
  }));
}

export default defineConfig({
  lenses: { HttpClientLens: { bodies: true, max_body_bytes: 4096, capture: { response_types: { 'application/json': GraphqlCapture } } } },
  mask: { headers: { 'x-session-id': 'FullMask' }, inputs: ['github_token'] },
});
`;

function installedApp(t: { after: (fn: () => void) => void }): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-thread-entry-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(path.join(root, 'package.json'), '{"name":"app","private":true}');
  mkdirSync(path.join(root, 'node_modules'));
  symlinkSync(REPO_ROOT, path.join(root, 'node_modules', 'probe'), 'dir');
  writeFileSync(path.join(root, 'probe.config.mjs'), CONFIG);
  return root;
}

const unitAt = (i: number, calls: UnitInput['calls']): UnitInput => ({
  ...unitOf(calls),
  id: `unit_${String(i).padStart(6, '0')}`,
  startedAt: T0 + i,
  endedAt: T0 + i + 10,
});

/** A GraphQL answer with a secret-named input, a header to mask, and more body than max_body_bytes keeps. */
const call = (pad: number) =>
  callInput({
    requestHeaders: { 'x-session-id': 'abc123', accept: 'application/json' },
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: {
      chunks: [Buffer.from(JSON.stringify({ data: { viewer: { github_token: 'ghp_x', login: 'octo', pad: 'y'.repeat(pad) } } }))],
      size: pad + 70,
      truncated: false,
    },
  });

test(
  "the installed config on the store's thread: no OpenTelemetry module loaded, captures as the app's thread builds them",
  { timeout: 120_000 },
  async (t) => {
    const root = installedApp(t);
    const report = path.join(root, 'report.json');
    const env = { PROBE_ROOT: root, REPORT: report };
    const config = loadConfig({ cwd: root, env });
    const dir = path.join(root, '.probe', 'captures');
    const store = new ThreadedStore(new FileStore({ path: dir, limit: 100, within: path.join(root, '.probe') }), undefined, SCRIPT, {
      config,
      build: { cwd: root, env, overrides: {} },
    });
    t.after(() => store.close());

    // A unit keeping over 64 KiB of body starts the thread at once; the next ones are built there.
    assert.equal(await store.putUnit(unitAt(0, [call(100_000)])), true);
    assert.equal(store.threaded, true);
    const calls = [call(10), call(3000), call(9000)];
    assert.deepEqual(await Promise.all(calls.map((c, i) => store.putUnit(unitAt(i + 1, [c])))), [true, true, true]);

    const said = JSON.parse(readFileSync(report, 'utf8')) as { probe: string; otel: string[]; runtime: string[] };
    assert.equal(said.probe, path.join(REPO_ROOT, 'dist', 'storeThreadEntry.js'));
    assert.deepEqual(said.otel, []);
    assert.deepEqual(said.runtime, ['function', 'function', 'function']);
    for (const [i, c] of calls.entries()) {
      const found = await store.find(unitAt(i + 1, []).id);
      assert.deepEqual(found?.sections.http?.[0], rowOf(c, config), `call ${i}`);
    }
    // The settings reached the thread: the header masked, the secret input masked, the body cut at 4096 bytes.
    const row = (await store.find(unitAt(3, []).id))?.sections.http?.[0];
    assert.doesNotMatch(JSON.stringify(row), /abc123|ghp_x/);
  },
);

test("the store thread's entry exports every name of the package's main entry", () => {
  // Compiled files, as the config file gets them; required here, so this process loads the main entry, not the thread.
  const main = require(path.join(REPO_ROOT, 'dist', 'index.js')) as Record<string, unknown>;
  const entry = require(path.join(REPO_ROOT, 'dist', 'storeThreadEntry.js')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(entry).sort(), Object.keys(main).sort());
  for (const name of Object.keys(main)) assert.equal(typeof entry[name], typeof main[name], name);
  // The parts a config holds are the thread's own (its builder and masks compare and call these very classes).
  for (const name of ['defineConfig', 'FullMask', 'PartialMask', 'JsonCapture', 'GraphqlCapture', 'EventStreamCapture', 'FileStore', 'extendStore']) {
    assert.equal(entry[name], main[name], name);
  }
});
