// The file store never writes outside its folder or through a link, keeps no copy of a removed capture, leaves
// no temp or spare file behind, and lists only captures it can show. Attacks as a repository can plant them
// (a link committed under .probe), run through a real app under the preload and the real CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileStore } from '../../src/store/FileStore';
import { TestApp } from '../helpers/app';
import { makeCapture } from './contract';

/** An app that serves `COUNT` requests to itself, then ends: COUNT request captures and its command capture. */
const selfServer = `const http = require('node:http');
const server = http.createServer((req, res) => res.end('ok'));
server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address();
  for (let i = 0; i < Number(process.env.COUNT); i++) await (await fetch('http://127.0.0.1:' + port + '/n/' + i)).text();
  server.close();
});`;

function outsideFolder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-outside-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Listed {
  captures: Array<{ id: string; name: string }>;
}

async function listIds(app: TestApp): Promise<string[]> {
  const listed = await app.cli(['list', '--json', '--limit', '500']);
  assert.equal(listed.code, 0, listed.stderr);
  return (JSON.parse(listed.stdout) as Listed).captures.map((row) => row.id);
}

const leftovers = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.tmp') || name.startsWith('.spare.'));

test('a link planted in the capture folder is never written through, trimmed, listed or shown', async (t) => {
  const outside = outsideFolder(t);
  const victim = path.join(outside, 'victim.txt');
  const victimSpare = path.join(outside, 'victim-spare.txt');
  writeFileSync(victim, 'precious\n');
  writeFileSync(victimSpare, 'precious too\n');
  const app = new TestApp({ 'app.js': selfServer, 'probe.config.mjs': 'export default { storage: { limit: 3 } };\n' });
  const dir = path.join(app.dir, '.probe', 'captures');
  mkdirSync(dir, { recursive: true, mode: 0o700 }); // private, as Probe makes it
  const link = path.join(dir, '00000000000000001-Victim0000000.json');
  symlinkSync(victim, link);
  symlinkSync(victimSpare, path.join(dir, '.spare.1.planted.1'));
  const run = await app.run('app.js', { env: { COUNT: '20' } });
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /\[probe\]/);
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n', 'the link target is untouched');
  assert.equal(readFileSync(victimSpare, 'utf8'), 'precious too\n');
  assert.equal(readlinkSync(link), victim, 'the link itself is left as it was');
  const ids = await listIds(app);
  assert.equal(ids.length, 3, 'the limit counts captures, not the planted link');
  assert.ok(!ids.includes('Victim0000000'));
  const shown = await app.cli(['show', 'Victim0000000', '--json']);
  assert.notEqual(shown.code, 0, 'the link is never read as a capture');
  assert.doesNotMatch(shown.stdout, /precious/);
  const regular = readdirSync(dir).filter((name) => lstatSync(path.join(dir, name)).isFile());
  assert.equal(regular.length, 3, `only the 3 kept captures remain: ${regular.join(', ')}`);
});

for (const linked of ['.probe', '.probe/captures']) {
  test(`${linked} as a link leading outside <root>/.probe: the app and the CLI refuse it in one line naming storage.file.path`, async (t) => {
    const outside = outsideFolder(t);
    const app = new TestApp({ 'app.js': selfServer });
    if (linked === '.probe/captures') mkdirSync(path.join(app.dir, '.probe'));
    symlinkSync(outside, path.join(app.dir, linked));
    const run = await app.run('app.js', { env: { COUNT: '3' } });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stderr.split('\n').filter(Boolean);
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0]!, /^\[probe\] bad configuration: storage\.file\.path: refusing to write captures: .* outside /);
    assert.deepEqual(readdirSync(outside), [], 'nothing written through the link');
    const listed = await app.cli(['list']);
    assert.equal(listed.code, 2);
    assert.match(listed.stderr.trim(), /^probe: bad configuration: storage\.file\.path: /);
    assert.equal(listed.stderr.trim().split('\n').length, 1);
    const cleared = await app.cli(['clear']);
    assert.equal(cleared.code, 2);
    assert.deepEqual(readdirSync(outside), []);
  });
}

