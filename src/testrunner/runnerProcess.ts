/** The entry scripts of test runners' own processes: the runner itself and the workers that run no test file. */
const RUNNER_ENTRIES = [
  /[\\/]vitest[\\/]vitest\.mjs$/,
  /[\\/]\.bin[\\/]vitest$/,
  /[\\/]tinypool[\\/]dist[\\/]entry[\\/]/,
  /[\\/]vitest[\\/]dist[\\/]workers[\\/]/,
];

/**
 * Whether this process is a test runner's own (`node --test`, `vitest run`, a Vitest pool worker). Its command
 * capture is then kept only when it holds calls (a `globalSetup` calling out): an empty one per run and per
 * worker would bury the test captures.
 */
export function isTestRunnerProcess(): boolean {
  if (!process.env.NODE_TEST_CONTEXT && process.execArgv.includes('--test')) return true;
  const script = process.argv[1] ?? '';
  return RUNNER_ENTRIES.some((entry) => entry.test(script));
}
