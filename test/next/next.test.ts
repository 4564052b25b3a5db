import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../helpers/redis';
import { FIXTURE, INSTRUMENTATION, buildNextApp, installNextApp, nextBin, nextEnv, type NextVersion } from './install';
import { startChild } from '../helpers/child';
import { running as childRunning, whilePossible } from '../helpers/app';

/**
 * Real Next.js apps under `--require probe/register` (NODE_OPTIONS, as the README says), in `next build && next
 * start` (with and without server source maps) and `next dev` (webpack), and with Probe started by the app's
 * instrumentation.ts instead (the README's form, under `next start`): each page, route handler, server action
 * and pages-router page or API route is one request capture with the app's route template, holding its one fetch,
 * whose origin is the fixture's line (its `// call: <name>` marker; with webpack also without maps); a fetch Next answers from its data cache is a
 * row marked `cache: 'hit'`; the app answers as without Probe.
 */
interface Tested extends NextVersion {
  turbopack?: boolean;
  /** Next 16 bundles with Turbopack by default: `next dev --webpack` for webpack, `next dev` for Turbopack. */
  turbopackByDefault?: boolean;
}
const VERSIONS: Tested[] = [{ name: '15.5', dependencies: { next: '15.5.29', react: '19.1.10', 'react-dom': '19.1.10' }, turbopack: true }];
if (process.env.PROBE_NEXT_VERSIONS !== '15') {
  VERSIONS.push({ name: '14.2', dependencies: { next: '14.2.35', react: '18.3.1', 'react-dom': '18.3.1' } });
  VERSIONS.push({ name: '16.4', dependencies: { next: '16.4.6', react: '19.2.9', 'react-dom': '19.2.9' }, turbopack: true, turbopackByDefault: true });
}

/** What each request must show: its capture's name and route, and which marked call its row is. */
interface Expected {
  method: string;
  path: string;
  route: string;
  call: string;
}
const EXPECTED: Expected[] = [
  { method: 'GET', path: '/api/items/42', route: '/api/items/[id]', call: 'item' },
  { method: 'GET', path: '/blog/hello', route: '/blog/[slug]', call: 'post' },
  { method: 'GET', path: '/cart', route: '/(shop)/cart', call: 'cart' },
  { method: 'GET', path: '/old/7', route: '/old/[id]', call: 'old' },
  { method: 'GET', path: '/api/legacy/9', route: '/api/legacy/[id]', call: 'legacy' },
  { method: 'POST', path: '/actions', route: '/actions', call: 'action' },
];

/** Asked twice after the others: Next's data cache answers the second (`next: { revalidate }`), which is a row all the same. */
const CACHED = { path: '/cached', route: '/cached', call: 'cached' };

/** `// call: <name>` markers of the fixture: name → `file:line` relative to the app root. */
function markers(): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.tsx?$/.test(entry.name)) {
        fs.readFileSync(full, 'utf8')
          .split('\n')
          .forEach((line, index) => {
            const marker = /\/\/ call: (\w+)/.exec(line);
            if (marker) found.set(marker[1]!, `${path.relative(FIXTURE, full)}:${index + 1}`);
          });
      }
    }
  };
  walk(FIXTURE);
  return found;
}

interface Answer {
  path: string;
  status: number;
  body: string;
}

interface StoredRow {
  url: string;
  status: number | null;
  cache?: 'hit';
  timing: object | null;
  response_capture: object | null;
  origin: { file: string; line: number } | null;
}

interface Stored {
  row: { type: string; name: string; route: string | null };
  capture: { type: string; name: string; started_at: number; sections: { http?: StoredRow[] } };
}

/** A loopback upstream that answers every call with JSON naming what was asked. */
async function startUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    request.resume();
    const parts = (request.url ?? '/').split('/');
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ id: parts[2] ?? null, slug: parts[2] ?? null, count: 3, path: request.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

class NextServer {
  stderr = '';
  stdout = '';
  private readonly exited: Promise<void>;

