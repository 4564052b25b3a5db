// Issue 27: a request node:http emitted before Probe started (start() from the app's own code, as Next.js's
// instrumentation.ts does it, while the first request waits for the server's prepare()) is opened late as its own
// request unit: it holds its calls and ends when its response closes; a request after start() is as before; the
// client sees the same answers as without Probe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp, eventually, waitForLine, collect } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';

let upstream: Upstream;
before(async () => {
  upstream = await startUpstream();
});
after(() => upstream.close());

const READY = 120_000; // the app's start on a loaded machine; the wait ends at the line, not the limit

/**
 * The server module a framework has, in the shape LateRequests reaches (Next.js's base-server.js, found by its
 * path in require's cache when start() runs, as Probe finds Next's): `handleRequest` waits for `prepare()` (where
 * the app starts Probe) and then calls `handleRequestImpl` with the framework's wrappers of node:http's objects.
 * It is the app's stand-in for the framework, not Probe's: Probe's code runs as it would under Next.
 */
const SERVER_MODULE = `class Server {
  constructor(handler, prepare) { this.handler = handler; this.prepare = prepare; this.prepared = undefined; }
  async handleRequest(req, res) {
    this.prepared ??= this.prepare();
    await this.prepared;
    return this.handleRequestImpl({ _req: req }, { _res: res });
  }
  async handleRequestImpl(req, res) { return this.handler(req._req, res._res); }
}
exports.default = Server;
`;

/**
 * A plain node:http server: Probe is started by the app's prepare() (inside the first request, as
 * instrumentation.ts's register() is), unless NO_PROBE is set (the run without Probe). Each request makes a fetch
 * and an http.get before it answers, and one fetch once its response has closed (after its unit ended).
 */
const APP = `const http = require('node:http');
const Server = require('./framework/node_modules/next/dist/server/base-server.js').default;
const target = process.env.TARGET;
function get(url) {
  return new Promise((resolve, reject) => http.get(url, (res) => { res.resume(); res.on('end', resolve); }).on('error', reject));
}
async function handler(req, res) {
  const name = req.url.slice(1);
  const answer = await (await fetch(target + '/json?by=' + name)).text();
  await get(target + '/text?by=' + name);
  res.once('close', () => fetch(target + '/text?after=' + name).then((r) => r.text()).then(() => console.log('after ' + name)));
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-app', 'late');
  res.end(JSON.stringify({ name, answer: answer.length }));
}
async function prepare() {
  if (!process.env.NO_PROBE) require('probe').start();
}
const server = new Server(handler, prepare);
const listener = http.createServer((req, res) => { server.handleRequest(req, res); });
listener.listen(0, '127.0.0.1', () => console.log('listening ' + listener.address().port));
`;

interface Answer {
  status: number;
  type: string | null;
  app: string | null;
  body: string;
}

/** Runs the app, asks /first (emitted before start) then /second (after it), stops it; returns the answers. */
async function runApp(app: TestApp, withProbe: boolean): Promise<Answer[]> {
  const child = app.spawn('server.js', { preload: 'none', env: { TARGET: upstream.url, NO_PROBE: withProbe ? undefined : '1' } });
  const result = collect(child, READY);
  try {
    const [, port] = await waitForLine(child, /listening (\d+)/, READY);
    const answers: Answer[] = [];
    for (const name of ['first', 'second']) {
      const response = await fetch(`http://127.0.0.1:${port}/${name}`);
      answers.push({ status: response.status, type: response.headers.get('content-type'), app: response.headers.get('x-app'), body: await response.text() });
      await waitForLine(child, new RegExp(`after ${name}`), READY);
    }
    if (withProbe) await eventually(() => app.captures().filter((capture) => capture.type === 'request').length === 2);
    return answers;
  } finally {
    child.kill('SIGTERM');
    await result;
  }
}

test(
  'a request emitted before start() (started by the app inside it) is its own request unit with its calls, ended when its response closes; the next request as usual; answers as without Probe',
  { timeout: 600_000 },
  async () => {
    const app = new TestApp({ 'server.js': APP, 'framework/node_modules/next/dist/server/base-server.js': SERVER_MODULE });
    const alone = await runApp(app, false);
    assert.deepEqual(
      alone.map((answer) => answer.status),
      [200, 200],
    );
    const withProbe = await runApp(app, true);
    assert.deepEqual(withProbe, alone, 'the client sees the same answers');

    const captures = app.captures();
    const requests = captures.filter((capture) => capture.type === 'request');
    assert.deepEqual(
      requests.map((capture) => capture.name),
      ['GET /first', 'GET /second'],
    );
    for (const capture of requests) {
      const name = capture.name.slice('GET /'.length);
      const urls = capture.sections.http!.map((row) => new URL(row.url).pathname + new URL(row.url).search);
      assert.deepEqual(urls, [`/json?by=${name}`, `/text?by=${name}`], `${capture.name} holds its two calls, not the one made after its response closed`);
      assert.equal(capture.status, '200', `${capture.name}: the response's status`);
    }
    const [late, usual] = requests;
    // Ended when its response closed: the call made on 'close' is not in it, and it ended before the next began.
    assert.ok(late!.ended_at <= usual!.started_at, 'the late unit ended with its response');
    // The calls made after the responses closed are the process's, not a request's.
    const rest = captures.filter((capture) => capture.type !== 'request').flatMap((capture) => capture.sections.http ?? []);
    assert.deepEqual(rest.map((row) => new URL(row.url).search).sort(), ['?after=first', '?after=second']);
  },
);
