import path from 'node:path';
import type { Unit } from '../runtime/Unit';
import { currentRuntime } from '../runtime/state';

/** What Probe reads of a jest-circus test: its name, its describe blocks up to the root, and its errors. */
interface CircusBlock {
  name?: string;
  parent?: CircusBlock;
}

interface CircusTest extends CircusBlock {
  errors?: unknown[];
}

/** A jest-circus event as a test environment's `handleTestEvent` receives it (Jest 29 and 30). */
export interface CircusEvent {
  name: string;
  test?: CircusTest;
}

/** The name jest-circus gives the describe block that holds a file's top-level tests. */
const ROOT_BLOCK = 'ROOT_DESCRIBE_BLOCK';
/** Test files named in a Jest worker's command capture; the rest are counted. */
const NAMED_FILES = 3;

/**
 * Makes each Jest test case a capture of type `test`, from the jest-circus events the `probe/jest` environment
 * receives (`handleTestEvent`, awaited by circus before it goes on). `test_started` comes after circus decided
 * the test runs (not skipped, not a todo) and before its `beforeEach` hooks; `test_done` after its `afterEach`
 * hooks, with `test.errors` final (a `test.failing` case has its errors swapped by then). Calls outside tests
 * (`beforeAll`, the module's top level) stay in the process's command capture, which a Jest worker names after
 * the files it ran.
 */
export class JestTests {
  private readonly open = new Map<CircusTest, Unit>();

  constructor(testPath: string) {
    nameWorkerCapture(testPath);
  }

  handle(event: CircusEvent): void {
    const runtime = currentRuntime();
    const test = event.test;
    if (!runtime) return;
    if (event.name === 'test_started' && test) {
      this.open.set(test, runtime.recorder.beginTest(fullTitle(test)));
    } else if (event.name === 'test_done' && test) {
      const unit = this.open.get(test);
      if (!unit) return;
      this.open.delete(test);
      runtime.recorder.endTest(unit, (test.errors?.length ?? 0) === 0);
    } else if (event.name === 'teardown') {
      // A test circus never finished (the file timed out or was interrupted) did not pass.
      for (const unit of this.open.values()) runtime.recorder.endTest(unit, false);
      this.open.clear();
    }
  }
}

/** `describe > inner > case`: the names of the test's describe blocks (not circus's root block) and its own. */
export function fullTitle(test: CircusTest): string {
  const names = [String(test.name ?? 'test')];
  for (let block = test.parent; block && block.name !== ROOT_BLOCK; block = block.parent) {
    if (block.name) names.unshift(block.name);
  }
  return names.join(' > ');
}

const files: string[] = [];

/**
 * A jest-worker child (started with an IPC channel) is named after the test files it ran, `jest a.test.js
 * b.test.js`: its own name (`node_modules/jest-worker/build/workers/processChild.js`) says nothing. With
 * `--runInBand` the tests run in the `jest` process itself, whose capture keeps the command as typed.
 */
function nameWorkerCapture(testPath: string): void {
  const runtime = currentRuntime();
  const main = runtime?.recorder.processUnit;
  if (!runtime || !main || main.closed || !process.channel) return;
  const file = path.relative(runtime.recorder.config.root, testPath) || testPath;
  if (!files.includes(file)) files.push(file);
  const more = files.length - NAMED_FILES;
  main.name = `jest ${files.slice(0, NAMED_FILES).join(' ')}${more > 0 ? ` (+${more} more)` : ''}`;
}
