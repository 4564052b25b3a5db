import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dependencyTree, ownTree } from '../../src/util/ownTree';

/** A package folder with a manifest of these dependencies. */
function pkg(folder: string, name: string, dependencies: Record<string, string> = {}, extra: object = {}): string {
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name, version: '1.0.0', dependencies, ...extra }));
  return fs.realpathSync(folder);
}

test("a package's dependency tree: nested and hoisted, optional and peer ones, through links (pnpm), real paths; not its neighbours", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-own-tree-'));
  try {
    const modules = path.join(root, 'app', 'node_modules');
    const probe = pkg(path.join(modules, 'probe-http'), 'probe-http', { nested: '1', hoisted: '1', linked: '1' }, { peerDependencies: { '@scope/peer': '1' } });
    const nested = pkg(path.join(modules, 'probe-http', 'node_modules', 'nested'), 'nested', { deep: '1' });
    // `deep` is hoisted to the app's node_modules, found from the nested package on the way up.
    const deep = pkg(path.join(modules, 'deep'), 'deep');
    const hoisted = pkg(path.join(modules, 'hoisted'), 'hoisted', {}, { optionalDependencies: { optional: '1' } });
    const optional = pkg(path.join(modules, 'optional'), 'optional');
    const peer = pkg(path.join(modules, '@scope', 'peer'), '@scope/peer');
    // pnpm's layout: a link to the store's folder, whose dependencies are its siblings there.
    const store = path.join(root, 'app', 'node_modules', '.pnpm', 'linked@1.0.0', 'node_modules');
    const linked = pkg(path.join(store, 'linked'), 'linked', { sibling: '1' });
    const sibling = pkg(path.join(store, 'sibling'), 'sibling');
    fs.symlinkSync(path.join(store, 'linked'), path.join(modules, 'linked'));
    pkg(path.join(modules, 'neighbour'), 'neighbour');
    pkg(path.join(modules, 'probe-http', 'node_modules', 'unused'), 'unused');

    const tree = dependencyTree(probe);
    const expected = [probe, nested, deep, hoisted, optional, peer, linked, sibling];
    assert.deepEqual([...tree.folders].sort(), expected.sort());
    assert.ok(tree.versions.has('deep@1.0.0'));
    assert.ok(!tree.versions.has('neighbour@1.0.0'));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("Probe's own tree holds its direct and transitive dependencies, not its devDependencies", () => {
  const { versions } = ownTree();
  const names = [...versions].map((each) => each.slice(0, each.lastIndexOf('@')));
  for (const name of ['@opentelemetry/context-async-hooks', '@opentelemetry/api', '@redis/client', 'probe-http']) assert.ok(names.includes(name), name);
  for (const name of ['axios', 'follow-redirects', 'typescript']) assert.ok(!names.includes(name), name);
});
