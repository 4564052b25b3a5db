// `npm run example`: starts the upstream stand-in, runs the shop under `--require probe/register`, sends it a
// few requests, stops it, runs the shop's test file with `node --test` under the preload, and prints
// `probe list`. Then `npm run dashboard` shows the captures.
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startUpstream } from './upstream.mjs';
import { prepareTestModules } from '../scripts/test-modules.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The shop finds this checkout as `probe` (the module name an app installs it under) through a folder of links,
// as an app with Probe in its node_modules would.
const NODE_PATH = prepareTestModules(root);
const upstream = await startUpstream();
const UPSTREAM_URL = `http://127.0.0.1:${upstream.address().port}`;
// A port that was free a moment ago and is closed now: the shop's call to it fails with ECONNREFUSED.
const DEAD_URL = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(`http://127.0.0.1:${port}`));
  });
});

const shop = spawn(process.execPath, ['examples/shop.js'], {
  cwd: root,
  env: { ...process.env, NODE_OPTIONS: '--require probe/register', NODE_PATH, UPSTREAM_URL, DEAD_URL },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const shopUrl = await new Promise((resolve, reject) => {
  shop.stdout.setEncoding('utf8').on('data', (line) => {
    const match = line.match(/listening on (\S+)/);
    if (match) resolve(match[1]);
  });
  shop.on('exit', (code) => reject(new Error(`shop exited early (${code})`)));
});
console.log(`shop is up at ${shopUrl}; sending requests…`);
for (const target of ['/carts/17/checkout', '/rates', '/carts/18/checkout']) {
  const res = await fetch(shopUrl + target);
  console.log(`  GET ${target} → ${res.status} ${await res.text()}`);
}
await new Promise((r) => setTimeout(r, 500));
shop.kill('SIGTERM');
await new Promise((r) => shop.on('close', r));

console.log('\n$ node --test examples/shop.test.js');
await new Promise((resolve) => {
  const tests = spawn(process.execPath, ['--test', '--test-reporter=spec', 'examples/shop.test.js'], {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: '--require probe/register', NODE_PATH, UPSTREAM_URL },
    stdio: 'inherit',
  });
  tests.on('close', resolve);
});
upstream.close();

console.log('\n$ probe list');
spawnSync(process.execPath, [path.join(root, 'dist/cli/main.js'), 'list'], { cwd: root, stdio: 'inherit' });
console.log('\nThe dashboard: npm run dashboard -- --open');
