import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, installPinned, packProbe } from '../helpers/pinned';
import { killGroup, runChild, startChild } from '../helpers/child';
import { eventually } from '../helpers/app';

/**
 * Probe in a Yarn 4 Plug'n'Play app (Yarn's default: no node_modules, packages read from zip archives through
 * `.pnp.cjs`), installed as Yarn installs it: `yarn add -D <the packed tarball>`. Yarn 4 is its npm package
 * (`@yarnpkg/cli-dist`, the bundle `yarn set version` downloads), pinned; its cache lives outside the repository
 * and it reaches only the registry npm is configured with.
 */
const CACHE = process.env.PROBE_YARN_CACHE ?? path.join(os.homedir(), '.cache', 'probe-yarn');
const YARN_VERSION = '4.18.1';

/** Serves one route and calls it; with `wait`, says ready and ends on a line of input. */
const APP = `const http = require('node:http');
const server = http.createServer((req, res) => res.end('{"ok":true}'));
server.listen(0, '127.0.0.1', async () => {
  const body = await fetch('http://127.0.0.1:' + server.address().port + '/items/' + process.argv[2]).then((r) => r.text());
  console.log('got ' + body);
  if (process.argv[3] !== 'wait') return server.close();
  process.stdin.setEncoding('utf8').once('data', () => server.close(() => process.exit(0)));
});
`;

async function yarnApp(): Promise<{ app: string; yarn: string[]; env: NodeJS.ProcessEnv }> {
  const cli = await installPinned({
    dir: path.join(CACHE, 'cli'),
    package: { name: 'yarn-cli', dependencies: { '@yarnpkg/cli-dist': YARN_VERSION } },
    probe: false,
  });
  const yarn = [path.join(cli, 'node_modules', '@yarnpkg', 'cli-dist', 'bin', 'yarn.js')];
  const registry = (await runChild('npm', ['config', 'get', 'registry'], { env: cleanEnv() })).stdout.trim();
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-pnp-'));
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'pnp-app', version: '1.0.0', private: true, packageManager: `yarn@${YARN_VERSION}` }, null, 2) + '\n',
  );
  const settings = { npmRegistryServer: registry, globalFolder: path.join(CACHE, 'global'), enableTelemetry: false, enableGlobalCache: true };
  fs.writeFileSync(
    path.join(app, '.yarnrc.yml'),
    Object.entries(settings)
      .map(([key, value]) => `${key}: ${JSON.stringify(value)}\n`)
      .join(''),
  );
  fs.writeFileSync(path.join(app, 'api.js'), APP);
  return { app, yarn, env: { ...cleanEnv(), YARN_ENABLE_PROGRESS_BARS: 'false' } };
}

function captureRows(app: string): Array<{ name: string; type: string }> {
  const folder = path.join(app, '.probe', 'captures');
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .map((name) => (JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')) as { row: { name: string; type: string } }).row);
}

test(
  "Yarn 4 Plug'n'Play: yarn add the tarball, then yarn node --require probe/register, yarn probe run and the NODE_OPTIONS form record",
  { timeout: 900_000 },
  async (t) => {
    const { app, yarn, env } = await yarnApp();
    t.after(() => fs.rmSync(app, { recursive: true, force: true }));
    const tgz = await packProbe();
    const added = await runChild(process.execPath, [...yarn, 'add', '-D', `probe@file:${tgz}`], { cwd: app, env, timeout: 600_000 });
    assert.equal(added.code, 0, added.stdout + added.stderr);
    assert.ok(fs.existsSync(path.join(app, '.pnp.cjs')), "a Plug'n'Play install");
    assert.ok(!fs.existsSync(path.join(app, 'node_modules')), 'no node_modules');
    assert.doesNotMatch(added.stdout, /doesn't provide @opentelemetry\/api/, 'Probe asks the app for no peer');

    await t.test('yarn node --require probe/register api.js', async () => {
      const alone = await runChild(process.execPath, [...yarn, 'node', 'api.js', '1'], { cwd: app, env });
      const ran = await runChild(process.execPath, [...yarn, 'node', '--require', 'probe/register', 'api.js', '1'], { cwd: app, env });
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, alone.stdout);
      assert.equal(ran.stderr, alone.stderr, 'nothing more on stderr');
      await eventually(() => captureRows(app).some((row) => row.name === 'GET /items/1'));
    });

    await t.test('NODE_OPTIONS="--require ./.pnp.cjs --require probe/register" node api.js', async () => {
      const ran = await runChild(process.execPath, ['api.js', '2'], {
        cwd: app,
        env: { ...env, NODE_OPTIONS: '--require ./.pnp.cjs --require probe/register' },
      });
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, 'got {"ok":true}\n');
      await eventually(() => captureRows(app).some((row) => row.name === 'GET /items/2'));
    });

    await t.test('yarn probe run -- node api.js: the dashboard it prints serves the captures; yarn probe list lists them', async () => {
      const child: ChildProcess = startChild(process.execPath, [...yarn, 'probe', 'run', '--', 'node', 'api.js', '3', 'wait'], { cwd: app, env });
      let out = '';
      let err = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
      const ended = new Promise<number | null>((resolve) => child.once('exit', resolve));
      const timer = setTimeout(() => killGroup(child), 300_000);
      const url = await eventually(() => /Probe dashboard: (\S+)/.exec(err)?.[1] ?? (child.exitCode !== null ? 'exited' : undefined), 120_000);
      assert.notEqual(url, 'exited', out + err);
      const page = await fetch(url);
      assert.equal(page.status, 200);
      const index = await eventually(async () => {
        const rows = (await (await fetch(new URL('/api/captures', url))).json()) as Array<{ name: string }>;
        return rows.some((row) => row.name === 'GET /items/3') && rows;
      });
      assert.ok(index.length >= 3);
      child.stdin!.end('done\n');
      assert.equal(await ended, 0, err);
      clearTimeout(timer);
      const list = await runChild(process.execPath, [...yarn, 'probe', 'list'], { cwd: app, env });
      assert.equal(list.code, 0, list.stderr);
      for (const n of [1, 2, 3]) assert.match(list.stdout, new RegExp(`GET /items/${n}`));
    });
  },
);
