// The child processes a test file has running, shared by test/helpers/child.ts and the runner's watchdog
// (scripts/test-watchdog.mjs) through one global: the two are loaded by different module loaders (tsx, --import).
const KEY = Symbol.for('probe.test.children');

/** @returns {Set<import('node:child_process').ChildProcess>} */
export function liveChildren() {
  return (globalThis[KEY] ??= new Set());
}

/**
 * SIGKILL to the child's whole process group (it was started detached, as its group's leader). Only while the
 * leader runs: once it has exited and its group emptied, the kernel may give its number to another process.
 */
export function killGroup(child) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL'); // not a group leader after all (or the group is gone): the process alone
    } catch {
      // already gone
    }
  }
}

/** Kills every child still running; synchronous, so it can run in an `exit` handler. */
export function killAll() {
  for (const child of liveChildren()) killGroup(child);
}
