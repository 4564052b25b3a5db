import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { installPinned } from '../helpers/pinned';
import { startOkServer } from '../helpers/upstream';
import { serve, writeFiles } from './served';

/**
 * Google's functions framework as its users start it (`functions-framework --target=hello`): one Express catch-all
 * hands every path to the function, so the function's name is each request's route; a request the framework
 * answers itself (`/favicon.ico`, 404) has none.
 */
const CACHE = process.env.PROBE_ROUTE_FRAMEWORKS_CACHE ?? path.join(os.homedir(), '.cache', 'probe-route-frameworks');
const PINS = { '@google-cloud/functions-framework': '5.0.5' };

const FUNCTION = `// Two functions in one source: the server serves the one its target names, which makes one call.
exports.hello = async (req, res) => {
  const answer = await fetch(process.env.UPSTREAM);
  res.json({ path: req.path, upstream: await answer.text() });
};
exports.other = (req, res) => res.send('other');
`;

/** A port the system picked and let go: the framework prints the port it was given. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

let app: string;
let upstream: { url: string; close(): void };

before(async () => {
  upstream = await startOkServer();
  app = await installPinned({
    dir: path.join(CACHE, 'functions-framework-5'),
    package: { name: 'route-functions-framework', dependencies: PINS },
    probe: false,
    prepare: (dir) => writeFiles(dir, { 'index.js': FUNCTION }),
  });
});

after(() => upstream?.close());

test("functions-framework --target=hello: each request the function serves has the route 'hello'; /favicon.ico has none", { timeout: 900_000 }, async () => {
  const paths = ['/', '/orders/42', '/favicon.ico'];
  const run = async (preload: boolean) => {
    const port = await freePort();
    const bin = path.join(app, 'node_modules', '@google-cloud', 'functions-framework', 'build', 'src', 'main.js');
    return serve(app, [bin, '--target=hello', `--port=${port}`], {
      preload,
      ready: /URL: (http:\/\/localhost:\d+\/)/,
      paths,
      env: { UPSTREAM: upstream.url, NODE_ENV: 'development' },
    });
  };
  const alone = await run(false);
  assert.deepEqual(
    alone.answers.map((answer) => answer.status),
    [200, 200, 404],
    alone.output,
  );
  const withProbe = await run(true);
  assert.deepEqual(withProbe.answers, alone.answers, 'the app answers as without Probe');
  assert.deepEqual(Object.fromEntries(withProbe.rows.map((row) => [row.name, row.route])), {
    'GET /': 'hello',
    'GET /orders/42': 'hello',
    'GET /favicon.ico': null,
  });
  const served = withProbe.rows.find((row) => row.name === 'GET /orders/42');
  assert.equal(served?.counts.http, 1, "the function's call is in its capture");
});
