import { readSafeText } from '../util/safeRead';

/** The variable `probe run` gives the command it starts (and every process that command starts inherits). */
export const RUN_ENV = 'PROBE_RUN';
const RUN_ID = /^[0-9A-Za-z_-]{1,64}$/;

let memo: { run?: string; process_group?: string } | undefined;

/**
 * Which run of a test suite this process's tests belong to, so `probe check` can tell the last run's tests from
 * earlier ones: `run`, the id `probe run` gave the command; else `process_group`, the operating system's process
 * group (a runner and the workers it forks share it; a terminal gives each command line its own), read where the
 * system shows it (`/proc`), else the parent process (the runner a worker was forked by). Read once; never throws.
 */
export function testRunMeta(): { run?: string; process_group?: string } {
  if (memo) return memo;
  const given = process.env[RUN_ENV];
  if (given && RUN_ID.test(given)) return (memo = { run: given });
  return (memo = { process_group: processGroup() });
}

function processGroup(): string {
  try {
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so fields count from the last `)`.
    const stat = readSafeText('/proc/self/stat', { maxBytes: 4096 });
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const group = Number(fields[2]);
    if (Number.isInteger(group) && group > 0) return `pgid:${group}`;
  } catch {
    // no /proc here
  }
  return `ppid:${process.ppid}`;
}
