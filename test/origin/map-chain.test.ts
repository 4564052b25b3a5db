import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { watchCompiledCode } from '../../src/origin/compiledCode';
import { undoPatches } from '../../src/util/patches';
import { BUNDLER_RUNTIME, NO_ENTRY, UNTRUSTED, mapPosition, noteEvaluatedScript } from '../../src/origin/mapChain';
import { folder as makeFolder, lineMap } from './mapFixtures';

const folder = (files: Record<string, string>) => makeFolder(files, 'probe-map-chain-');

test('a chain of three maps is followed to the file that has none (a comment, a .map beside, a data: URL)', () => {
  const inline = Buffer.from(lineMap('../src/app.ts', 4, 9)).toString('base64');
  const dir = folder({
    'build/bundle.js': 'x\n'.repeat(10) + '//# sourceMappingURL=bundle.js.map\n',
    'build/bundle.js.map': lineMap('../mid/out.js', 7, 3),
    // hidden: no comment, a .map beside it
    'mid/out.js': 'y\n'.repeat(5),
    'mid/out.js.map': lineMap('../gen/step.js', 3, 4),
    'gen/step.js': `z\n`.repeat(5) + `//# sourceMappingURL=data:application/json;base64,${inline}\n`,
    'src/app.ts': 'a\n'.repeat(12),
  });
  const at = mapPosition(path.join(dir, 'build/bundle.js'), 7, 1, dir);
  assert.deepEqual(at, { file: path.join(dir, 'src/app.ts'), line: 9, column: 1, maps: 3 });
});

test('a cycle of maps ends where it closes; a chain longer than the bound ends at the bound', () => {
  const dir = folder({
    'a.js': '//# sourceMappingURL=a.js.map\n',
    'a.js.map': lineMap('b.js', 1, 1),
    'b.js': '//# sourceMappingURL=b.js.map\n',
    'b.js.map': lineMap('a.js', 1, 1),
  });
  const cycle = mapPosition(path.join(dir, 'a.js'), 1, 1, dir);
  assert.ok(typeof cycle === 'object' && cycle.maps === 2 && cycle.file === path.join(dir, 'a.js'), JSON.stringify(cycle));

  const files: Record<string, string> = {};
  for (let i = 0; i < 20; i++) {
    files[`f${i}.js`] = `//# sourceMappingURL=f${i}.js.map\n`;
    files[`f${i}.js.map`] = lineMap(`f${i + 1}.js`, 1, 1);
  }
  const long = mapPosition(path.join(folder(files), 'f0.js'), 1, 1, dir);
  assert.ok(typeof long === 'object' && long.maps === 8, JSON.stringify(long));
});

test("a transformer's map names the file itself: one link, its text on disk is the source", () => {
  const dir = folder({ 'src/x.ts': 'a\n'.repeat(20) });
  const file = path.join(dir, 'src/x.ts');
  noteEvaluatedScript(file, `data:application/json;base64,${Buffer.from(lineMap('x.ts', 6, 9)).toString('base64')}`);
  assert.deepEqual(mapPosition(file, 6, 1, dir), { file, line: 9, column: 1, maps: 1 });
  // Evaluated again with other code (a test runner's fresh module registry): the new map, not the one cached.
  noteEvaluatedScript(file, `data:application/json;base64,${Buffer.from(lineMap('x.ts', 6, 11)).toString('base64')}`);
  assert.deepEqual(mapPosition(file, 6, 1, dir), { file, line: 11, column: 1, maps: 1 });
});

test('no line is made up: a map without an entry there, a TypeScript file run with no map, bundler runtime code', () => {
  const dir = folder({
    'dist/a.js': 'x\n'.repeat(3) + '//# sourceMappingURL=a.js.map\n',
    'dist/a.js.map': lineMap('../src/a.ts', 3, 1),
    'src/plain.ts': 'a\n',
    'src/plain.js': 'a\n',
    'dist/w.js': '//# sourceMappingURL=w.js.map\n',
    'dist/w.js.map': lineMap('webpack://app/webpack/runtime/define', 1, 1),
  });
  // Line 1 comes before the map's only entry (line 3).
  assert.equal(mapPosition(path.join(dir, 'dist/a.js'), 1, 1, dir), NO_ENTRY);
  // (Node's own type stripping keeps positions: there the .ts line stands.)
  if (!(process.features as { typescript?: unknown }).typescript) assert.equal(mapPosition(path.join(dir, 'src/plain.ts'), 1, 1, dir), UNTRUSTED);
  assert.deepEqual(mapPosition(path.join(dir, 'src/plain.js'), 1, 1, dir), { file: path.join(dir, 'src/plain.js'), line: 1, column: 1, maps: 0 });
  assert.equal(mapPosition(path.join(dir, 'dist/w.js'), 1, 1, dir), BUNDLER_RUNTIME);
});

