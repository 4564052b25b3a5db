// A credential in an incoming request's path (`/magic/<JWT>`, `/gh/ghp_…`) is masked everywhere the request is
// stored: the capture's `url`, `name`, `sections.request.path`, its route and the span names, as `probe show` and
// `probe rows --section request` read them. A real node:http app under the preload; the stored files are read whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { TestApp, eventually, waitForLine } from '../helpers/app';

// Joined at run time so that this file holds no token whole.
const j = (...parts: string[]) => parts.join('');
const JWT = j('eyJ', 'hbGciOiJIUzI1NiJ9.', 'eyJzdWIiOiJNYWdpY0xpbmsxMjMifQ.', 'TWFnaWNTaWduYXR1cmUwMTIzNDU2Nzg5');
const GITHUB = j('gh', 'p_', 'PathPath0Path1Path2Path3Path4Path5P');
/** A Telegram bot token: a format the request path rule does not name (the value rule decides). */
const TELEGRAM = j('987654321', ':', 'AAPathTelegramTelegram0123456789Tel');
/** What must never be stored of each: its characters past the kept prefix. */
const CORES = ['NYWdpY0xpbmsx', 'TWFnaWNTaWdu', 'PathPath0Path1', 'AAPathTelegram'];

const SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

test('a credential in an incoming path is masked in every stored field and every reader', async () => {
  const app = new TestApp({ 'server.js': SERVER });
  const child = app.spawn('server.js');
  const [, port] = await waitForLine(child, /listening (\d+)/);
  const paths = [`/magic/${JWT}?next=/home`, `/gh/${GITHUB}/repos`, `/bot${TELEGRAM}/sendMessage`];
  for (const p of paths) assert.equal(await fetch(`http://127.0.0.1:${port}${p}`).then((r) => r.text()), 'ok');
  const requests = await eventually(() => {
    const found = app.captures().filter((c) => c.type === 'request');
    return found.length === paths.length && found;
  });
  child.kill();

  const byPath = requests.map((c) => c.sections.request!.path).sort();
  // The path keeps its shape: only the credential goes, its literal prefix stays.
  assert.deepEqual(byPath, ['/bot987654321:********/sendMessage', '/gh/ghp_********/repos', '/magic/eyJ********'].sort());
  for (const capture of requests) {
    const section = capture.sections.request!;
    assert.equal(new URL(section.url).pathname, section.path, 'path is the stored URL’s path');
    assert.equal(capture.name, `GET ${section.path}`);
  }

  // Nothing Probe wrote holds the credentials: capture files, index, whatever else is under .probe.
  const probeDir = path.join(app.dir, '.probe');
  for (const file of readdirSync(probeDir, { recursive: true, withFileTypes: true })) {
    if (!file.isFile()) continue;
    const text = readFileSync(path.join(file.parentPath, file.name), 'utf8');
    for (const core of CORES) assert.ok(!text.includes(core), `${file.name} holds ${core}`);
  }
  for (const args of [
    ['rows', '*', '--section', 'request', '--json'],
    ['rows', '*', '--section', 'request'],
    ...requests.map((c) => ['show', c.id, '--json']),
  ]) {
    const out = await app.cli(args);
    assert.equal(out.code, 0, out.stderr);
    for (const core of CORES) assert.ok(!out.stdout.includes(core), `probe ${args.join(' ')} prints ${core}`);
    assert.match(out.stdout, /\*{8}/);
  }
});
