import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp } from '../helpers/app';
import type { ChildProcess } from 'node:child_process';
import { startChild, waitForLine } from '../helpers/child';

/*
 * A process that ends itself on a signal when it is the sole listener (signal-exit, which npm, Yarn and execa use)
 * ends the same way with Probe's listener there: the exit code or signal is the one without Probe.
 */

const SIGNAL_EXIT = `
const { onExit } = require('signal-exit');
onExit((code, signal) => console.error('onExit', signal));
console.log('up');
setInterval(() => {}, 1000);
`;

async function endedBy(app: TestApp, command: string, args: string[], preload: 'require' | 'none') {
  const child = startChild(command, args, { cwd: app.dir, env: app.env({ preload }) });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = exited(child);
  await waitForLine(child, /^up$/m);
  // To the process itself, not its group: npm forwards it to its child and then re-raises the child's signal.
  child.kill('SIGTERM');
  const { code, signal } = await done;
  // npm's child outlives it (holding the output pipes open) in the group npx led: the group goes now (its number
  // cannot be taken by another process while a member lives; killGroup acts only while the leader runs).
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // the group is empty already
  }
  return { code, signal, npmErrors: stderr.split('\n').filter((line) => line.startsWith('npm error')).length };
}

/**
 * The process's own end ('close' would wait for a child that still holds its output open). One that outlives the
 * signal by a minute survived it (a limit against a hang, not a judgement of speed): reported as 'survived'.
 */
function exited(child: ChildProcess): Promise<{ code: number | string | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ code: 'survived', signal: null }), 60_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

test('signal-exit ends the process on SIGTERM as it does without Probe', async () => {
  const app = new TestApp({ 'app.js': SIGNAL_EXIT });
  const without = await endedBy(app, process.execPath, ['app.js'], 'none');
  const withProbe = await endedBy(app, process.execPath, ['app.js'], 'require');
  assert.deepEqual(without, { code: null, signal: 'SIGTERM', npmErrors: 0 });
  assert.deepEqual(withProbe, without);
  // What Probe had still stored on the way out: the command capture, with the signal's status.
  const command = app.captures().find((capture) => capture.type === 'command');
  assert.equal(command?.status, String(128 + 15));
});

test('npx under the preload dies of the SIGTERM it forwards, as without Probe (no npm error lines)', async () => {
  const app = new TestApp({ 'app.js': `console.log('up'); setInterval(() => {}, 1000);` });
  const args = ['--no', '--', 'node', 'app.js'];
  const without = await endedBy(app, 'npx', args, 'none');
  const withProbe = await endedBy(app, 'npx', args, 'require');
  assert.deepEqual(without.signal, 'SIGTERM');
  assert.deepEqual(withProbe, without);
});