test('a map a chunk names but that is not written yet is read once it is (a dev server writing a chunk, then its map)', () => {
  const dir = folder({ '.next/server/chunks/route.js': 'x\n'.repeat(10) + '//# sourceMappingURL=route.js.map\n', 'app/route.ts': 'a\n'.repeat(12) });
  const chunk = path.join(dir, '.next/server/chunks/route.js');
  assert.deepEqual(mapPosition(chunk, 7, 1, dir), { file: chunk, line: 7, column: 1, maps: 0 });
  // Half written: not a map yet.
  fs.writeFileSync(`${chunk}.map`, lineMap('../../../app/route.ts', 7, 3).slice(0, 20));
  assert.deepEqual(mapPosition(chunk, 7, 1, dir), { file: chunk, line: 7, column: 1, maps: 0 });
  fs.writeFileSync(`${chunk}.map`, lineMap('../../../app/route.ts', 7, 3));
  assert.deepEqual(mapPosition(chunk, 7, 1, dir), { file: path.join(dir, 'app/route.ts'), line: 3, column: 1, maps: 1 });
});

test('code evaluated from a string under a file name: its own map (found by V8 script hash), or no line without one', () => {
  const dir = folder({ 'src/mod.ts': 'a\n'.repeat(12) });
  const file = path.join(dir, 'src/mod.ts');
  const map = Buffer.from(lineMap('mod.ts', 3, 9)).toString('base64');
  const sites = (code: string): NodeJS.CallSite[] => {
    let taken: NodeJS.CallSite[] = [];
    const grab = () => {
      const previous = Error.prepareStackTrace;
      Error.prepareStackTrace = (_error, stack) => stack;
      const holder: { stack?: NodeJS.CallSite[] } = {};
      Error.captureStackTrace(holder, grab);
      taken = holder.stack!; // formatted on first access, as call sites while prepareStackTrace says so
      Error.prepareStackTrace = previous;
    };
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the case under test: code evaluated from a string
    new Function('grab', code)(grab);
    return taken;
  };
  const evaluated = (site: NodeJS.CallSite) => ({ hash: (site as { getScriptHash?: () => string }).getScriptHash?.() ?? '' });
  // new Function's header is two lines: the call is on line 3 of the script V8 runs, which the map counts (Vite pads it so).
  const mapped = sites(`grab();\n//# sourceURL=${file}\n//# sourceMappingURL=data:application/json;base64,${map}\n`)[0]!;
  assert.equal(mapped.getScriptNameOrSourceURL(), file);
  assert.equal(mapped.getFileName(), undefined);
  assert.equal(mapped.getLineNumber(), 3);
  const other = sites(
    `\ngrab();\n//# sourceURL=${file}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(lineMap('mod.ts', 4, 11)).toString('base64')}\n`,
  )[0]!;
  const bare = sites(`grab();\n//# sourceURL=${file}\n`)[0]!;
  // The same name evaluated three times: each frame is read with the map of the code that ran.
  const first = mapPosition(file, mapped.getLineNumber()!, 1, dir, evaluated(mapped));
  assert.ok(typeof first === 'object', String(first));
  assert.equal(`${first.file}:${first.line}`, `${file}:9`);
  const second = mapPosition(file, other.getLineNumber()!, 1, dir, evaluated(other));
  assert.ok(typeof second === 'object', String(second));
  assert.equal(`${second.file}:${second.line}`, `${file}:11`);
  assert.equal(mapPosition(file, bare.getLineNumber()!, 1, dir, evaluated(bare)), UNTRUSTED);
});

test('code a module runner evaluates under a file name: its own map, or no line of a file no engine runs as is (.vue) without one', () => {
  const dir = folder({ 'pages/item.vue': '<script setup>\nconst a = 1;\n</script>\n', 'lib/plain.js': 'a\n' });
  const vue = path.join(dir, 'pages/item.vue');
  const plain = path.join(dir, 'lib/plain.js');
  watchCompiledCode();
  try {
    // The compiled component with its map (line 3 → the .vue's line 2), then the same name evaluated again with
    // code that carries none (vite-node names a Nuxt page and its `?macro=true` part after the same file).
    const map = Buffer.from(lineMap('item.vue', 3, 2)).toString('base64');
    vm.runInThisContext(`0;\n0;\n0;\n//# sourceMappingURL=data:application/json;base64,${map}\n`, { filename: vue });
    const mapped = mapPosition(vue, 3, 1, dir);
    assert.ok(typeof mapped === 'object', String(mapped));
    assert.equal(`${mapped.file}:${mapped.line}`, `${vue}:2`);
    vm.runInThisContext('0;\n0;\n0;\n', { filename: vue });
    assert.equal(mapPosition(vue, 3, 1, dir), UNTRUSTED, 'the earlier map is not the code that ran');
    // JavaScript evaluated with no map keeps its own lines (a test runner's wrapper on the first line).
    vm.runInThisContext('0;\n', { filename: plain });
    assert.deepEqual(mapPosition(plain, 1, 1, dir), { file: plain, line: 1, column: 1, maps: 0 });
  } finally {
    undoPatches();
  }
});
