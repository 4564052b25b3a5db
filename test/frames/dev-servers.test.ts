import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HttpRow } from '../../src/capture/types';
import { running, whilePossible } from '../helpers/app';
import { killGroup, startChild, waitForLine } from '../helpers/child';
import { freePort } from '../helpers/redis';
import { startStub, type Stub } from '../origin/stub';
import { frameAppCopy } from './install';
import { appEnv, assertOrigins, httpRows, oracles, REGISTER, throughBuildMaps, untilServing } from './run';

/**
 * Dev servers as developers run them, under the preload: `vite dev` (SvelteKit: Vite's module runner evaluates each
 * transformed module from a string, with its map inline) and `nuxi dev` (Nuxt: Nitro's dev build, its map beside
 * it). Each call's origin must be the line the setup's own stack mapping gives an Error made on the call's line.
 */

let stub: Stub;

interface Served {
  output: string;
  rows: HttpRow[];
}

/**
 * Starts a dev server (its command's arguments to node) in `app` under the preload, waits for `ready` (its first
 * group: the base URL), asks `paths` in order (any status: an oracle request answers 500), and returns its output
 * and the calls recorded once every upstream path in `expect` has a row. The server is killed with its group.
 */
async function serveDev(app: string, args: string[], ready: RegExp, paths: string[], expect: string[], extra: NodeJS.ProcessEnv = {}): Promise<Served> {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const env = appEnv(`--require ${REGISTER}`, { API_URL: stub.url, ...extra });
  const child = startChild(process.execPath, args, { cwd: app, env });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const base = (await waitForLine(child, ready, 300_000))[1]!;
    if (args.some((arg) => arg.includes('nuxi'))) await untilServing(base);
    for (const ask of paths) await (await fetch(new URL(ask, base))).arrayBuffer();
    // Stored once the server's unit ends: waited for while the server runs, not for a time guessed for a loaded machine.
    const rows = await whilePossible(
      () => {
        const found = httpRows(app);
        return expect.every((p) => found.some((row) => new URL(row.url).pathname === p)) && found;
      },
      () => running(child),
      `rows of ${expect.join(', ')}`,
    );
    return { output, rows };
  } finally {
    killGroup(child);
  }
}

/**
 * The oracle of a Vite dev server: the route throws the Error made on the call's line (`?oracle=<name>`), and the
 * framework prints it with its stack fixed by Vite (ssrFixStacktrace, through the module's transform map). Name →
 * `file:line` relative to the app.
 */
function fixedOracles(output: string, app: string): Map<string, string> {
  const expected = new Map<string, string>();
  for (const match of output.matchAll(/^Error: oracle (\S+)\n\s+at (?:\S+ \()?([^\s()]+):(\d+):\d+\)?$/gm)) {
    expected.set(match[1]!, `${path.relative(fs.realpathSync(app), fs.realpathSync(path.resolve(app, match[2]!)))}:${match[3]}`);
  }
  return expected;
}

describe('origin under dev servers: the line the dev server itself maps an Error at the call to', { timeout: 3_000_000 }, () => {
  before(async () => {
    stub = await startStub();
  });
  after(async () => stub?.close());

  it('SvelteKit `vite dev` (Vite 6 module runner): a load in JavaScript and an endpoint in TypeScript, as Vite fixes their stacks', async () => {
    const app = await frameAppCopy('sveltekit', 'dev');
    const port = await freePort();
    const calls = { 'dev-load': '/users/dev-load', 'dev-global': '/users/dev-global', 'dev-endpoint': '/users/dev-endpoint' };
    // Each route's first request is its first call: the module was evaluated moments before.
    const paths = [
      '/dev/page',
      '/dev/endpoint',
      '/dev/page',
      ...Object.keys(calls).map((name) => `/dev/${name === 'dev-endpoint' ? 'endpoint' : 'page'}?oracle=${name}`),
    ];
    const { output, rows } = await serveDev(
      app,
      ['node_modules/vite/bin/vite.js', 'dev', '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
      /Local:\s+(http:\/\/\S+)/,
      paths,
      Object.values(calls),
      { FRAMES_OUT: 'dev' },
    );
    const expected = fixedOracles(output, app);
    for (const at of expected.values()) assert.ok(at.startsWith('src/routes/dev/'), `Vite fixed the stack to the route's file: ${at}\n${output}`);
    assertOrigins(rows, expected, calls);
  });

  it('React Router 7 `react-router dev` (the same Vite module runner, no code of its own in Probe): a loader, as Vite fixes its stack', async () => {
    const app = await frameAppCopy('react-router', 'dev');
    const port = await freePort();
    const calls = { 'rr-dev': '/users/rr-dev' };
    const { output, rows } = await serveDev(
      app,
      ['node_modules/@react-router/dev/bin.js', 'dev', '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
      /Local:\s+(http:\/\/\S+)/,
      ['/dev', '/dev?oracle=rr-dev'],
      Object.values(calls),
    );
    const expected = fixedOracles(output, app);
    for (const at of expected.values()) assert.ok(at.startsWith('app/routes/'), `Vite fixed the stack to the route's file: ${at}\n${output}`);
    assertOrigins(rows, expected, calls);
  });

  it('Nuxt 3 `nuxi dev`: a server route calling through $fetch and fetch, as the dev build maps it', async () => {
    const app = await frameAppCopy('nuxt', 'dev');
    const calls = { 'nuxt-fetch': '/users/nuxt-fetch', 'nuxt-global': '/users/nuxt-global' };
    const { output, rows } = await serveDev(
      app,
      ['node_modules/@nuxt/cli/bin/nuxi.mjs', 'dev', '--port', '0', '--host', '127.0.0.1'],
      /Local:\s+(http:\/\/\S+)[\s\S]*Nitro server built/,
      ['/api/items'],
      Object.values(calls),
      { NUXT_TELEMETRY_DISABLED: '1' },
    );
    // Printed as the dev worker runs it (.nuxt/dev/index.mjs); the oracle is that position through the dev
    // build's own map, as Node's --enable-source-maps reads it.
    const expected = new Map([...oracles(output, app)].map(([name, at]) => [name, throughBuildMaps(app, at)]));
    for (const at of expected.values()) assert.ok(at.startsWith('server/api/'), `the dev build's map leads to server/: ${at}\n${output}`);
    assertOrigins(rows, expected, calls);
  });
});
