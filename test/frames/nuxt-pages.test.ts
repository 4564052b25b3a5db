import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Capture, HttpRow } from '../../src/capture/types';
import { eventually } from '../helpers/app';
import { killGroup, startChild, waitForLine } from '../helpers/child';
import { startStub, type Stub } from '../origin/stub';
import { writeFiles } from '../route/served';
import { frameAppCopy } from './install';
import { appEnv, assertOrigins, buildOnce, oracles, REGISTER, throughBuildMaps, untilServing, WARM_PATH } from './run';

/**
 * Nuxt 3 pages as Nuxt renders them on the server, built (`nuxi build`, then `node .output/server/index.mjs`) and
 * under `nuxi dev`: each request is one capture named by the page's route as vue-router holds it for the request
 * (a 404 has none; a server route keeps Nitro's), and each call a page makes while it renders has the line of the
 * page (or composable) that made it, as the setup's own stack mapping gives an Error made on that line.
 */

let stub: Stub;

/** The request each path is, the route it must carry. */
const ROUTES: Record<string, string | null> = {
  '/': '/',
  '/users/42': '/users/:id()',
  '/docs/a/b': '/docs/:slug(.*)*',
  '/nope': null,
  '/api/items/42': '/api/items/:id',
};
const STATUSES = [200, 200, 200, 404, 200];

/** The upstream calls `/users/42` makes: its own three, and the two of the API route its useFetch asks in-process. */
const CALLS = {
  'page-asyncdata': '/users/page-asyncdata',
  'page-plain': '/users/page-plain',
  'page-composable': '/users/page-composable',
  'nuxt-fetch': '/users/nuxt-fetch',
  'nuxt-global': '/users/nuxt-global',
};

interface Stored {
  row: { type: string; name: string; route: string | null };
  capture: Capture;
}

interface Run {
  statuses: number[];
  output: string;
  captures: Stored[];
}

/** The request captures stored in the app's folder. */
function requestCaptures(app: string): Stored[] {
  const dir = path.join(app, '.probe', 'captures');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Stored)
    .filter((stored) => stored.row.type === 'request' && stored.row.name !== `GET ${WARM_PATH}`);
}

/**
 * Starts a server (node `args` in `app`) with `NODE_OPTIONS` `options`, waits for `ready` (its first group: the
 * base URL), asks `paths` in order (every path of ROUTES), and with Probe's preload among the options waits for
 * every upstream call of `calls` (those of CALLS) and a capture per path. The server is killed with its group however the test ends.
 */
async function run(
  app: string,
  args: string[],
  options: string,
  ready: RegExp,
  extra: NodeJS.ProcessEnv,
  paths = Object.keys(ROUTES),
  calls = Object.values(CALLS),
): Promise<Run> {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const child = startChild(process.execPath, args, { cwd: app, env: appEnv(options, { API_URL: stub.url, ...extra }) });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const base = (await waitForLine(child, ready, 300_000))[1]!;
    if (args.includes('dev')) await untilServing(base);
    const statuses: number[] = [];
    for (const ask of paths) {
      const response = await fetch(new URL(ask, base));
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    const captures = options.includes(REGISTER)
      ? await eventually(() => {
          const found = requestCaptures(app);
          const rows = found.flatMap((stored) => stored.capture.sections.http ?? []);
          const called = calls.every((p) => rows.some((row) => new URL(row.url).pathname === p));
          return called && paths.every((p) => found.some((stored) => stored.row.name === `GET ${p}`)) && found;
        }, 120_000)
      : [];
    return { statuses, output, captures };
  } finally {
    killGroup(child);
  }
}

/** One capture per request, each with its route; the page's calls in the page's capture, none for the API it asked in-process. */
function assertUnits(captures: Stored[], output: string): HttpRow[] {
  const names = captures.map((stored) => stored.row.name).sort();
  assert.deepEqual(
    names,
    Object.keys(ROUTES)
      .map((p) => `GET ${p}`)
      .sort(),
    `one capture per request\n${output}`,
  );
  assert.deepEqual(Object.fromEntries(captures.map((stored) => [stored.row.name.slice(4), stored.row.route])), ROUTES);
  const page = captures.find((stored) => stored.row.name === 'GET /users/42')!;
  const rows = page.capture.sections.http ?? [];
  assert.deepEqual(rows.map((row) => new URL(row.url).pathname).sort(), Object.values(CALLS).sort(), "the page's calls, in its capture");
  return rows;
}

