import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from './seed';

/**
 * The official MCP Inspector in CLI mode, a client nobody here wrote, from the devDependency. It needs a
 * newer Node than Probe does (its engines field); on an older Node the inspector runs on the binary named by
 * PROBE_NODE22_PLUS (.ci/run sets it to the Node 24 it installs) while the MCP server under test runs on this
 * process's Node. Skipped only outside CI when no such Node is at hand; under CI that is a failure.
 */
const INSPECTOR_DIR = path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json', { paths: [REPO_ROOT] }));
const LAUNCHER = path.join(INSPECTOR_DIR, 'clients', 'launcher', 'build', 'index.js');
const NEEDS = (JSON.parse(readFileSync(path.join(INSPECTOR_DIR, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node.replace(/^>=\s*/, '');

function atLeast(version: string, min: string): boolean {
  const have = version.replace(/^v/, '').split('.').map(Number);
  const need = min.split('.').map(Number);
  for (let i = 0; i < need.length; i++) if ((have[i] ?? 0) !== need[i]) return (have[i] ?? 0) > need[i]!;
  return true;
}

function inspectorNode(): { node: string } | { skip: string } {
  if (atLeast(process.version, NEEDS)) return { node: process.execPath };
  const other = process.env.PROBE_NODE22_PLUS;
  const missing = `the MCP Inspector needs Node >= ${NEEDS} (this is ${process.version}) and PROBE_NODE22_PLUS names no such Node binary${other ? ` (${other})` : ''}`;
  if (other) {
    let version = '';
    try {
      version = execFileSync(other, ['--version'], { encoding: 'utf8' }).trim();
    } catch {
      // Reported below as a missing binary.
    }
    if (atLeast(version || '0', NEEDS)) return { node: other };
    throw new Error(missing);
  }
  if (process.env.CI) throw new Error(`${missing}; CI must run this test (.ci/run sets PROBE_NODE22_PLUS)`);
  return { skip: missing };
}

const runner = inspectorNode();
const skip = 'skip' in runner ? runner.skip : false;

/** The inspector's CLI exits 0 with the result on stdout; a tool that answers isError exits 5 (TOOL_ERROR), result still on stdout. */
function inspect(app: TestApp, args: string[], exitCode = 0): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      (runner as { node: string }).node,
      [LAUNCHER, '--cli', '--cwd', app.dir, process.execPath, path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'mcp', ...args],
      // The catalog (saved servers) the inspector may write goes into the app folder, not the user's home.
      { cwd: app.dir, env: { ...app.env({ preload: 'none' }), MCP_CATALOG_PATH: path.join(app.dir, 'inspector-catalog.json') }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        if (code !== exitCode)
          return reject(new Error(`inspector ${args.join(' ')}: exit ${String(code)}, expected ${exitCode}: ${error?.message ?? ''}\n${stderr}`));
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`inspector printed no JSON:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

test('the official MCP Inspector (CLI mode) lists and calls the tools', { skip }, async () => {
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
