import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { httpRows, REGISTER } from './run';

/*
 * Probe hooks nothing it has not proven safe: a hop learned through one of Probe's own dependencies, or a learned
 * list naming one, a Node built-in or a package the app does not have at that version, must leave the app as it
 * runs without Probe. The oracle is the app's own run without Probe: its output and exit code.
 */

const LEARNED = 'learned-hops.json';

/**
 * axios.get() of a URL that answers 302: follow-redirects starts the redirect's request from the response event,
 * inside the async context manager's frames. The app prints the response and the source of methods a hook would
 * replace (EventEmitter's emit, the context manager's `active`), so a hook shows up in its output.
 */
const APP = `
const http = require('node:http');
const { EventEmitter } = require('node:events');
const axios = require('axios');
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
const source = (fn) => Function.prototype.toString.call(fn).slice(0, 60);
const server = http.createServer((req, res) => {
  if (req.url === '/start') return res.writeHead(302, { location: '/end' }).end();
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ at: req.url }));
});
server.listen(0, '127.0.0.1', async () => {
  try {
    const response = await axios.get('http://127.0.0.1:' + server.address().port + '/start');
    console.log(JSON.stringify({ status: response.status, data: response.data }));
  } finally {
    server.close();
  }
  const emitter = new EventEmitter();
  let heard = 0;
  emitter.on('x', () => heard++);
  for (let i = 0; i < 1000; i++) emitter.emit('x');
  console.log(JSON.stringify({ heard, emit: source(EventEmitter.prototype.emit), active: source(AsyncLocalStorageContextManager.prototype.active) }));
});
`;

/** The installed version of a package of this checkout's node_modules (what the app's links lead to). */
function installedVersion(name: string): string {
  return (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

describe('learned hops are guests: nothing unsafe is hooked, learned or kept (real axios, real loopback server)', { timeout: 600_000 }, () => {
  let app: TestApp;
  let baseline: { code: number | null; stdout: string };

  before(async () => {
    app = new TestApp({ 'app.cjs': APP });
    const plain = await app.run('app.cjs', { preload: 'none' });
    assert.equal(plain.code, 0, plain.stderr);
    baseline = { code: plain.code, stdout: plain.stdout };
  });
  after(() => fs.rmSync(app.dir, { recursive: true, force: true }));

  /** One run under this checkout's preload (PROBE_FRAMES_DIST: another build's), its captures cleared first. */
  async function underProbe(what = 'run') {
    fs.rmSync(path.join(app.dir, '.probe', 'captures'), { recursive: true, force: true });
    const result = await app.run('app.cjs', { env: { NODE_OPTIONS: `--require ${REGISTER}`, PROBE_DEBUG: '1' } });
    assert.deepEqual({ code: result.code, stdout: result.stdout }, baseline, `${what}: the app ran differently under Probe:\n${result.stderr.slice(-3000)}`);
    // Both calls recorded: the one that answered 302 and the redirect's.
    const rows = httpRows(app.dir).map((row) => `${new URL(row.url).pathname} ${row.status}`);
    assert.deepEqual(rows.sort(), ['/end 200', '/start 302'], what);
    return result;
  }

  function learnedList(): string[] {
    const text = fs.readFileSync(path.join(app.dir, '.probe', LEARNED), 'utf8');
    return (JSON.parse(text) as { packages: Array<{ name: string; version: string }> }).packages.map((p) => `${p.name}@${p.version}`);
  }

  it('axios + a 302: the first run and the next (with what the first learned) run as without Probe', async () => {
    fs.rmSync(path.join(app.dir, '.probe'), { recursive: true, force: true });
    await underProbe();
    const learned = learnedList();
    await underProbe();
    // The second run kept the list: nothing in it misbehaved. It may add axios, the package the app reached
    // follow-redirects through (a wrapper of a learned package), which a third run hooks at load, as a guest too.
    const kept = learnedList();
    assert.deepEqual(
      kept.filter((entry) => !entry.startsWith('axios@')),
      learned.filter((entry) => !entry.startsWith('axios@')),
    );
    await underProbe('third run');
    assert.deepEqual(learnedList().sort(), kept.sort());
  });

  it("a poisoned list (Probe's own dependency, a built-in, a package not installed or at another version) is ignored and cleaned", async () => {
    const good = { name: 'follow-redirects', version: installedVersion('follow-redirects'), esm: false };
    const poisoned = [
      // Probe's own dependency, at the version installed, and one of its dependencies' (redis's client).
      { name: '@opentelemetry/context-async-hooks', version: installedVersion('@opentelemetry/context-async-hooks'), esm: false },
      { name: '@redis/client', version: installedVersion('@redis/client'), esm: false },
      { name: 'events', version: '0.0.1', esm: false },
      { name: 'probe-no-such-package', version: '1.0.0', esm: false },
      { name: 'axios', version: '0.0.1', esm: false },
    ];
    for (const bad of poisoned) {
      const what = `${bad.name}@${bad.version}`;
      fs.rmSync(path.join(app.dir, '.probe'), { recursive: true, force: true });
      fs.mkdirSync(path.join(app.dir, '.probe'), { mode: 0o700 });
      fs.writeFileSync(path.join(app.dir, '.probe', LEARNED), JSON.stringify({ packages: [bad, good] }), { mode: 0o600 });
      const result = await underProbe(what);
      // Rewritten without the bad entry, the good one kept (and axios, which the app reached it through); said under
      // PROBE_DEBUG.
      assert.deepEqual(
        learnedList().filter((entry) => !entry.startsWith('axios@1.')),
        [`${good.name}@${good.version}`],
        what,
      );
      assert.ok(result.stderr.includes(`learned hops: ${what} not hooked`), what);
      const file = fs.lstatSync(path.join(app.dir, '.probe', LEARNED));
      assert.ok(file.isFile());
      assert.equal(file.mode & 0o777, 0o600);
    }
  });
});
