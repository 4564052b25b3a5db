import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, test } from 'node:test';
import { cleanEnv, installApp } from '../compat/install';
import { runChild } from '../helpers/child';

/**
 * The route of a request served by a framework no reader of Probe names, from the parameters its router left on
 * the request (`req.params`) and the path: restify and tinyhttp, each handler printing the route the framework
 * matched for it (the oracle). With the app's own OpenTelemetry setup, the route its instrumentation reports
 * (`http.route`) comes first.
 */
const APPS = path.join(__dirname, 'apps');
const DEPENDENCIES = {
  // restify 11 needs a binding Node 24 removed (through spdy); 12 asks for Node 22 or later (PROBE_RESTIFY_12=1:
  // 12 on Node 20 too, as it runs there).
  restify: Number(process.versions.node.split('.')[0]) >= 22 || process.env.PROBE_RESTIFY_12 ? '12.0.0' : '11.1.0',
  express: '4.22.3',
  '@tinyhttp/app': '3.0.11',
  '@opentelemetry/api': '1.9.1',
  '@opentelemetry/sdk-trace-node': '2.12.0',
  '@opentelemetry/sdk-trace-base': '2.12.0',
  '@opentelemetry/instrumentation': '0.223.0',
  '@opentelemetry/instrumentation-http': '0.223.0',
  '@opentelemetry/instrumentation-restify': '0.68.0',
};

interface Answer {
  path: string;
  status: number;
  body: { route?: string } | string;
}

interface Run {
  answers: Answer[];
  /** What changed on each request the handlers saw, from the handler to a turn after the answer finished. */
  changes: unknown[];
  stderr: string;
  /** The app's own server spans (with its OTel setup). */
  spans?: unknown;
  /** The stored request captures: path → route. */
  routes: Record<string, string | null>;
}

let app: string;

before(async () => {
  app = await installApp('route-params', DEPENDENCIES, (dir) => {
    for (const file of ['view.cjs', 'restify.cjs', 'tinyhttp.mjs', 'otel-restify.cjs', 'otel-restify-only.cjs', 'express-params.cjs'])
      fs.copyFileSync(path.join(APPS, file), path.join(dir, file));
  });
});

async function run(file: string, preload: string[]): Promise<Run> {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-params-route-'));
  const spansFile = path.join(work, 'spans.json');
  const result = await runChild(process.execPath, [...preload, file], { cwd: app, env: { ...cleanEnv(), ROUTE_SPANS: spansFile } });
  assert.equal(result.code, 0, `${file} exited ${result.code}: ${result.stderr}`);
  const [answers, changes] = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
  const spans = fs.existsSync(spansFile) ? (JSON.parse(fs.readFileSync(spansFile, 'utf8')) as unknown) : undefined;
  fs.rmSync(work, { recursive: true, force: true });
  // restify 11 warns of a deprecated Node API at load (spdy's), with the process id.
  const stderr = result.stderr.replace(/\(node:\d+\)/g, '(node:<pid>)');
  return { answers: answers as Answer[], changes: changes as unknown[], stderr, spans, routes: storedRoutes() };
}

function storedRoutes(): Record<string, string | null> {
  const dir = path.join(app, '.probe', 'captures');
  if (!fs.existsSync(dir)) return {};
  const routes: Record<string, string | null> = {};
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const stored = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as {
      row: { type: string; name: string; route: string | null };
      capture: { sections: { request: { route: string | null } } };
    };
    if (stored.row.type !== 'request') continue;
    assert.equal(stored.capture.sections.request.route, stored.row.route, 'request section and index row agree');
    routes[stored.row.name.replace(/^GET /, '')] = stored.row.route;
  }
  return routes;
}

/** The route each handler was handed by its framework; none for a path it answered 404. */
function frameworkRoutes(answers: Answer[]): Record<string, string | null> {
  return Object.fromEntries(
    answers.map((answer) => [answer.path, typeof answer.body === 'object' && answer.status !== 404 ? (answer.body.route ?? null) : null]),
  );
}

for (const [name, file] of [
  ['restify', 'restify.cjs'],
  ['tinyhttp 3', 'tinyhttp.mjs'],
] as const) {
  test(`${name}: a parameter route and a static route are the framework's own; the same value in two segments and a 404 have none; the app sees no difference`, async () => {
    const alone = await run(file, []);
    const truth = frameworkRoutes(alone.answers);
    // The framework's own answers, as the test reads them.
    assert.deepEqual(truth, {
      '/api/users/42': '/api/users/:id',
      '/health': '/health',
      '/pairs/7/8': '/pairs/:a/:b',
      '/pairs/7/7': '/pairs/:a/:b',
      '/nope': null,
    });
    const preload = file.endsWith('.mjs') ? ['--import', 'probe/register'] : ['--require', 'probe/register'];
    const withProbe = await run(file, preload);
    assert.deepEqual(withProbe.answers, alone.answers, 'the app answers as without Probe');
    assert.equal(withProbe.stderr, alone.stderr, 'nothing more on stderr');
    assert.deepEqual(withProbe.changes, alone.changes, 'the request objects change between handler and end as without Probe (keys, listeners)');
    // /pairs/7/7: a = b = '7', which segment is which parameter is a guess: none.
    assert.deepEqual(withProbe.routes, { ...truth, '/pairs/7/7': null });
  });
}

test("restify beside the app's own OTel setup (instrumentation-restify): its http.route names the request, the ambiguous one too, also with the instrumentation alone; the app's spans are unchanged", async () => {
  const own = ['--require', './otel-restify.cjs'];
  const alone = await run('restify.cjs', own);
  const truth = frameworkRoutes(alone.answers);
  assert.deepEqual(
    Object.fromEntries((alone.spans as Array<{ path: string; route: string | null }>).map((span) => [span.path, span.route])),
    truth,
    "the app's own spans report the framework's routes",
  );
  for (const order of ['after', 'before']) {
    const probe = ['--require', 'probe/register'];
    const withProbe = await run('restify.cjs', order === 'after' ? [...own, ...probe] : [...probe, ...own]);
    assert.deepEqual(withProbe.answers, alone.answers, 'the app answers as without Probe');
    assert.deepEqual(withProbe.spans, alone.spans, `the app's spans are unchanged (Probe ${order})`);
    assert.deepEqual(withProbe.routes, truth, `Probe ${order}`);
  }
  // The instrumentation alone, Probe's HTTP instrumentation making the server span.
  const only = await run('restify.cjs', ['--require', 'probe/register', '--require', './otel-restify-only.cjs']);
  assert.deepEqual(only.answers, alone.answers, 'the app answers as without Probe');
  assert.deepEqual(only.routes, truth, 'the instrumentation alone');
});

test("Express, whose router Probe reads: a request a middleware mounted at '/pairs/:a' answers has no route (Express matched none), not one made of its parameters", async () => {
  const alone = await run('express-params.cjs', []);
  const truth = frameworkRoutes(alone.answers);
  assert.deepEqual(truth, { '/api/users/42': '/api/users/:id', '/health': '/health', '/pairs/7/8': null, '/pairs/7/7': null, '/nope': null });
  const withProbe = await run('express-params.cjs', ['--require', 'probe/register']);
  assert.deepEqual(withProbe.answers, alone.answers, 'the app answers as without Probe');
  assert.deepEqual(withProbe.changes, alone.changes, 'the request objects change between handler and end as without Probe (keys, listeners)');
  assert.deepEqual(withProbe.routes, truth);
});
