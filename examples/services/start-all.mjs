// `npm start`: the supplier, then inventory, orders and gateway, each under `--require probe/register` with one
// shared folder (PROBE_ROOT: this folder, whose .probe/ holds every service's captures). `--once` sends one request to
// the gateway, prints `probe show --flow` of it, and stops everything.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const once = process.argv.includes('--once');
const base = Number(process.env.BASE_PORT || 3000);
const url = (offset) => `http://127.0.0.1:${base + offset}`;
const env = { ...process.env, PROBE_ROOT: here, ORDERS_URL: url(1), INVENTORY_URL: url(2), SUPPLIER_URL: url(3) };
const children = [];

function start(folder, script, port, recorded) {
  const child = spawn(process.execPath, [script], {
    cwd: path.join(here, folder),
    env: { ...env, PORT: String(port), NODE_OPTIONS: recorded ? `${process.env.NODE_OPTIONS ?? ''} --require probe/register`.trim() : '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve) => child.stdout.on('data', (chunk) => (String(chunk).includes('listening') ? resolve() : process.stdout.write(chunk))));
}

const stop = () => children.forEach((child) => child.kill('SIGTERM'));
process.on('SIGINT', stop);
await start('.', 'supplier.js', base + 3, false);
await start('inventory', 'server.js', base + 2, true);
await start('orders', 'server.js', base + 1, true);
await start('gateway', 'server.js', base, true);
console.log(`gateway on ${url(0)}/checkout/42 (Ctrl+C stops all)`);
if (once) {
  await (await fetch(`${url(0)}/checkout/42`)).json();
  stop();
  await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
  const probe = process.env.PROBE_BIN ? [process.env.PROBE_BIN] : [];
  const list = spawnSync(process.execPath, [...probe, 'list', '--service', 'gateway', '--limit', '1', '--json'], { cwd: here, env, encoding: 'utf8' });
  const id = JSON.parse(list.stdout).captures[0].id;
  spawnSync(process.execPath, [...probe, 'show', id, '--flow'], { cwd: here, env, stdio: 'inherit' });
}
