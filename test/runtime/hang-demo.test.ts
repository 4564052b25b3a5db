// A deliberately hung child, to see the suite end it and report it (skipped unless PROBE_TEST_HANG_DEMO=1):
//   PROBE_TEST_HANG_DEMO=1 PROBE_TEST_TIMEOUT=20000 PROBE_TEST_FILE_TIMEOUT=60000 node scripts/run-tests.mjs hang-demo
// Both tests fail, by design; afterwards `pgrep -f probe-hang-demo` finds nothing.
import { test } from 'node:test';
import { TestApp, waitForLine } from '../helpers/app';

const skip = !process.env.PROBE_TEST_HANG_DEMO && 'a demonstration (PROBE_TEST_HANG_DEMO=1): both tests fail by design';
const HUNG = `console.error('probe-hang-demo: stuck before ready'); setInterval(() => {}, 1000);`;

test('a child that never says ready: the wait ends, the child is killed, the error shows its stderr', { skip }, async () => {
  const app = new TestApp({ 'hung.js': HUNG });
  await waitForLine(app.spawn('hung.js', { args: ['probe-hang-demo'] }), /ready/, 5_000);
});

test('a test that never ends while its child runs: the time limit ends it, the child is killed', { skip }, async () => {
  const app = new TestApp({ 'hung.js': HUNG });
  app.spawn('hung.js', { args: ['probe-hang-demo'] });
  await new Promise(() => {});
});
