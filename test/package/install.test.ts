import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cleanEnv } from '../compat/install';
import { killGroup, startChild } from '../helpers/child';

/**
 * Probe installed as a user installs it, into fresh apps under the temp folder: the release tarball, and a
 * git install (`git+file://` of a clean clone, so npm runs `prepare` to build dist/). Each app runs under
 * `--require probe/register` and `--import probe/register`, lists its captures with its own
 * `node_modules/.bin/probe`, and starts the MCP command `probe install --mcp` wrote with the real MCP client.
 * npm reaches nothing but the registry, and its cache first (`--prefer-offline`).
 */
const ROOT = path.resolve(__dirname, '..', '..');
const isGit = (() => {
  try {
    execFileSync('git', ['rev-parse', '--verify', '-q', 'HEAD'], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

interface Ran {
  code: number | null;
  out: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = npmEnv(), timeout = 600_000): Promise<Ran> {
  return new Promise((resolve) => {
    const child = startChild(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The runner's environment without Probe's or OTel's settings; npm uses its cache before the registry (also in a git dependency's own install). */
function npmEnv(): NodeJS.ProcessEnv {
  return { ...cleanEnv(), npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

const SERVER = `const http = require('node:http');
module.exports = (make) => new Promise((resolve) => {
  const server = http.createServer((req, res) => res.end('{"ok":true}')).listen(0, '127.0.0.1', async () => {
    const url = 'http://127.0.0.1:' + server.address().port + '/items/1';
    await make(url);
    server.close(resolve);
  });
});
`;

const APP_CJS = `const { pool } = require('probe');
require('./server.cjs')((url) => pool(() => fetch(url).then((r) => r.json()))).then(() => console.log('cjs ok'));
`;

const APP_MJS = `import { createRequire } from 'node:module';
import { pool } from 'probe';
const serve = createRequire(import.meta.url)('./server.cjs');
await serve((url) => pool(() => fetch(url).then((r) => r.json())));
console.log('esm ok');
`;

async function makeApp(base: string, name: string, spec: string): Promise<string> {
  const app = path.join(base, name);
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }, null, 2) + '\n');
  fs.writeFileSync(path.join(app, 'server.cjs'), SERVER);
  fs.writeFileSync(path.join(app, 'app.cjs'), APP_CJS);
  fs.writeFileSync(path.join(app, 'app.mjs'), APP_MJS);
  const installed = await run('npm', ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', spec], app);
  assert.equal(installed.code, 0, `npm install ${spec} in ${name}:\n${installed.out}`);
  // The tarball is built: npm has no install script of it to list (a git install builds, so it has one).
  if (spec.startsWith('probe@file:')) assert.doesNotMatch(installed.out, /install-scripts|prepare/, installed.out);
  return app;
}

async function checkApp(app: string, label: string): Promise<void> {
  const probe = path.join(app, 'node_modules', '.bin', process.platform === 'win32' ? 'probe.cmd' : 'probe');
  assert.ok(fs.existsSync(path.join(app, 'node_modules', 'probe', 'dist', 'register.js')), `${label}: dist/ was built and installed`);
  assert.ok(fs.existsSync(path.join(app, 'node_modules', 'probe', 'LICENSE')), `${label}: LICENSE shipped`);
  // Every entry of `exports` (probe/register, probe/vitest, probe/jest, probe/jest-jsdom…) names a file shipped.
  const manifest = JSON.parse(fs.readFileSync(path.join(app, 'node_modules', 'probe', 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>;
  };
  for (const [entry, target] of Object.entries(manifest.exports)) {
    for (const file of typeof target === 'string' ? [target] : Object.values(target)) {
      assert.ok(fs.existsSync(path.join(app, 'node_modules', 'probe', file)), `${label}: exports ${entry} → ${file} is shipped`);
    }
  }

  for (const [script, preload, said] of [
    ['app.cjs', '--require probe/register', 'cjs ok'],
    ['app.mjs', '--import probe/register', 'esm ok'],
  ] as const) {
    const ran = await run(process.execPath, [script], app, { ...cleanEnv(), NODE_OPTIONS: preload }, 180_000);
    assert.equal(ran.code, 0, `${label}: ${preload} node ${script}:\n${ran.out}`);
    assert.equal(ran.out.trim(), said, `${label}: ${preload} node ${script} prints only the app's line`);
  }

  const list = await run(probe, ['list', '--json'], app, cleanEnv(), 180_000);
  assert.equal(list.code, 0, `${label}: node_modules/.bin/probe list:\n${list.out}`);
  // Per run: the script's command capture and the loopback server's request capture.
  assert.equal((JSON.parse(list.out) as { total: number }).total, 4, `${label}: two captures per run:\n${list.out}`);
  assert.match(list.out, /app\.cjs/);
  assert.match(list.out, /app\.mjs/);

  const install = await run(probe, ['install', '--mcp'], app, cleanEnv(), 180_000);
  assert.equal(install.code, 0, `${label}: probe install --mcp:\n${install.out}`);
  assert.match(install.out, /\.mcp\.json: registered the probe MCP server: node node_modules\/probe\/dist\/cli\/main\.js mcp/);
  assert.doesNotMatch(install.out, /npx|note:/);

  const registered = [
    JSON.parse(fs.readFileSync(path.join(app, '.mcp.json'), 'utf8')).mcpServers.probe,
    JSON.parse(fs.readFileSync(path.join(app, '.cursor', 'mcp.json'), 'utf8')).mcpServers.probe,
    JSON.parse(fs.readFileSync(path.join(app, '.vscode', 'mcp.json'), 'utf8')).servers.probe,
  ] as Array<{ command: string; args: string[] }>;
  for (const entry of registered) {
    assert.equal(entry.command, 'node', `${label}: ${JSON.stringify(entry)}`);
    // Started the way the editor starts it: in the project folder, VS Code's variable expanded.
    const args = entry.args.map((arg) => arg.replace('${workspaceFolder}', app));
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(cleanEnv())) if (value !== undefined) env[key] = value;
    const transport = new StdioClientTransport({ command: process.execPath, args, cwd: app, env, stderr: 'pipe' });
    const client = new Client({ name: 'probe-package-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ['probe-list', 'probe-rows', 'probe-show'], `${label}: ${args.join(' ')}`);
    } finally {
      await client.close();
    }
  }
}

test(
  'installed from the packed tarball and from git, Probe keeps its name, runs under both preloads, and its CLI and registered MCP server work',
  { timeout: 900_000 },
  async (t) => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-package-'));
    t.after(() => fs.rmSync(base, { recursive: true, force: true }));

    // The release tarball (`npm run pack`, of the dist/ npm test built), installed under the module name `probe`.
    const packed = await run(process.execPath, [path.join(ROOT, 'scripts', 'pack.mjs'), '--pack-destination', base], ROOT);
    assert.equal(packed.code, 0, packed.out);
    const tgz = packed.out.trim().split('\n').pop()!;
    assert.match(path.basename(tgz), /^probe-http-\d+\.\d+\.\d+\.tgz$/);

    const installs: Array<Promise<[string, string]>> = [makeApp(base, 'tarball-app', `probe@file:${tgz}`).then((app) => ['tarball', app])];
    if (isGit) {
      // A clean clone: what a git install sees is the committed HEAD, with no dist/.
      const clone = path.join(base, 'clone');
      const cloned = await run('git', ['clone', '-q', ROOT, clone], base);
      assert.equal(cloned.code, 0, cloned.out);
      assert.equal(fs.existsSync(path.join(clone, 'dist')), false);
      installs.push(makeApp(base, 'git-app', `probe@git+file://${clone}`).then((app) => ['git', app]));
    } else {
      t.diagnostic('not a git checkout: the git install is not tested');
    }
    for (const [label, app] of await Promise.all(installs)) await checkApp(app, label);
  },
);
