import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { runLensApp, rowsFor, startUpstreams, type Upstreams } from './lens-app';
import { installPinned } from '../helpers/pinned';

/**
 * What changes from one Node line to the next, checked on whichever Node runs the suite: the bundled undici
 * (6 on Node 20 and 22, 7 on 24, 8 on 26) and the ESM hook's registration (`module.register` is deprecated on
 * Node 26). Every fetch body must be captured and the app's stderr must hold only the app's own lines.
 */
const JSON_LENGTH = Buffer.byteLength(
  JSON.stringify({ ok: true, token: 'upstream-secret-token', items: [1, 2, 3], user: { name: 'ada', password: 'hunter2' } }),
);

/** Userland undici lines installed outside the repository (shared by runs and Node versions). */
const CACHE = process.env.PROBE_UNDICI_CACHE ?? path.join(os.homedir(), '.cache', 'probe-undici');
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const [, NODE_MINOR] = process.versions.node.split('.').map(Number) as [number, number];

async function installUndici(major: number): Promise<string> {
  const dir = await installPinned({
    dir: path.join(CACHE, `undici-${major}`),
    package: { name: `undici-${major}`, dependencies: { undici: String(major) } },
    probe: false,
  });
  return path.join(dir, 'node_modules', 'undici');
}

const GLOBAL_FETCH = `
process.emitWarning('the app\\'s own warning');
const r = await fetch(process.env.UPSTREAM + '/json');
console.log('fetch', r.status, (await r.json()).ok);
`;

const USERLAND = `
const undici = require(process.env.UNDICI_PATH);
(async () => {
  const r = await undici.fetch(process.env.UPSTREAM + '/json');
  console.log('fetch', r.status, (await r.json()).ok);
  const u = await undici.request(process.env.UPSTREAM + '/json?c=request');
  console.log('request', u.statusCode, (await u.body.json()).ok);
})();
`;

/** Lines a preload could add to an app's stderr: Node's deprecation and experimental warnings. */
const PROBE_NOISE = /DEP0205|DeprecationWarning|ExperimentalWarning|\[probe\]/;

describe(`Node ${process.versions.node}: fetch bodies and a quiet stderr`, () => {
  let up: Upstreams;
  before(async () => (up = await startUpstreams()));
  after(() => up.close());

  for (const preload of ['require', 'import'] as const) {
    for (const file of ['app.mjs', 'app.cjs']) {
      it(`global fetch (undici ${process.versions.undici}) in ${file} under --${preload}`, async () => {
        const source = file === 'app.mjs' ? GLOBAL_FETCH : `(async () => {${GLOBAL_FETCH}})();`;
        const run = await runLensApp(up, { [file]: source }, file, { preload });
        assert.equal(run.result.code, 0, run.result.stderr);
        assert.match(run.result.stdout, /fetch 200 true/);
        assert.match(run.result.stderr, /the app's own warning/, 'the app keeps its own warnings');
        const noise = run.result.stderr.split('\n').filter((line) => PROBE_NOISE.test(line));
        assert.deepEqual(noise, [], run.result.stderr);
        const [row] = rowsFor(run.rows, '/json');
        assert.ok(row, JSON.stringify(run.rows.map((r) => r.url)));
        assert.equal(row.response_bytes, JSON_LENGTH);
        assert.equal(row.response_capture?.capture, 'JsonCapture');
        assert.equal((row.response_capture?.cards as { ok?: boolean } | null)?.ok, true);
        assert.equal(row.origin?.file, file);
      });
    }
  }

  for (const major of [6, 7, 8]) {
    // undici 8 needs Node 22.19 or later (its engines field; it fails to load on Node 20).
    const skip = major === 8 && (NODE_MAJOR < 22 || (NODE_MAJOR === 22 && NODE_MINOR < 19)) ? 'undici 8 needs Node >= 22.19' : false;
    it(`userland undici ${major}: fetch and request bodies`, { skip }, async () => {
      const undiciPath = major === 7 ? path.dirname(require.resolve('undici/package.json')) : await installUndici(major);
      const run = await runLensApp(up, { 'app.cjs': USERLAND }, 'app.cjs', { env: { UNDICI_PATH: undiciPath } });
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.equal(run.result.stderr, '');
      for (const url of ['/json', '/json?c=request']) {
        const [row] = rowsFor(run.rows, url);
        assert.ok(row, `${url}: ${JSON.stringify(run.rows.map((r) => r.url))}`);
        assert.equal(row.response_bytes, JSON_LENGTH, url);
        assert.equal((row.response_capture?.cards as { ok?: boolean } | null)?.ok, true, url);
        assert.equal(row.origin?.file, 'app.cjs', url);
      }
    });
  }
});