  constructor(
    readonly child: ChildProcess,
    readonly base: string,
  ) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Ready once it answers anything (`next dev` compiles the 404 page on the first request: minutes when loaded). */
  async ready(timeout = 300_000): Promise<void> {
    const deadline = Date.now() + timeout;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`next exited (${this.child.exitCode}) before it was ready\n${this.stdout}\n${this.stderr}`);
      try {
        const response = await fetch(`${this.base}/nope`, { signal: AbortSignal.timeout(timeout) });
        await response.arrayBuffer();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`next did not answer within ${timeout} ms\n${this.stdout}\n${this.stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  /**
   * Listening, seen by a TCP connection alone, with no request: the app's first request is then the first Next
   * answers (the instrumentation.ts variant: Next 14 and 15 run register() while that request waits for it).
   */
  async listening(timeout = 300_000): Promise<void> {
    const { hostname, port } = new URL(this.base);
    const deadline = Date.now() + timeout;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`next exited (${this.child.exitCode}) before it listened\n${this.stdout}\n${this.stderr}`);
      const connected = await new Promise<boolean>((resolve) => {
        const socket = net.connect(Number(port), hostname, () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      if (connected) return;
      if (Date.now() > deadline) throw new Error(`next did not listen within ${timeout} ms\n${this.stdout}\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Whether `next` still runs (`next dev`'s parent exits when the server it runs does). */
  running(): boolean {
    return childRunning(this.child);
  }

  /**
   * A GET's status, however long `next dev` takes to compile the route (fetch gives up after 300 s without
   * headers): failed only when `next` exited before answering.
   */
  async status(at: string): Promise<number> {
    let request: http.ClientRequest | undefined;
    const answered = new Promise<number>((resolve, reject) => {
      request = http.get(`${this.base}${at}`, (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
        response.once('error', reject);
      });
      request.once('error', reject);
    });
    const exited = this.exited.then(() => {
      throw new Error(`next exited before answering ${at}\n${this.stdout}\n${this.stderr}`);
    });
    // Handled here when the answer came first: `next` exits later, when the test stops it.
    exited.catch(() => {});
    try {
      return await Promise.race([answered, exited]);
    } finally {
      request?.destroy();
    }
  }

  /** SIGTERM to the whole process group (`next dev` runs the server in a child), then waits for the exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-this.child.pid!, 'SIGTERM');
      } catch {
        // gone already
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-this.child.pid!, 'SIGKILL');
        } catch {
          // gone already
        }
      }, 30_000);
      await this.exited;
      clearTimeout(timer);
    }
    // The group's other processes (`next dev`'s server) store their captures on SIGTERM too.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
}

async function startNext(
  version: Tested,
  app: string,
  mode: Mode,
  dist: string,
  maps: boolean | null,
  upstream: string,
  withProbe: boolean,
  instrumented: boolean,
  /** Ready once listening, with no request: the app's first request is the server's first. */
  firstRequest = instrumented,
): Promise<NextServer> {
  const port = await freePort();
  const env = { ...nextEnv(dist, maps, instrumented), UPSTREAM: upstream, ...(withProbe ? { NODE_OPTIONS: '--require probe/register' } : {}) };
  let args = mode === 'turbopack' ? ['dev', '--turbopack'] : [mode];
  if (version.turbopackByDefault && mode !== 'start') args = mode === 'turbopack' ? ['dev'] : ['dev', '--webpack'];
  // Lives until the file's tests are done (started from tests and stopped by them; `after` stops the rest).
  const child = startChild(process.execPath, [nextBin(app), ...args, '-p', String(port), '-H', '127.0.0.1'], {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    lifetime: 'file',
  });
  const server = new NextServer(child, `http://127.0.0.1:${port}`);
  running.add(server);
  // Started by instrumentation.ts: no request before the app's own (see listening).
  if (firstRequest) await server.listening();
  else await server.ready();
  return server;
}

const running = new Set<NextServer>();
type Mode = 'start' | 'dev' | 'turbopack';

/** Each route once, in order; the server action posted as a form without JavaScript does (its id read from the page). */
async function requestAll(base: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const expected of EXPECTED) {
    let response: Response;
    if (expected.method === 'POST') {
      const page = await (await fetch(`${base}${expected.path}`)).text();
      const id = /name="(\$ACTION_ID_[0-9a-f]+)"/.exec(page)?.[1];
      assert.ok(id, `the action's id in the page: ${page.slice(0, 500)}`);
      const form = new FormData();
      form.set(id, '');
      form.set('name', 'x');
      response = await fetch(`${base}${expected.path}`, { method: 'POST', body: form });
    } else response = await fetch(`${base}${expected.path}`);
    answers.push({ path: expected.path, status: response.status, body: visible(await response.text()) });
  }
  for (let time = 0; time < 2; time++) {
    const response = await fetch(`${base}${CACHED.path}`);
    answers.push({ path: CACHED.path, status: response.status, body: visible(await response.text()) });
  }
  return answers;
}

/** What a person sees of an answer: JSON as is, the `<main>` of a page (the rest carries build and request ids). */
function visible(body: string): string {
  const main = /<main id="\w+">[^<]*<\/main>/.exec(body);
  if (main) return main[0];
  return body.trimStart().startsWith('{') ? body : '';
}

function readCaptures(app: string): Stored[] {
  const dir = path.join(app, '.probe', 'captures');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Stored);
}