test('a link that stays inside <root>/.probe is allowed', async () => {
  const app = new TestApp({ 'app.js': selfServer });
  mkdirSync(path.join(app.dir, '.probe', 'real'), { recursive: true, mode: 0o700 });
  symlinkSync(path.join(app.dir, '.probe', 'real'), path.join(app.dir, '.probe', 'captures'));
  const run = await app.run('app.js', { env: { COUNT: '3' } });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '');
  assert.equal((await listIds(app)).length, 4);
});

test('removed captures leave no copy behind, and no temp or spare file stays at steady state or after clear', async (t) => {
  const dir = path.join(outsideFolder(t), 'captures');
  mkdirSync(dir);
  // Leftovers of a crashed writer and of an older version's spare pool, fresh and old.
  const old = new Date(Date.now() - 3_600_000);
  for (const name of ['.spare.1.ab.1', '.00000000000000003-Leftover00000.json.1.ab.1.tmp']) {
    writeFileSync(path.join(dir, name), 'a removed capture, secret-of-the-past');
    utimesSync(path.join(dir, name), old, old);
  }
  writeFileSync(path.join(dir, '.spare.2.cd.1'), 'fresh spare, secret-of-the-past');
  const store = new FileStore({ path: dir, limit: 5 });
  assert.deepEqual(leftovers(dir), [], 'old spares and stale temp files go at start');
  const base = Date.now() / 1000;
  const captures = Array.from({ length: 30 }, (_, i) => makeCapture({ startedAt: base + i, name: `marker-${i}-end`, bytes: 2_000 }));
  for (const capture of captures) await store.put(capture);
  const names = readdirSync(dir);
  assert.equal(names.length, 5, names.join(', '));
  const text = names.map((name) => readFileSync(path.join(dir, name), 'utf8')).join('\n');
  for (let i = 0; i < 25; i++) assert.ok(!text.includes(`"marker-${i}-end"`), `removed capture ${i} left a copy`);
  // A temp file a writer left a moment ago (not stale yet): a clear removes it too.
  writeFileSync(path.join(dir, '.00000000000000004-Leftover00001.json.2.cd.1.tmp'), '');
  writeFileSync(path.join(dir, '.spare.3.ef.1'), 'secret-of-the-past');
  await store.clear();
  assert.deepEqual(readdirSync(dir), []);
});

test('a capture file cut short is not listed, and every listed id can be shown', async () => {
  const app = new TestApp({ 'app.js': selfServer });
  assert.equal((await app.run('app.js', { env: { COUNT: '4' } })).code, 0);
  const dir = path.join(app.dir, '.probe', 'captures');
  const names = readdirSync(dir).sort();
  assert.equal(names.length, 5);
  // Cut after the row (the row still parses, the capture does not), and cut at a byte near the end.
  const cutAfterRow = names[1]!;
  const rowText = readFileSync(path.join(dir, cutAfterRow), 'utf8');
  writeFileSync(path.join(dir, cutAfterRow), rowText.slice(0, rowText.indexOf(',"capture":') + 40));
  const cutNearEnd = names[2]!;
  const endText = readFileSync(path.join(dir, cutNearEnd), 'utf8');
  writeFileSync(path.join(dir, cutNearEnd), endText.slice(0, -3));
  const ids = await listIds(app);
  assert.equal(ids.length, 3, ids.join(', '));
  for (const id of ids) {
    const shown = await app.cli(['show', id, '--json']);
    assert.equal(shown.code, 0, `listed ${id} cannot be shown: ${shown.stderr}`);
  }
  for (const name of [cutAfterRow, cutNearEnd]) assert.ok(!ids.some((id) => name.includes(id)));
});
