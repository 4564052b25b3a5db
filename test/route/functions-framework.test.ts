import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { installPinned } from '../helpers/pinned';
import { startOkServer } from '../helpers/upstream';
import { requestRows, serve, writeFiles } from './served';
import { runChild } from '../helpers/child';
import { cleanEnv } from '../helpers/pinned';
import { REGISTER } from '../frames/run';

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

/** The framework's test server, as a function's own tests use it: the function registered under a name. */
const TEST_SERVER = `const functions = require('@google-cloud/functions-framework');
const { getTestServer } = require('@google-cloud/functions-framework/testing');
functions.http('greet', async (req, res) => {
  const answer = await fetch(process.env.UPSTREAM);
  res.send(await answer.text());
});
const server = getTestServer('greet');
server.listen(0, '127.0.0.1', async () => {
  const answer = await fetch('http://127.0.0.1:' + server.address().port + '/anything');
  console.log(answer.status, await answer.text());
  server.close();
});
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
    prepare: (dir) => writeFiles(dir, { 'index.js': FUNCTION, 'test-server.js': TEST_SERVER }),
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

test("getTestServer('greet') of the framework's testing export: the request's route is 'greet'", { timeout: 900_000 }, async () => {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const env = { ...cleanEnv(), UPSTREAM: upstream.url };
  const alone = await runChild(process.execPath, ['test-server.js'], { cwd: app, env });
  assert.equal(alone.code, 0, alone.stderr);
  const withProbe = await runChild(process.execPath, ['test-server.js'], { cwd: app, env: { ...env, NODE_OPTIONS: `--require ${REGISTER}` } });
  assert.equal(withProbe.stdout, alone.stdout, 'the app answers as without Probe');
  assert.deepEqual(
    requestRows(app).map((row) => [row.name, row.route]),
    [['GET /anything', 'greet']],
  );
});
