import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestApp, lastJsonLine } from '../helpers/app';

// `.probe/servers/` is read when a request looks like a proxy's (see proxyHop): anything a repository commits or
// someone plants there (a FIFO, a link to /dev/zero) must neither hold the request nor swell the app.

/** A front server passing each request on to a back server of the same app, same method and path: a proxy hop. */
const APP = `
const http = require('node:http');
const back = http.createServer((req, res) => res.end('from back ' + req.url));
back.listen(0, '127.0.0.1', () => {
  const front = http.createServer(async (req, res) => {
    const answer = await fetch('http://127.0.0.1:' + back.address().port + req.url);
    res.end(await answer.text());
  });
  front.listen(0, '127.0.0.1', async () => {
    const bodies = [];
    for (let i = 0; i < 5; i++) bodies.push(await (await fetch('http://127.0.0.1:' + front.address().port + '/items/' + i)).text());
    console.log(JSON.stringify({ bodies, maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }));
    back.close();
    front.close();
  });
});
`;

test('a FIFO and a link to /dev/zero in .probe/servers: the app still answers every request, its memory stays bounded', async () => {
  const app = new TestApp({ 'app.js': APP });
  const servers = path.join(app.dir, '.probe', 'servers');
  mkdirSync(servers, { recursive: true, mode: 0o700 });
  execFileSync('mkfifo', [path.join(servers, 'planted-fifo.json')]);
  symlinkSync('/dev/zero', path.join(servers, 'planted-zero.json'));
  // A regular file larger than any list Probe writes: refused whole, never read to its end.
  writeFileSync(
    path.join(servers, 'planted-big.json'),
    `{"pid":${process.pid},"servers":[${'{"kind":"tcp","at":"1"},'.repeat(200_000)}{"kind":"tcp","at":"1"}]}`,
  );
  // The limit only ends a run that would never end (a read of the FIFO blocks forever): no time is asserted.
  const result = await app.run('app.js', { timeout: 120_000 });
  assert.equal(result.code, 0, result.stderr);
  const seen = lastJsonLine<{ bodies: string[]; maxRssMiB: number }>(result.stdout);
  assert.deepEqual(
    seen.bodies,
    [0, 1, 2, 3, 4].map((i) => `from back /items/${i}`),
  );
  // Reading /dev/zero to its end took an app past 7 GB; a Node app of this size stays far below 1 GiB.
  assert.ok(seen.maxRssMiB < 1024, `${seen.maxRssMiB} MiB`);
});
