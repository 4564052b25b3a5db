import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv } from '../compat/install';
import { killGroup, startChild } from '../helpers/child';
import { packProbe } from '../helpers/pinned';

/**
 * A newcomer's path, with the README's own commands as written: the install line (the release tarball), the quick
 * start (`probe install`, `probe run -- node server.js` with its dashboard, `probe list`, `probe show`) and the
 * `probe rows` line of its example, in a fresh app outside the repository. The commands are read from README.md,
 * so a README that stops working fails here.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The shell lines of the README's fenced blocks, comments cut. */
function readmeLines(): string[] {
  const lines: string[] = [];
  for (const block of README.matchAll(/```(?:sh)?\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw
        .replace(/^\$ /, '')
        .replace(/\s+#.*$/, '')
        .trim();
      if (line) lines.push(line);
    }
  }
  return lines;
}

function readmeCommand(prefix: string): string {
  const line = readmeLines().find((candidate) => candidate.startsWith(prefix));
  assert.ok(line, `README.md has a command starting with ${prefix}`);
  return line;
}

interface Ran {
  code: number | null;
  out: string;
}

function sh(command: string, cwd: string, timeout = 300_000): Promise<Ran> {
  return new Promise((resolve) => {
    const env = { ...cleanEnv(), npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
    const child = startChild('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => killGroup(child), timeout);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

// The newcomer's app: one good call and one to a closed port, then it waits to be stopped (a server would).
const SERVER = `const http = require('node:http');
const net = require('node:net');
const closed = net.createServer().listen(0, '127.0.0.1', () => {
  const dead = closed.address().port;
  closed.close(() => {
    const server = http.createServer((req, res) => res.end('{"ok":true}')).listen(0, '127.0.0.1', async () => {
      await fetch('http://127.0.0.1:' + server.address().port + '/items/1').then((r) => r.json());
      await fetch('http://127.0.0.1:' + dead + '/unreachable').catch(() => {});
      console.log('calls made');
      process.on('SIGINT', () => server.close(() => process.exit(0)));
    });
  });
});
`;

test("the README's install and quick start, as written, in a fresh app", { timeout: 900_000 }, async (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-readme-'));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  const app = path.join(base, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'newcomer', version: '1.0.0', private: true }, null, 2) + '\n');
  fs.writeFileSync(path.join(app, 'server.js'), SERVER);

  const tgz = await packProbe();
  const install = readmeCommand('npm install --save-dev probe@file:').replace(/\/path\/to\/probe-http-[^\s]+\.tgz/, tgz);
  const installed = await sh(install, app);
  assert.equal(installed.code, 0, installed.out);
  assert.doesNotMatch(installed.out, /install-scripts/, 'no install script of the tarball to review');

  const probeInstall = await sh(readmeCommand('npx --no probe install'), app);
  assert.equal(probeInstall.code, 0, probeInstall.out);
  assert.ok(fs.existsSync(path.join(app, 'probe.config.mjs')), probeInstall.out);

  // `probe run`: the dashboard's URL on stderr, the app's output through, its captures served while it runs.
  const run = readmeCommand('npx --no probe run -- node server.js');
  const env = { ...cleanEnv(), npm_config_update_notifier: 'false' };
  const child = startChild('bash', ['-c', `exec ${run}`], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => killGroup(child));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const dashboard = await new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const url = /Probe dashboard: (http:\/\/\S+)/.exec(out)?.[1];
      if (url && out.includes('calls made')) resolve(url);
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.on('close', () => reject(new Error(`probe run ended early:\n${out}`)));
  });
  // The background calls reach the store within about a second; the dashboard lists what the store holds.
  let listed: Array<{ type: string; name: string }> = [];
  for (let tries = 0; tries < 100 && !listed.some((row) => row.type === 'command'); tries++) {
    listed = (await (await fetch(new URL('/api/captures', dashboard))).json()) as typeof listed;
    if (!listed.some((row) => row.type === 'command')) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(
    listed.some((row) => row.type === 'command' && row.name.includes('server.js')),
    `the dashboard lists the app's capture: ${JSON.stringify(listed)}`,
  );
  const page = await fetch(dashboard);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<html/i);
  // Ctrl+C: the terminal signals the whole foreground group.
  process.kill(-child.pid!, 'SIGINT');
  // npx itself ends by the signal it was sent; the app and `probe run` end cleanly.
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (...ended) => resolve(ended)));
  assert.ok(code === 0 || signal === 'SIGINT', `${code} ${signal}: ${out}`);

  const list = await sh(readmeCommand('npx --no probe list'), app);
  assert.equal(list.code, 0, list.out);
  assert.match(list.out, /command\s+exit 0\s+.*server\.js/);
  const show = await sh(readmeCommand('npx --no probe show'), app);
  assert.equal(show.code, 0, show.out);
  assert.match(show.out, /GET \/items\/1|server\.js/, 'the newest capture, shown');

  // The README's `probe rows` line on the failed call, run through the app's own Probe.
  const rows = await sh(`npx --no ${readmeCommand("probe rows '*' --where failed=true")}`, app);
  assert.equal(rows.code, 0, rows.out);
  assert.match(rows.out, /\/unreachable/);
  assert.match(rows.out, /ECONNREFUSED/, 'the cause of the failure is shown where the failure is');
  assert.match(rows.out, /server\.js\s+8\b/, 'the line of server.js that made the call');
});
