import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import type { Origin } from '../../src/capture/types';
import { watchCompiledCode } from '../../src/origin/compiledCode';
import { verdictWork } from '../../src/origin/keptVerdicts';
import { captureStack, readStack } from '../../src/origin/origin';
import { undoPatches } from '../../src/util/patches';
import { folder as makeFolder, lineMap } from './mapFixtures';

const folder = (files: Record<string, string>) => makeFolder(files, 'probe-kept-verdicts-');

/**
 * A frame position's verdict is kept (origin.ts), read once per position while the maps behind it hold, and read
 * again wherever they may change: a script evaluated again under its name with another map or none, a map named but
 * not written yet, a webpack eval module `next dev` reloads under the same name. The oracle of each line is Node's
 * own `SourceMap` asked for the position of an Error made on the call's line.
 */

const base64 = (text: string) => Buffer.from(text).toString('base64');

/** What one call saw: its origin, the verdicts made so far, and where an Error made on the call's line says it is. */
interface Taken {
  origin: Origin | null;
  made: number;
  line: number;
  column: number;
}

/** `take(error)`, for the code under test to call with an Error made on the same line: reads the stack as a call's. */
function taker(root: string): { take: (error: Error) => void; taken: Taken[] } {
  const taken: Taken[] = [];
  const take = (error: Error) => {
    const read = readStack(captureStack(40, take), root);
    const at = /:(\d+):(\d+)\)?$/.exec(error.stack!.split('\n')[1]!)!;
    taken.push({ origin: read === 'agent' ? null : read, made: verdictWork.made, line: Number(at[1]), column: Number(at[2]) });
  };
  return { take, taken };
}

/** The original line Node's SourceMap gives for a generated position (1-based). */
function oracleLine(map: string, line: number, column: number): number {
  const entry = new SourceMap(JSON.parse(map) as ConstructorParameters<typeof SourceMap>[0]).findEntry(line - 1, column - 1) as { originalLine: number };
  return entry.originalLine + 1;
}

test('a position is read once while its map holds, and again once its script is evaluated under its name with another map or none', () => {
  const dir = folder({ 'src/thing.ts': 'a\n'.repeat(20) });
  const file = path.join(dir, 'src/thing.ts');
  const { take, taken } = taker(dir);
  (globalThis as { __probeTake?: unknown }).__probeTake = take;
  watchCompiledCode();
  try {
    // A transformer's output evaluated under the source's name (a test runner's vm module), three calls from one line.
    const code = (map: string | null) =>
      `0;\n0;\nfor (let i = 0; i < 3; i++) __probeTake(new Error());\n${map ? `//# sourceMappingURL=data:application/json;base64,${base64(map)}\n` : ''}`;
    const run = (map: string | null): Taken[] => {
      taken.length = 0;
      vm.runInThisContext(code(map), { filename: file });
      return [...taken];
    };
    const before = verdictWork.made;
    const first = lineMap('thing.ts', 3, 9);
    const one = run(first);
    const line = oracleLine(first, one[0]!.line, one[0]!.column);
    for (const call of one) assert.deepEqual([call.origin?.file, call.origin?.line], ['src/thing.ts', line]);
    assert.ok(one[0]!.made > before, 'the first call reads its positions');
    assert.deepEqual(
      one.map((call) => call.made),
      [one[0]!.made, one[0]!.made, one[0]!.made],
      'the calls after it read none',
    );

    // The same name evaluated again with other code: the new map's line, read anew.
    const second = lineMap('thing.ts', 3, 14);
    const two = run(second);
    const other = oracleLine(second, two[0]!.line, two[0]!.column);
    assert.notEqual(other, line);
    for (const call of two) assert.deepEqual([call.origin?.file, call.origin?.line], ['src/thing.ts', other]);
    assert.ok(two[0]!.made > one[2]!.made, 'read again');

    // Again with no map: the TypeScript file's lines are not the code that ran, so no line at all.
    for (const call of run(null)) assert.equal(call.origin, null);
    // And with the first map again.
    for (const call of run(first)) assert.deepEqual([call.origin?.file, call.origin?.line], ['src/thing.ts', line]);
  } finally {
    undoPatches();
    delete (globalThis as { __probeTake?: unknown }).__probeTake;
  }
});

test('a map a file names but that is not written yet: read at every call until it is, then once', () => {
  const dir = folder({
    'build/late.js': `${'\n'.repeat(6)}module.exports = (take) => take(new Error());\n//# sourceMappingURL=late.js.map\n`,
    'src/late.ts': 'a\n'.repeat(20),
  });
  const script = path.join(dir, 'build/late.js');
  const { take, taken } = taker(dir);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a real file loaded by Node's loader, as an app's build output is
  const call = require(script) as (take: (error: Error) => void) => void;
  // Two calls from one line: the same positions.
  const twice = () => {
    for (let i = 0; i < 2; i++) call(take);
  };
  twice();
  assert.deepEqual([taken[0]!.origin?.file, taken[0]!.origin?.line], ['build/late.js', 7]);
  assert.deepEqual([taken[1]!.origin?.file, taken[1]!.origin?.line], ['build/late.js', 7]);
  assert.ok(taken[1]!.made > taken[0]!.made, 'not kept while the map may still come');

  const map = lineMap('../src/late.ts', 7, 3);
  fs.writeFileSync(`${script}.map`, map);
  twice();
  const line = oracleLine(map, taken[2]!.line, taken[2]!.column);
  assert.deepEqual([taken[2]!.origin?.file, taken[2]!.origin?.line], ['src/late.ts', line]);
  assert.deepEqual([taken[3]!.origin?.file, taken[3]!.origin?.line], ['src/late.ts', line]);
  assert.equal(taken[3]!.made, taken[2]!.made, 'kept once the map is read');
});

test('a webpack eval module reloaded under the same name (`next dev` after an edit): each call reads the map of the code that ran', () => {
  const dir = folder({ 'app/page.ts': 'a\n'.repeat(20) });
  const bundle = path.join(dir, '.next/server/app/page.js');
  const name = 'webpack-internal:///(rsc)/./app/page.ts';
  // As webpack's eval-source-map writes a module: its code in an eval, the map inline, named after its source.
  const write = (map: string) => {
    fs.mkdirSync(path.dirname(bundle), { recursive: true });
    const module = `(take) => take(new Error())\\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${base64(map)}\\n//# sourceURL=${name}\\n`;
    fs.writeFileSync(bundle, `module.exports = (take) => eval("${module}")(take);\n`);
    delete require.cache[bundle];
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded as Next's dev server loads a route bundle
    return require(bundle) as (take: (error: Error) => void) => void;
  };
  const { take, taken } = taker(dir);
  const first = lineMap('webpack://app/./app/page.ts', 1, 4);
  const call = write(first);
  for (let i = 0; i < 2; i++) call(take);
  const line = oracleLine(first, taken[0]!.line, taken[0]!.column);
  for (const seen of taken) assert.deepEqual([seen.origin?.file, seen.origin?.line], ['app/page.ts', line]);
  assert.ok(taken[1]!.made > taken[0]!.made, 'its map is asked at each call');

  const second = lineMap('webpack://app/./app/page.ts', 1, 12);
  write(second)(take);
  const other = oracleLine(second, taken[2]!.line, taken[2]!.column);
  assert.notEqual(other, line);
  assert.deepEqual([taken[2]!.origin?.file, taken[2]!.origin?.line], ['app/page.ts', other]);
});
