// Issue 16.6: with NODE_OPTIONS exported every launcher process loads Probe too. A process that made no call and
// started a child process (npm run, tsx's launcher, a hand-made one) stores nothing; the program it ran is
// recorded, and a real command with no calls is still kept.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp } from '../helpers/app';
import { runChild } from '../helpers/child';
import { startOkServer } from '../helpers/upstream';

let upstream: Awaited<ReturnType<typeof startOkServer>>;
let target = '';

before(async () => {
  upstream = await startOkServer();
  target = upstream.url;
});
after(() => upstream.close());

const CALL = `fetch(process.env.TARGET).then((r) => r.text()).then(() => console.log('called'));\n`;
const LAUNCHER = `const { spawn } = require('node:child_process');
const child = spawn(process.execPath, process.argv.slice(2), { stdio: 'inherit' });
child.on('exit', (code) => (process.exitCode = code ?? 1));
`;

function summary(app: TestApp): Array<[string, number]> {
  return app
    .captures()
    .map((c): [string, number] => [c.name, c.sections.http?.length ?? 0])
    .sort((a, b) => a[0].localeCompare(b[0]));
}

test('npm run <script>: only the script is recorded, not npm nor the shell', async () => {
  const app = new TestApp({ 'a.js': CALL });
  app.write('package.json', JSON.stringify({ name: 'launched', version: '1.0.0', private: true, scripts: { go: 'node a.js' } }));
  const run = await runChild('npm', ['run', 'go', '--silent'], {
    cwd: app.dir,
    env: app.env({ env: { TARGET: target, npm_config_update_notifier: 'false', npm_config_fund: 'false' } }),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /called/);
  assert.deepEqual(summary(app), [['a.js', 1]]);
});

test("tsx's launcher: only the TypeScript program is recorded", async () => {
  const app = new TestApp({ 'a.ts': `const url: string = process.env.TARGET!;\n${CALL.replace('process.env.TARGET', 'url')}` });
  const run = await app.run('node_modules/tsx/dist/cli.mjs', { args: ['a.ts'], env: { TARGET: target } });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /called/);
  assert.deepEqual(summary(app), [['a.ts', 1]]);
});

test('a hand-made launcher that spawns node a.js stores nothing; a.js is recorded', async () => {
  const app = new TestApp({ 'launch.js': LAUNCHER, 'a.js': CALL });
  const run = await app.run('launch.js', { args: ['a.js'], env: { TARGET: target } });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(summary(app), [['a.js', 1]]);
});

test('a real command with no calls is still kept, and so is a launcher that made a call itself', async () => {
  const app = new TestApp({ 'quiet.js': `console.log('nothing to call');\n`, 'busy.js': `${LAUNCHER}${CALL}`, 'b.js': `console.log('child');\n` });
  assert.equal((await app.run('quiet.js')).code, 0);
  assert.deepEqual(summary(app), [['quiet.js', 0]]);
  const run = await app.run('busy.js', { args: ['b.js'], env: { TARGET: target } });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(summary(app), [
    ['b.js', 0],
    ['busy.js b.js', 1],
    ['quiet.js', 0],
  ]);
});
