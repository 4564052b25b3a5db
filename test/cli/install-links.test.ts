// `probe install` writes through no link: a repository can commit `.gitignore`, `.vscode` or `.cursor` (or files in
// them) as links to files outside it; those files stay as they were, and the command says in one line what it
// skipped. The real CLI in a real app folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestApp } from '../helpers/app';

/** Every file under `dir` with its text, for a before/after comparison. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      const full = path.join(entry.parentPath ?? entry.path, entry.name);
      out[path.relative(dir, full)] = readFileSync(full, 'utf8');
    }
  }
  return out;
}

test('probe install --mcp with .gitignore, .vscode, .cursor/mcp.json and probe.config.mjs as links outside: nothing outside changes, one line says what was skipped', async (t) => {
  const outside = mkdtempSync(path.join(os.tmpdir(), 'probe-install-outside-'));
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(path.join(outside, 'gitignore'), 'node_modules\n');
  writeFileSync(path.join(outside, 'cursorignore'), '');
  mkdirSync(path.join(outside, 'vscode'));
  writeFileSync(path.join(outside, 'vscode', 'settings.json'), '{}\n');
  writeFileSync(path.join(outside, 'cursor-mcp.json'), '{"mcpServers":{}}\n');
  const before = snapshot(outside);

  const app = new TestApp();
  symlinkSync(path.join(outside, 'gitignore'), path.join(app.dir, '.gitignore'));
  symlinkSync(path.join(outside, 'cursorignore'), path.join(app.dir, '.cursorignore'));
  symlinkSync(path.join(outside, 'vscode'), path.join(app.dir, '.vscode'));
  mkdirSync(path.join(app.dir, '.cursor'));
  symlinkSync(path.join(outside, 'cursor-mcp.json'), path.join(app.dir, '.cursor', 'mcp.json'));
  // A dangling link under the config's name: writing the config would create a file outside.
  symlinkSync(path.join(outside, 'made-by-install.mjs'), path.join(app.dir, 'probe.config.mjs'));

  const run = await app.cli(['install', '--mcp']);
  assert.deepEqual(snapshot(outside), before, 'no file outside the repository was changed or created');
  assert.equal(run.code, 1, 'the setup is not complete');
  const skipped = run.stdout.split('\n').filter((line) => /skipped/.test(line));
  assert.equal(skipped.length, 1, run.stdout);
  for (const name of ['.gitignore', '.cursorignore', '.vscode/settings.json', '.vscode/mcp.json', '.cursor/mcp.json', 'probe.config.mjs']) {
    assert.ok(skipped[0]!.includes(name), `${name} named in: ${skipped[0]}`);
  }
  assert.equal(run.stderr, '');
  // What is no link was set up as usual.
  assert.equal(readFileSync(path.join(app.dir, '.aiexclude'), 'utf8'), '.probe/\n');
  assert.ok(JSON.parse(readFileSync(path.join(app.dir, '.mcp.json'), 'utf8')).mcpServers.probe);
});
