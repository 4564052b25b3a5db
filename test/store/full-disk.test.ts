// A nearly full disk under `.probe` (a real, small tmpfs): a capture that fits is written, the next one does not,
// the trim frees room, and so on for as long as the app runs. The app's stderr says the outage once and the
// captures it lost as a count, however long it goes on, never a pair of lines per lost capture.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestApp, collect, waitForLine } from '../helpers/app';

/** A server passing each request on to itself, whose answer (recorded whole) weighs between 1 and 48 KiB. */
const APP = `const http = require('node:http');
const server = http.createServer(async (req, res) => {
  if (req.url === '/stop') return res.end('bye', () => server.close());
  if (req.url.startsWith('/data/')) return res.end('x'.repeat(Number(req.url.slice(6))));
  const size = 1024 + Math.floor(Math.random() * 47 * 1024);
  res.end(await (await fetch('http://127.0.0.1:' + server.address().port + '/data/' + size)).text());
});
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));`;

/** Runs the app's requests for a minute, from this process (the app's own command capture stays small). */
const RUN_MS = 60_000;

/** Whether this process may mount a tmpfs (root, with the capability): tried once on a folder of its own. */
function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'probe-mount-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', folder], { stdio: 'ignore' });
    execFileSync('umount', [folder], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const mounted: string[] = [];
after(() => {
  for (const folder of mounted) execFileSync('umount', ['-l', folder]);
});

describe('a nearly full disk', { skip: canMount() ? false : 'needs root to mount a small tmpfs' }, () => {
  it('a minute of ENOSPC: one line when it starts, a count of the captures lost, no line per lost capture', async () => {
    const app = new TestApp({ 'app.js': APP, 'probe.config.mjs': 'export default { storage: { limit: 3 } };\n' });
    const probe = path.join(app.dir, '.probe');
    mkdirSync(probe, { mode: 0o700 });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k,mode=0700', 'tmpfs', probe]);
    mounted.push(probe);
    // Room for a few captures only: a small one fits, a large one does not, and each trim frees room for the next.
    writeFileSync(path.join(probe, 'filler'), Buffer.alloc(360 * 1024));
    const child = app.spawn('app.js');
    const port = (await waitForLine(child, /^port (\d+)/))[1];
    const done = collect(child, 240_000);
    let requests = 0;
    for (const end = Date.now() + RUN_MS; Date.now() < end; requests++) {
      await (await fetch(`http://127.0.0.1:${port}/front`)).text();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await (await fetch(`http://127.0.0.1:${port}/stop`)).text();
    const result = await done;
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('[probe]'));
    const said = lines.filter((line) => /ENOSPC|no space/i.test(line));
    assert.equal(said.length, 1, lines.join('\n'));
    const lost = lines.flatMap((line) => [...line.matchAll(/(\d+) capture\(s\) were lost/g)].map((match) => Number(match[1])));
    assert.ok(lost.length > 0 && lost.reduce((a, b) => a + b) > 0, lines.join('\n'));
    // Bounded whatever the run's length: the outage, its count when the store is back, the rest at exit.
    assert.ok(lines.length <= 3, `${lines.length} lines over ${requests} requests:\n${lines.join('\n')}`);
  });
});
