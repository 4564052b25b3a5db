// Loaded with --import into every test file's process (scripts/run-tests.mjs): whatever ends that process, the
// children its tests started (test/helpers/child.ts) end with it, and a file that runs past its time limit is
// ended with a message naming it.
import { killAll, liveChildren } from './test-children.mjs';

// NODE_TEST_CONTEXT marks the processes `node --test` runs the files in (the runner itself loads this too).
if (process.env.NODE_TEST_CONTEXT) {
  const limit = Number(process.env.PROBE_TEST_FILE_TIMEOUT ?? 45 * 60_000);
  const file = process.argv[1] ?? 'test file';
  process.on('exit', killAll);
  // Node 20 and 22 end a file at --test-timeout with SIGTERM: its children would outlive it.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    process.once(signal, () => {
      killAll();
      process.exit(128 + (signal === 'SIGTERM' ? 15 : signal === 'SIGINT' ? 2 : 1));
    });
  }
  setTimeout(() => {
    const running = [...liveChildren()].map((child) => `  pid ${child.pid}: ${child.spawnargs.join(' ')}`);
    process.stderr.write(`\n${file}: past its time limit of ${limit} ms, ended${running.length ? `; killed:\n${running.join('\n')}` : ''}\n`);
    killAll();
    process.exit(1);
  }, limit).unref();
}