/**
 * Waits until every expected request's capture is in the store, or `next` has exited (nothing more can come): not
 * for a guessed time, a loaded machine can take minutes. What is missing is then told by the checks.
 */
async function storedAll(app: string, server: NextServer): Promise<void> {
  const names = [...EXPECTED.map((expected) => `${expected.method} ${expected.path}`), 'GET /nope'];
  const all = () => {
    const captures = readCaptures(app);
    const stored = new Set(captures.map((entry) => entry.row.name));
    const cached = captures.filter((entry) => entry.row.name === `GET ${CACHED.path}`).length;
    return names.every((name) => stored.has(name)) && cached === 2;
  };
  await whilePossible(all, () => server.running(), 'every request stored').catch(() => {});
}

/** Waits until `names` all have a stored capture, or `next` has exited; what is missing is told by the test's checks. */
async function stored(app: string, server: NextServer, names: string[]): Promise<void> {
  const all = () => {
    const found = new Set(readCaptures(app).map((entry) => entry.row.name));
    return names.every((name) => found.has(name));
  };
  await whilePossible(all, () => server.running(), `${names.join(', ')} stored`).catch(() => {});
}

/** The captures of one run under Probe, checked; returns the origins seen by call name. */
function checkCaptures(app: string, lines: Map<string, string>, label: string, cacheHits = true): Map<string, string> {
  const stored = readCaptures(app);
  const described = stored.map((entry) => `${entry.row.type} ${entry.row.name} (${entry.capture.sections.http?.length ?? 0} rows)`).join(', ');
  assert.deepEqual(
    stored.filter((entry) => entry.row.type !== 'request').map((entry) => entry.row.name),
    [],
    `${label}: only request captures: no helper process, no Next.js call of its own is stored (${described})`,
  );
  const origins = new Map<string, string>();
  for (const expected of EXPECTED) {
    const name = `${expected.method} ${expected.path}`;
    const withRows = stored.filter((entry) => entry.row.name === name && (entry.capture.sections.http?.length ?? 0) > 0);
    assert.equal(withRows.length, 1, `${label}: one capture of ${name} holding its call (${described})`);
    const found = withRows[0]!;
    assert.equal(found.row.route, expected.route, `${label}: route of ${name}`);
    const rows = found.capture.sections.http!;
    assert.equal(rows.length, 1, `${label}: ${name} holds its one fetch: ${rows.map((row) => row.url).join(', ')}`);
    const origin = rows[0]!.origin;
    origins.set(expected.call, origin ? `${origin.file}:${origin.line}` : 'null');
    assert.ok(lines.has(expected.call));
  }
  if (cacheHits) origins.set(CACHED.call, checkCached(stored, label));
  const missing = stored.find((entry) => entry.row.name === 'GET /nope');
  assert.ok(missing, `${label}: the 404 is a request capture too`);
  assert.equal(missing.row.route, null, `${label}: a 404 has no route`);
  return origins;
}

