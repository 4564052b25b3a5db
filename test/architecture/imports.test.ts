import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cycles, folderGraph, importGraph } from './graph';

const graph = importGraph();
const edges = [...graph].flatMap(([from, targets]) => [...targets].map((to) => [from, to] as const));

test('src/ has no import cycle (type-only imports included)', () => {
  assert.deepEqual(
    cycles(graph).map((cycle) => cycle.join(' → ')),
    [],
  );
});

test('no import cycle between folders either (a folder reads as one part of the architecture)', () => {
  assert.deepEqual(
    cycles(folderGraph(graph)).map((cycle) => cycle.join(' → ')),
    [],
  );
});

test('data flows one way: the runtime never imports the lens; the pure builder, masking and the store never import either', () => {
  const backwards = edges.filter(
    ([from, to]) =>
      (from.startsWith('runtime/') && to.startsWith('lens/')) || (/^(builder|mask|store|capture|query)\//.test(from) && /^(runtime|lens)\//.test(to)),
  );
  assert.deepEqual(
    backwards.map(([from, to]) => `${from} → ${to}`),
    [],
  );
});

test('the graph is read for real (a check that saw no edges would pass anything)', () => {
  assert.ok(graph.size > 100, `${graph.size} files`);
  assert.ok(edges.some(([from, to]) => from === 'start.ts' && to.startsWith('lens/')));
});
