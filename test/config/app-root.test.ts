import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findAppRoot, matchesWorkspace } from '../../src/config/appRoot';

/** A folder tree from paths → file text. */
function tree(files: Record<string, string>): string {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'probe-approot-')));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(base, file)), { recursive: true });
    fs.writeFileSync(path.join(base, file), text);
  }
  return base;
}

test('workspace globs: one segment per *, any depth for **, ! excludes, ./ and trailing / ignored', () => {
  assert.equal(matchesWorkspace(path.join('packages', 'api'), ['packages/*']), true);
  assert.equal(matchesWorkspace(path.join('packages', 'api', 'sub'), ['packages/*']), false);
  assert.equal(matchesWorkspace(path.join('apps', 'web', 'server'), ['apps/**']), true);
  assert.equal(matchesWorkspace(path.join('packages', 'old'), ['./packages/*/', '!packages/old']), false);
  assert.equal(matchesWorkspace('tools', ['packages/*']), false);
  assert.equal(matchesWorkspace(path.join('packages', 'api'), ['packages/a?i']), true);
});

test('a workspace of an npm, Yarn or pnpm monorepo has the monorepo root as app root, its own config first', (t) => {
  const base = tree({
    'npm/package.json': JSON.stringify({ workspaces: ['packages/*'] }),
    'npm/packages/api/package.json': '{}',
    'npm/packages/api/probe.config.json': '{}',
    'npm/packages/web/package.json': '{}',
    'npm/tools/seed/package.json': '{}',
    'yarn/package.json': JSON.stringify({ workspaces: { packages: ['apps/*'] } }),
    'yarn/apps/web/package.json': '{}',
    'pnpm/package.json': '{}',
    'pnpm/pnpm-workspace.yaml': "packages:\n  - 'services/*' # the services\n  - '!services/legacy'\ncatalog:\n  x: 1\n",
    'pnpm/services/api/package.json': '{}',
    'pnpm/services/legacy/package.json': '{}',
  });
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  const at = (dir: string, env: NodeJS.ProcessEnv = {}) => findAppRoot(path.join(base, dir), env);
  assert.deepEqual(at('npm/packages/api/src'), {
    root: path.join(base, 'npm'),
    configDirs: [path.join(base, 'npm/packages/api'), path.join(base, 'npm/packages'), path.join(base, 'npm')],
  });
  assert.equal(at('npm/packages/web').root, path.join(base, 'npm'));
  assert.equal(at('npm/tools/seed').root, path.join(base, 'npm/tools/seed'), 'not a workspace: its own root');
  assert.equal(at('yarn/apps/web').root, path.join(base, 'yarn'));
  assert.equal(at('pnpm/services/api').root, path.join(base, 'pnpm'));
  assert.equal(at('pnpm/services/legacy').root, path.join(base, 'pnpm/services/legacy'), 'excluded by !');
  assert.equal(at('npm').root, path.join(base, 'npm'));
  // PROBE_ROOT (what probe run passes on) wins; a package inside it still reads its own config first.
  assert.deepEqual(at('npm/tools/seed', { PROBE_ROOT: path.join(base, 'npm') }), {
    root: path.join(base, 'npm'),
    configDirs: [path.join(base, 'npm/tools/seed'), path.join(base, 'npm/tools'), path.join(base, 'npm')],
  });
  assert.deepEqual(at('yarn/apps/web', { PROBE_ROOT: path.join(base, 'npm') }).configDirs, [path.join(base, 'npm')]);
});