/**
 * The route asked twice: the first call reaches the upstream (a row with its timing), the second is answered from
 * Next's data cache, a row all the same, marked `cache: 'hit'`, without timing, with the response and the same
 * origin. Returns that origin.
 */
function checkCached(stored: Stored[], label: string): string {
  const name = `GET ${CACHED.path}`;
  const captures = stored.filter((entry) => entry.row.name === name).sort((a, b) => a.capture.started_at - b.capture.started_at);
  assert.equal(captures.length, 2, `${label}: two captures of ${name}`);
  for (const entry of captures) {
    assert.equal(entry.row.route, CACHED.route, `${label}: route of ${name}`);
    assert.equal(entry.capture.sections.http?.length, 1, `${label}: ${name} holds its one fetch`);
  }
  const [miss, hit] = captures.map((entry) => entry.capture.sections.http![0]!);
  assert.equal(miss!.cache, undefined, `${label}: the first call went out`);
  assert.ok(miss!.timing, `${label}: the first call has its network timing`);
  assert.equal(hit!.cache, 'hit', `${label}: the second call was answered from Next's data cache`);
  assert.equal(hit!.timing, null, `${label}: a cache hit has no network timing`);
  assert.equal(hit!.status, 200, `${label}: the cached status`);
  assert.ok(hit!.response_capture, `${label}: the cached JSON body is captured`);
  assert.ok(hit!.url.endsWith(CACHED.path), `${label}: the URL the app asked for (${hit!.url})`);
  const origin = (row: StoredRow) => (row.origin ? `${row.origin.file}:${row.origin.line}` : 'null');
  assert.equal(origin(hit!), origin(miss!), `${label}: the hit has the call's origin`);
  return origin(hit!);
}

