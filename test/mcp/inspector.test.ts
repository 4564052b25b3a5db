import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { runChild } from '../helpers/child';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { inspectorNode, installInspector } from './inspectorInstall';
import { seedFileStore } from './seed';

/**
 * The official MCP Inspector in CLI mode, a client nobody here wrote, installed into a cache outside the
 * repository (test/mcp/inspectorInstall.ts) like the compat cells. It needs a newer Node than Probe does (its
 * engines field): on an older Node it runs on PROBE_NODE22_PLUS or a Node line .ci/run cached, while the MCP
 * server under test runs on this process's Node. Skipped only outside CI when no such Node is at hand; under CI
 * that is a failure.
 */
let launcher = '';
let node = '';

before(async () => {
  const dir = await installInspector();
  launcher = path.join(dir, 'clients', 'launcher', 'build', 'index.js');
  const needs = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node.replace(/^>=\s*/, '');
  node = inspectorNode(needs) ?? '';
  if (!node && process.env.CI) throw new Error(`the MCP Inspector needs Node >= ${needs} (this is ${process.version}); CI must run it (.ci/run caches one)`);
});

/** The inspector's CLI exits 0 with the result on stdout; a tool that answers isError exits 5 (TOOL_ERROR), result still on stdout. */
async function inspect(app: TestApp, args: string[], exitCode = 0): Promise<any> {
  const { code, stdout, stderr } = await runChild(
    node,
    [launcher, '--cli', '--cwd', app.dir, process.execPath, path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'mcp', ...args],
    // The catalog (saved servers) the inspector may write goes into the app folder, not the user's home.
    { cwd: app.dir, env: { ...app.env({ preload: 'none' }), MCP_CATALOG_PATH: path.join(app.dir, 'inspector-catalog.json') } },
  );
  if (code !== exitCode) throw new Error(`inspector ${args.join(' ')}: exit ${String(code)}, expected ${exitCode}\n${stderr}`);
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`inspector printed no JSON:\n${stdout}\n${stderr}`);
  }
}

test('the official MCP Inspector (CLI mode) lists and calls the tools', async (t) => {
  if (!node) return t.skip("no Node >= the inspector's engines at hand (set PROBE_NODE22_PLUS)");
  const app = new TestApp();
  await seedFileStore(app, fixtureCaptures());
  // --strict: a tool schema the inspector finds unportable (an error, not a warning) fails the run.
  const listed = await inspect(app, ['--method', 'tools/list', '--strict']);
  assert.deepEqual(listed.tools.map((tool: { name: string }) => tool.name).sort(), ['probe-list', 'probe-rows', 'probe-show']);

  const list = await inspect(app, ['--method', 'tools/call', '--tool-name', 'probe-list', '--tool-arg', 'has_errors=true']);
  assert.deepEqual(
    list.structuredContent.captures.map((row: { id: string }) => row.id),
    [IDS.order],
  );

  const rows = await inspect(app, [
    '--method',
    'tools/call',
    '--tool-name',
    'probe-rows',
    '--tool-arg',
    'section=http',
    '--tool-arg',
    `id=${IDS.order}`,
    '--tool-arg',
    'where=[{"field":"status","op":">=","value":"500"}]',
    '--tool-arg',
    'fields=["row","url","status"]',
  ]);
  assert.deepEqual(rows.structuredContent.rows, [{ row: 1, url: 'https://payments.example.test/charge', status: 502 }]);
  assert.deepEqual(JSON.parse(rows.content[0].text), rows.structuredContent);

  const bad = await inspect(app, ['--method', 'tools/call', '--tool-name', 'probe-rows', '--tool-arg', 'section=nope'], 5);
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /Valid values: http, request/);
});
