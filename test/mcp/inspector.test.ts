import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from './seed';

/**
 * The official MCP Inspector in CLI mode: a client nobody here wrote. Tests never download it; it is used
 * from the npx cache (`npx --yes @modelcontextprotocol/inspector --cli --help` once puts it there) or from
 * PROBE_MCP_INSPECTOR (path to its `cli/build/cli.js`).
 */
function findInspector(): string | null {
  if (process.env.PROBE_MCP_INSPECTOR) return process.env.PROBE_MCP_INSPECTOR;
  const cache = path.join(process.env.npm_config_cache ?? path.join(os.homedir(), '.npm'), '_npx');
  if (!existsSync(cache)) return null;
  for (const entry of readdirSync(cache)) {
    const cli = path.join(cache, entry, 'node_modules', '@modelcontextprotocol', 'inspector', 'cli', 'build', 'cli.js');
    if (existsSync(cli)) return cli;
  }
  return null;
}

const inspector = findInspector();
const skip = inspector ? false : 'MCP Inspector not available: run `npx --yes @modelcontextprotocol/inspector --cli --help` once to put it in the npx cache, or set PROBE_MCP_INSPECTOR';

function inspect(app: TestApp, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [inspector!, '--cli', process.execPath, path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'mcp', ...args],
      { cwd: app.dir, env: app.env({ preload: 'none' }), timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`inspector ${args.join(' ')}: ${error.message}\n${stderr}`));
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
  const listed = await inspect(app, ['--method', 'tools/list']);
  assert.deepEqual(listed.tools.map((tool: { name: string }) => tool.name).sort(), ['probe-list', 'probe-rows', 'probe-show']);

  const list = await inspect(app, ['--method', 'tools/call', '--tool-name', 'probe-list', '--tool-arg', 'has_errors=true']);
  assert.deepEqual(list.structuredContent.captures.map((row: { id: string }) => row.id), [IDS.order]);

  const rows = await inspect(app, [
    '--method', 'tools/call', '--tool-name', 'probe-rows',
    '--tool-arg', 'section=http',
    '--tool-arg', `id=${IDS.order}`,
    '--tool-arg', 'where=[{"field":"status","op":">=","value":"500"}]',
    '--tool-arg', 'fields=["url","status"]',
  ]);
  assert.deepEqual(rows.structuredContent.rows, [{ row: 1, url: 'https://payments.example.test/charge', status: 502 }]);
  assert.deepEqual(JSON.parse(rows.content[0].text), rows.structuredContent);

  const bad = await inspect(app, ['--method', 'tools/call', '--tool-name', 'probe-rows', '--tool-arg', 'section=nope']);
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /Valid values: http, request/);
});
