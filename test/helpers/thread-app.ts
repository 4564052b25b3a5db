// An app root for tests of the store's thread: a package.json and a probe.config.cjs the thread loads itself.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function appRoot(t: { after: (fn: () => void) => void }, configText: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-store-thread-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(path.join(root, 'package.json'), '{"name":"app","private":true}');
  writeFileSync(path.join(root, 'probe.config.cjs'), configText);
  return root;
}

/**
 * A config whose load holds the store's thread (and only the thread) until the file named by the GATE variable
 * exists: a thread that has fallen behind, on demand. Returns the gate's path (removed when the test ends) and
 * the root; the test passes `GATE: gate` in the build's env and writes the file to let the thread go.
 */
export function heldThreadRoot(t: { after: (fn: () => void) => void }): { root: string; gate: string } {
  const gate = path.join(os.tmpdir(), `probe-gate-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  t.after(() => rmSync(gate, { force: true }));
  const root = appRoot(
    t,
    `const { isMainThread } = require('node:worker_threads');
const { existsSync } = require('node:fs');
if (!isMainThread) {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  while (!existsSync(process.env.GATE)) Atomics.wait(nap, 0, 0, 20);
}
module.exports = {};\n`,
  );
  return { root, gate };
}
