import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, packProbe } from '../helpers/pinned';
import { killGroup, startChild } from '../helpers/child';
import { eventually } from '../helpers/app';

/**
 * An npm workspaces root with Probe installed from the packed tarball, as a monorepo gets it: the processes of its
 * workspaces (`npm run dev -w packages/api`, their folder is the package's) store where the user at the root
 * reads (`probe list`, `probe run`'s dashboard), under the root's config; a project below the root that is not
 * one of its workspaces keeps its own store, and `probe list` at the root says in one line where it went.
 */

const SECRET = 'team-token-7c1f';

/** Serves one route, calls it once with a header the root's config masks, says ready, ends on a line of input. */
const APP = `const http = require('node:http');
const server = http.createServer((req, res) => res.end(JSON.stringify({ path: req.url })));
server.listen(0, '127.0.0.1', async () => {
  const url = 'http://127.0.0.1:' + server.address().port + '/items/1';
  const body = await fetch(url, { headers: { 'x-team-token': '${SECRET}' } }).then((r) => r.text());
  console.log('ready ' + body);
  process.stdin.setEncoding('utf8').once('data', () => server.close(() => process.exit(0)));
});
`;

const ROOT_CONFIG = `export default { mask: { headers: { 'x-team-token': 'FullMask' } } };\n`;

interface Running {
  child: ChildProcess;
  out: string;
  err: string;
  ended: Promise<number | null>;
}

function start(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Running {
  const child = startChild(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const running: Running = { child, out: '', err: '', ended: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (running.out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (running.err += chunk));
  return running;
}

async function finish(running: Running, timeout = 300_000): Promise<Running & { code: number | null }> {
  const timer = setTimeout(() => killGroup(running.child), timeout);
  const code = await running.ended;
  clearTimeout(timer);
  await new Promise((resolve) => setImmediate(resolve));
  return { ...running, code };
}

/** Runs an app to its ready line, then ends it with a line of input. */
async function runApp(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Running & { code: number | null }> {
  const running = start(command, args, cwd, env);
  await eventually(() => /ready /.test(running.out) || running.child.exitCode !== null, 120_000);
  running.child.stdin!.end('done\n');
  return finish(running);
}

function npmEnv(): NodeJS.ProcessEnv {
  return { ...cleanEnv(), npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

function captureFiles(dir: string): Array<{ name: string; type: string; text: string }> {
  const folder = path.join(dir, '.probe', 'captures');
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .map((name) => {
      const text = fs.readFileSync(path.join(folder, name), 'utf8');
      const { row } = JSON.parse(text) as { row: { name: string; type: string } };
      return { name: row.name, type: row.type, text };
    });
}

test('an npm workspaces root: its workspaces store at the root under its config; probe list and probe run read them there', { timeout: 900_000 }, async (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-workspaces-'));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  const root = path.join(base, 'mono');
  const api = path.join(root, 'packages', 'api');
  const seed = path.join(root, 'tools', 'seed');
  for (const dir of [api, seed]) fs.mkdirSync(dir, { recursive: true });
  const tgz = await packProbe();
  const json = (file: string, value: unknown) => fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
  json(path.join(root, 'package.json'), {
    name: 'mono',
    version: '1.0.0',
    private: true,
    workspaces: ['packages/*'],
    devDependencies: { probe: `file:${tgz}` },
  });
  fs.writeFileSync(path.join(root, 'probe.config.mjs'), ROOT_CONFIG);
  json(path.join(api, 'package.json'), { name: 'api', version: '1.0.0', private: true, scripts: { dev: 'node api.js' } });
  fs.writeFileSync(path.join(api, 'api.js'), APP);
  // A project inside the repository that is not one of its workspaces: its own root.
  json(path.join(seed, 'package.json'), { name: 'seed', version: '1.0.0', private: true });
  fs.writeFileSync(path.join(seed, 'seed.js'), APP);
  const installed = await finish(start('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], root, npmEnv()), 600_000);
  assert.equal(installed.code, 0, installed.out + installed.err);
  const probe = path.join(root, 'node_modules', '.bin', 'probe');

  await t.test('a project that is not a workspace stores under its own folder; probe list at the root says where, in one line', async () => {
    const ran = await runApp(process.execPath, [path.join(seed, 'seed.js')], seed, {
      ...cleanEnv(),
      NODE_OPTIONS: `--require ${path.join(root, 'node_modules', 'probe', 'dist', 'register.js')}`,
    });
    assert.equal(ran.code, 0, ran.err);
    await eventually(() => captureFiles(seed).some((capture) => capture.type === 'request'));
    const list = await finish(start(probe, ['list'], root, cleanEnv()));
    assert.equal(list.code, 0, list.err);
    assert.match(list.out, /tools\/seed\/\.probe/, list.out);
    assert.match(list.out, /PROBE_ROOT='tools\/seed' probe list/, list.out);
    const there = await finish(start(probe, ['list', '--json'], root, { ...cleanEnv(), PROBE_ROOT: 'tools/seed' }));
    assert.ok((JSON.parse(there.out) as { total: number }).total >= 1, there.out);
  });

  await t.test('npm run dev -w packages/api under the preload: probe list at the root shows its captures, the root config masked them', async () => {
    const ran = await runApp('npm', ['run', 'dev', '-w', 'packages/api'], root, { ...npmEnv(), NODE_OPTIONS: '--require probe/register' });
    assert.equal(ran.code, 0, ran.err);
    assert.equal(fs.existsSync(path.join(api, '.probe')), false, 'nothing stored in the package folder');
    const captures = await eventually(() => {
      const found = captureFiles(root);
      return (
        found.some((capture) => capture.type === 'request') && found.some((capture) => capture.type === 'command' && /api\.js/.test(capture.name)) && found
      );
    });
    const command = captures.find((capture) => capture.type === 'command' && /api\.js/.test(capture.name))!;
    assert.match(command.text, /x-team-token/i, 'the call with the header is in the command capture');
    assert.doesNotMatch(command.text, new RegExp(SECRET), "the root's probe.config.mjs applied to the workspace's process");
    const list = await finish(start(probe, ['list', '--json'], root, cleanEnv()));
    const listed = JSON.parse(list.out) as { captures: Array<{ name: string }> };
    assert.ok(
      listed.captures.some((row) => row.name === 'GET /items/1'),
      list.out,
    );
  });

  await t.test("probe run -- npm run dev -w packages/api at the root: the dashboard it prints lists the workspace's request", async () => {
    fs.rmSync(path.join(root, '.probe'), { recursive: true, force: true });
    const running = start(probe, ['run', '--', 'npm', 'run', 'dev', '-w', 'packages/api'], root, npmEnv());
    const url = await eventually(() => /Probe dashboard: (\S+)/.exec(running.err)?.[1] ?? (running.child.exitCode !== null ? 'exited' : undefined), 120_000);
    assert.notEqual(url, 'exited', running.err);
    await eventually(() => /ready /.test(running.out) || running.child.exitCode !== null, 120_000);
    const rows = await eventually(async () => {
      const index = (await (await fetch(new URL('/api/captures', url))).json()) as Array<{ name: string; type: string }>;
      return index.some((row) => row.name === 'GET /items/1') && index;
    });
    assert.ok(rows.some((row) => row.type === 'request'));
    running.child.stdin!.end('done\n');
    const ended = await finish(running);
    assert.equal(ended.code, 0, ended.err);
  });
});