for (const version of VERSIONS) {
  describe(`Next.js ${version.name}`, { timeout: 3_000_000 }, () => {
    let app: string;
    let upstream: { url: string; close: () => Promise<void> };
    const lines = markers();

    before(async () => {
      app = await installNextApp(version);
      await buildNextApp(app, '.next-build', false);
      await buildNextApp(app, '.next-maps', true);
      await buildNextApp(app, '.next-instr', true, true);
      upstream = await startUpstream();
    });

    after(async () => {
      for (const server of running) await server.stop();
      running.clear();
      await upstream?.close();
    });

    /**
     * `maps` null: the server source maps as Next makes them by default (none with webpack, Next 16's Turbopack
     * writes them). `withProbe`: the NODE_OPTIONS preload; `instrumented`: a build whose instrumentation.ts starts Probe.
     */
    async function run(mode: Mode, dist: string, maps: boolean | null, withProbe: boolean, instrumented = false): Promise<Answer[]> {
      fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
      // `next dev` keeps fetches in its data cache between runs: a fresh one, so each run makes its calls.
      fs.rmSync(path.join(app, dist, 'cache', 'fetch-cache'), { recursive: true, force: true });
      // Next 16's dev server builds into `<dist>/dev`.
      fs.rmSync(path.join(app, dist, 'dev', 'cache', 'fetch-cache'), { recursive: true, force: true });
      const server = await startNext(version, app, mode, dist, maps, upstream.url, withProbe, instrumented);
      try {
        const answers = await requestAll(server.base);
        // The 404 the other runs ask first (see NextServer.ready), asked last here.
        if (instrumented) await (await fetch(`${server.base}/nope`)).arrayBuffer();
        // Stopped once its captures are stored: `next dev`'s parent may SIGKILL its server on SIGTERM.
        if (withProbe || instrumented) await storedAll(app, server);
        return answers;
      } finally {
        await server.stop();
        running.delete(server);
      }
    }

    test('next build && next start without server source maps: routes as the app names them, origins the app source lines; answers as without Probe', async () => {
      const alone = await run('start', '.next-build', false, false);
      for (const answer of alone) assert.equal(answer.status, 200, JSON.stringify(answer));
      const withProbe = await run('start', '.next-build', false, true);
      assert.deepEqual(withProbe, alone, 'the app answers as without Probe');
      const origins = checkCaptures(app, lines, 'next start');
      // No map: the bundle's call is found in the source it names (resolvedPagePath, the loader tree, the pages/
      // file) or a file that imports (the action's actions.ts), by what minification leaves of it; with Turbopack
      // (Next 16's default) the chunk's sources are those of the routes whose entries load it.
      for (const [call, origin] of origins) assert.equal(origin, lines.get(call), `origin of the ${call} call, found from the bundle without a map`);
    });

    test('next build && next start with server source maps: origins are the app source lines, without --enable-source-maps', async () => {
      await run('start', '.next-maps', true, true);
      const origins = checkCaptures(app, lines, 'next start (maps)');
      for (const [call, origin] of origins) assert.equal(origin, lines.get(call), `origin of the ${call} call`);
    });

    test('next dev (webpack): routes and the app source lines', async () => {
      const alone = await run('dev', '.next-dev', null, false);
      const withProbe = await run('dev', '.next-dev', null, true);
      assert.deepEqual(withProbe, alone, 'the app answers as without Probe');
      // Next 14's dev server puts the fetch it found back before each request and patches it again while serving
      // it, right before the handler runs: each assignment is wrapped as it is made, so a cache hit is a row too.
      const origins = checkCaptures(app, lines, 'next dev');
      for (const [call, origin] of origins) assert.equal(origin, lines.get(call), `origin of the ${call} call`);
    });

    test('next build && next start, Probe started by instrumentation.ts (no preload): the same captures, routes and source lines, the first request of the fresh server included', async () => {
      const alone = await run('start', '.next-maps', true, false);
      for (const answer of alone) assert.equal(answer.status, 200, JSON.stringify(answer));
      const withProbe = await run('start', '.next-instr', true, false, true);
      assert.deepEqual(withProbe, alone, 'the app answers as without Probe');
      const origins = checkCaptures(app, lines, 'next start (instrumentation.ts)');
      for (const [call, origin] of origins) assert.equal(origin, lines.get(call), `origin of the ${call} call`);
    });

    /**
     * `next dev` with the app's instrumentation.ts in the app root (as a user has it) starting Probe, no preload:
     * in its own build folder, the file there only for this run.
     */
    async function runDevInstrumented(mode: Mode, dist: string): Promise<Answer[]> {
      const hook = path.join(app, 'instrumentation.ts');
      fs.copyFileSync(INSTRUMENTATION, hook);
      try {
        return await run(mode, dist, null, false, true);
      } finally {
        fs.rmSync(hook, { force: true });
      }
    }

    /**
     * A fresh `next dev` (its build folder emptied) asked every GET route at once: each route's first call is made
     * while other routes compile, and `next dev` takes its bundles out of require.cache and writes them anew after
     * each compilation, between a call and the moment its origin is read. Every first call has its source line.
     */
    test('next dev (webpack), a fresh server asked every route at once: each first call has its source line', async () => {
      const dist = '.next-dev-fresh';
      fs.rmSync(path.join(app, dist), { recursive: true, force: true });
      fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
      // Waited for by a connection alone: the routes' requests are the server's first.
      const server = await startNext(version, app, 'dev', dist, null, upstream.url, true, false, true);
      const gets = EXPECTED.filter((expected) => expected.method === 'GET');
      try {
        // Every route compiles at once: on a loaded machine that can take minutes, so no wait here ends on a clock.
        const answers = await Promise.all(gets.map((expected) => server.status(expected.path)));
        assert.deepEqual(
          answers,
          gets.map(() => 200),
        );
        await stored(
          app,
          server,
          gets.map((expected) => `GET ${expected.path}`),
        );
      } finally {
        await server.stop();
        running.delete(server);
      }
      const captures = readCaptures(app);
      for (const expected of gets) {
        const rows = captures.filter((entry) => entry.row.name === `GET ${expected.path}`).flatMap((entry) => entry.capture.sections.http ?? []);
        assert.equal(rows.length, 1, `GET ${expected.path}: its one call`);
        const origin = rows[0]!.origin;
        assert.equal(origin ? `${origin.file}:${origin.line}` : 'null', lines.get(expected.call), `origin of the ${expected.call} call, the route's first`);
      }
    });

    const devModes: Mode[] = version.turbopack ? ['dev', 'turbopack'] : ['dev'];
    for (const mode of devModes) {
      const label = mode === 'dev' ? 'next dev (webpack)' : 'next dev (Turbopack)';
      test(`${label}, Probe started by instrumentation.ts (no preload): one capture per request with its call, routes and source lines, the first request (which compiles the route and runs register()) included; no helper process stored`, async () => {
        const answers = await runDevInstrumented(mode, mode === 'dev' ? '.next-dev-instr' : '.next-turbo-instr');
        for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer));
        const origins = checkCaptures(app, lines, `${label} (instrumentation.ts)`);
        for (const [call, origin] of origins) assert.equal(origin, lines.get(call), `origin of the ${call} call`);
      });
    }

    /**
     * Next patches fetch inside the first app-router request that needs it, and the route's handler calls fetch in
     * that same synchronous run (no await before): a fresh `next dev` whose data cache holds the route's fetch
     * already (filled by an earlier server on the same folder) answers that very first call from it. That hit is
     * a row with its origin, under the preload and under instrumentation.ts (Next 15 and 16 mark their patch just
     * before they assign it; Next 14 marks nothing).
     */
    test('next dev (webpack): a data-cache hit inside the very first request of a fresh server is a row (preload and instrumentation.ts)', async () => {
      const dist = '.next-dev-first';
      fs.rmSync(path.join(app, dist, 'cache', 'fetch-cache'), { recursive: true, force: true });
      // Next 16's dev server builds into `<dist>/dev`.
      fs.rmSync(path.join(app, dist, 'dev', 'cache', 'fetch-cache'), { recursive: true, force: true });
      const first = async (withProbe: boolean, instrumented: boolean): Promise<Stored[]> => {
        fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
        const hook = path.join(app, 'instrumentation.ts');
        if (instrumented) fs.copyFileSync(INSTRUMENTATION, hook);
        try {
          // Waited for by a connection alone (as the instrumentation.ts runs are): the app's request is the first.
          const server = await startNext(version, app, 'dev', dist, null, upstream.url, withProbe, true);
          try {
            const response = await fetch(`${server.base}${CACHED.path}`);
            assert.equal(response.status, 200);
            await response.arrayBuffer();
            if (withProbe || instrumented) await stored(app, server, [`GET ${CACHED.path}`]);
          } finally {
            await server.stop();
            running.delete(server);
          }
        } finally {
          fs.rmSync(hook, { force: true });
        }
        return readCaptures(app).filter((entry) => entry.row.name === `GET ${CACHED.path}`);
      };
      // Fills the data cache (Probe not there).
      await first(false, false);
      for (const [withProbe, instrumented, label] of [
        [true, false, 'preload'],
        [false, true, 'instrumentation.ts'],
      ] as const) {
        const captures = await first(withProbe, instrumented);
        assert.equal(captures.length, 1, `${label}: one capture of the first app-router request`);
        const rows = captures[0]!.capture.sections.http ?? [];
        assert.equal(rows.length, 1, `${label}: its call is a row`);
        assert.equal(rows[0]!.cache, 'hit', `${label}: answered from Next's data cache`);
        assert.equal(rows[0]!.timing, null, `${label}: no network timing`);
        assert.equal(captures[0]!.row.route, CACHED.route, `${label}: route`);
        const origin = rows[0]!.origin;
        assert.equal(origin ? `${origin.file}:${origin.line}` : 'null', lines.get(CACHED.call), `${label}: origin`);
      }
    });

    if (version.turbopack) {
      test('next dev --turbopack: routes and the app source lines (Turbopack writes its maps beside its chunks)', async () => {
        await run('turbopack', '.next-turbo', null, true);
        const origins = checkCaptures(app, lines, 'next dev --turbopack');
        for (const [call, origin] of origins) assert.equal(origin, lines.get(call), `origin of the ${call} call`);
      });
    }
  });
}
