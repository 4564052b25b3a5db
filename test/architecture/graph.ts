// The import graph of src/: every `import … from`, `export … from`, `import()` and `require()` of a relative path,
// type-only imports included (a cycle through types is still a cycle a reader must hold in their head).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export const SRC = path.resolve(__dirname, '..', '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return files(full);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')]) {
    try {
      if (statSync(candidate).isFile() && /\.(ts|tsx)$/.test(candidate)) return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** File (relative to src/) → the files it imports (relative to src/). */
export function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    const edges = new Set<string>();
    for (const match of text.matchAll(SPECIFIERS)) {
      const target = resolveImport(file, match[1]!);
      if (target) edges.add(path.relative(SRC, target));
    }
    graph.set(path.relative(SRC, file), edges);
  }
  return graph;
}

/** Every cycle, as found by a depth-first walk (each reported once, from its smallest member). */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0]!);
        const key = [...cycle.slice(start), ...cycle.slice(0, start)];
        found.set(key.join(' → '), key);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return [...found.values()];
}

/** The folder of a file under src/ (`lens/fetch.ts` → `lens`); a file at the top (`start.ts`) is its own. */
export function folderOf(file: string): string {
  return file.includes('/') ? file.slice(0, file.indexOf('/')) : file;
}

/** Folder → the folders its files import (a folder's imports of itself left out). */
export function folderGraph(graph: Map<string, Set<string>>): Map<string, Set<string>> {
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const edges = folders.get(folderOf(from)) ?? new Set<string>();
    folders.set(folderOf(from), edges);
    for (const to of targets) if (folderOf(to) !== folderOf(from)) edges.add(folderOf(to));
  }
  return folders;
}
