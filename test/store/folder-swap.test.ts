// A capture folder swapped while the app runs (a `git checkout` that replaces `.probe/captures` by a committed
// link): Probe stops writing there, says so once, and neither writes nor deletes anything outside `<root>/.probe`.
// A real app under the preload, driven round by round through its stdin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestApp, eventually } from '../helpers/app';
import { collect, waitForLine } from '../helpers/child';

/** Each `go` line: CALLS calls to itself, then `round N`; `end`: exits with code 7 (an app's own exit code). */
const roundsApp = `const http = require('node:http');
const readline = require('node:readline');
const server = http.createServer((req, res) => res.end('ok'));
let round = 0;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  readline.createInterface({ input: process.stdin }).on('line', async (line) => {
    if (line === 'end') {
      server.close();
      process.exitCode = 7;
      process.stdin.destroy();
      return;
    }
    for (let i = 0; i < Number(process.env.CALLS); i++) await (await fetch('http://127.0.0.1:' + port + '/r' + round + '/' + i)).text();
    console.log('round ' + ++round);
  });
  console.log('ready');
});`;

const VICTIM = '00000000000000001-Victim0000000.json';

async function drive(app: TestApp, swap: () => void, preload: 'require' | 'none', calls: number) {
  const child = app.spawn('app.js', { preload, env: { CALLS: String(calls) } });
  const result = collect(child);
  await waitForLine(child, /ready/);
  child.stdin!.write('go\n');
  await waitForLine(child, /round 1/);
  if (preload !== 'none') await eventually(() => readdirSync(path.join(app.dir, '.probe', 'captures')).some((name) => name.endsWith('.json')));
  swap();
  child.stdin!.write('go\n');
  await waitForLine(child, /round 2/);
  child.stdin!.write('go\n');
  await waitForLine(child, /round 3/);
  child.stdin!.write('end\n');
  return result;
}

// 12 calls a round: the store's thread runs when the folder is swapped; 3: it starts after (it gets the folder's
// identity from the app's thread, so it refuses the new folder too).
for (const [how, calls] of [
  ['a link to an outside folder', 12],
  ['a link to an outside folder, .probe itself swapped', 3],
] as const) {
  test(`.probe/captures replaced while the app runs by ${how} (${calls} calls a round): nothing written or deleted outside, one line, app unchanged`, async (t) => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'probe-swap-outside-'));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(path.join(outside, VICTIM), 'precious, named like a capture\n');
    const config = 'export default { storage: { limit: 3 } };\n';
    const app = new TestApp({ 'app.js': roundsApp, 'probe.config.mjs': config });
    const probeDir = path.join(app.dir, '.probe');
    const swap = () => {
      if (how.includes('.probe itself')) {
        // A new .probe folder whose captures is a link outside.
        renameSync(probeDir, path.join(app.dir, '.probe-old'));
        mkdirSync(probeDir);
        symlinkSync(outside, path.join(probeDir, 'captures'));
      } else {
        renameSync(path.join(probeDir, 'captures'), path.join(probeDir, 'captures-old'));
        symlinkSync(outside, path.join(probeDir, 'captures'));
      }
    };
    const run = await drive(app, swap, 'require', calls);
    assert.deepEqual(readdirSync(outside), [VICTIM], 'nothing written outside, the capture-named file not deleted');
    assert.equal(readFileSync(path.join(outside, VICTIM), 'utf8'), 'precious, named like a capture\n');
    const lines = run.stderr.split('\n').filter(Boolean);
    assert.equal(lines.length, 1, run.stderr);
    // Which check sees the swap first depends on the moment: a folder of the chain replaced, or the capture folder
    // leading elsewhere; either is the one line.
    assert.match(lines[0]!, /^\[probe\] .*captures.* (replaced|swapped|now leads to another folder).*/);

    const baselineApp = new TestApp({ 'app.js': roundsApp, 'probe.config.mjs': config });
    const baseline = await drive(baselineApp, () => undefined, 'none', calls);
    assert.equal(run.code, baseline.code);
    assert.equal(run.code, 7);
    assert.equal(run.stdout, baseline.stdout);
  });
}