describe('Nuxt 3 pages: one capture per request named by the page route, calls at the page line', { timeout: 900_000 }, () => {
  before(async () => {
    stub = await startStub();
  });
  after(async () => stub?.close());

  it('built (node .output/server/index.mjs): the same answers with and without Probe; origins as --enable-source-maps prints them', async () => {
    const app = await frameAppCopy('nuxt', 'pages');
    const nuxi = [process.execPath, 'node_modules/@nuxt/cli/bin/nuxi.mjs', 'build'];
    await buildOnce(app, 'nuxt', '.output/.frames-built', nuxi, appEnv(null, { NUXT_TELEMETRY_DISABLED: '1' }));
    const listen = { PORT: '0', HOST: '127.0.0.1' };
    const ready = /Listening on (http:\/\/\S+)/;
    const alone = await run(app, ['.output/server/index.mjs'], '--enable-source-maps', ready, listen);
    assert.deepEqual(alone.statuses, STATUSES, alone.output);
    const probed = await run(app, ['.output/server/index.mjs'], `--require ${REGISTER} --enable-source-maps`, ready, listen);
    assert.deepEqual(probed.statuses, alone.statuses, 'the app answers as without Probe');
    const rows = assertUnits(probed.captures, probed.output);
    const expected = oracles(probed.output, app);
    for (const name of ['page-asyncdata', 'page-plain']) assert.match(expected.get(name) ?? '', /^pages\/users\/\[id\]\.vue:\d+$/, probed.output);
    assertOrigins(rows, expected, CALLS);
  });

  it('`nuxi dev`: the same, origins as the dev server maps a stack (the vite-node runner Nuxt fixes SSR errors with)', async () => {
    const app = await frameAppCopy('nuxt', 'pages-dev');
    writeFiles(app, { 'server/plugins/frame-oracle.ts': DEV_ORACLE });
    const { statuses, output, captures } = await run(
      app,
      ['node_modules/@nuxt/cli/bin/nuxi.mjs', 'dev', '--port', '0', '--host', '127.0.0.1'],
      `--require ${REGISTER}`,
      /Local:\s+(http:\/\/\S+)[\s\S]*Nitro server built/,
      { NUXT_TELEMETRY_DISABLED: '1' },
    );
    assert.deepEqual(statuses, STATUSES, output);
    const rows = assertUnits(captures, output);
    // The API route's calls print the dev build's position (.nuxt/dev/index.mjs): through its map beside it.
    const expected = new Map([...oracles(output, app)].map(([name, at]) => [name, throughBuildMaps(app, at)]));
    for (const name of ['page-asyncdata', 'page-plain']) assert.match(expected.get(name) ?? '', /^pages\/users\/\[id\]\.vue:\d+$/, output);
    assertOrigins(rows, expected, CALLS);
  });

  it("`nuxi dev` with server maps off (sourcemap.server: false): no line of Nitro's dev build is taken, its runtime's least of all", async () => {
    const app = await frameAppCopy('nuxt', 'nomaps-dev');
    writeFiles(app, {
      'nuxt.config.ts': 'export default defineNuxtConfig({ devtools: { enabled: false }, telemetry: false, sourcemap: { server: false, client: false } });\n',
    });
    const calls = ['/users/nuxt-fetch', '/users/nuxt-global'];
    const { output, captures } = await run(
      app,
      ['node_modules/@nuxt/cli/bin/nuxi.mjs', 'dev', '--port', '0', '--host', '127.0.0.1'],
      `--require ${REGISTER}`,
      /Local:\s+(http:\/\/\S+)[\s\S]*Nitro server built/,
      { NUXT_TELEMETRY_DISABLED: '1' },
      ['/api/items'],
      calls,
    );
    assert.ok(!fs.existsSync(path.join(app, '.nuxt/dev/index.mjs.map')), 'the dev build has no map');
    const rows = captures.flatMap((stored) => stored.capture.sections.http ?? []);
    // The route's $fetch runs through Nitro's runtime in the same file as the route: neither line is the app's source.
    assert.deepEqual(
      calls.map((p) => rows.find((row) => new URL(row.url).pathname === p)?.origin ?? null),
      [null, null],
      output,
    );
  });
});

/**
 * The dev server's own mapping of a stack: Nuxt's dev server hands every SSR error to the vite-node runner's
 * `ssrFixStacktrace` (through the maps of the modules it evaluated); this plugin, added to the dev copy only, hands
 * it the oracle's Error the same way and prints the frame it gives.
 */
const DEV_ORACLE = `import runner from '#internal/nuxt/vite-node-runner.mjs';

export default defineNitroPlugin(() => {
  (globalThis as { __frameOracle?: unknown }).__frameOracle = (name: string, error: Error) => {
    // ssrFixStacktrace reads frames written \`(file:line:column)\`; an anonymous function's frame has no parentheses.
    const frame = error.stack!.split('\\n')[1]!.trim().replace(/^at (\\S+:\\d+:\\d+)$/, 'at <anonymous> ($1)');
    const fixed = { stack: \`Error\\n    \${frame}\` };
    void runner.ssrFixStacktrace(fixed).then(() => console.log(\`ORACLE \${name} \${fixed.stack.split('\\n')[1]!.trim()}\`));
  };
});
`;
