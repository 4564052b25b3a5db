import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { TestApp } from '../helpers/app';

const FILES = ['probe.config.mjs', '.gitignore', '.cursorignore', '.aiexclude', '.vscode/settings.json', '.mcp.json', '.cursor/mcp.json', '.vscode/mcp.json'];

function contents(app: TestApp): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const file of FILES) {
    const full = path.join(app.dir, file);
    out[file] = existsSync(full) ? readFileSync(full, 'utf8') : null;
  }
  return out;
}

const read = (app: TestApp, file: string) => readFileSync(path.join(app.dir, file), 'utf8');

test('probe install in a fresh app: a loadable commented config, .probe/ ignored everywhere; idempotent', async () => {
  const app = new TestApp();
  const first = await app.cli(['install']);
  assert.equal(first.code, 0, first.stderr);
  const config = read(app, 'probe.config.mjs');
  assert.match(config, /import \{ defineConfig \} from 'probe';/);
  assert.match(config, /\/\/ limit: 200/);
  assert.match(config, /\/\/ driver: 'file'/);
  for (const file of ['.gitignore', '.cursorignore', '.aiexclude']) assert.equal(read(app, file), '.probe/\n');
  assert.deepEqual(JSON.parse(read(app, '.vscode/settings.json')), {
    'search.exclude': { '**/.probe': true },
    'files.watcherExclude': { '**/.probe/**': true },
  });
  assert.equal(existsSync(path.join(app.dir, '.mcp.json')), false, 'MCP files only with --mcp');

  // The written config is the one every command and the app load.
  const list = await app.cli(['list', '--json']);
  assert.equal(list.code, 0, list.stderr);
  assert.equal(JSON.parse(list.stdout).total, 0);

  const before = contents(app);
  const second = await app.cli(['install']);
  assert.equal(second.code, 0);
  assert.match(second.stdout, /probe\.config\.mjs: exists, left as is/);
  assert.match(second.stdout, /\.gitignore: already ignores \.probe\//);
  assert.deepEqual(contents(app), before);
});

test('probe install merges with what is there, never losing keys or lines', async () => {
  const app = new TestApp({
    'probe.config.json': '{"storage": {"limit": 50}}',
    '.gitignore': 'node_modules\ndist',
    '.cursorignore': '/.probe\n',
    '.vscode/settings.json': JSON.stringify({ 'editor.tabSize': 2, 'search.exclude': { '**/dist': true } }),
    '.mcp.json': JSON.stringify({ mcpServers: { other: { command: 'other-server' } } }),
    '.vscode/mcp.json': JSON.stringify({ servers: { probe: { type: 'stdio', command: 'node', args: ['custom.js'] } }, inputs: [] }),
  });
  const result = await app.cli(['install', '--mcp']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(existsSync(path.join(app.dir, 'probe.config.mjs')), false, 'an existing config of another extension is kept');
  assert.equal(read(app, '.gitignore'), 'node_modules\ndist\n.probe/\n');
  assert.equal(read(app, '.cursorignore'), '/.probe\n');
  assert.equal(read(app, '.aiexclude'), '.probe/\n');
  assert.deepEqual(JSON.parse(read(app, '.vscode/settings.json')), {
    'editor.tabSize': 2,
    'search.exclude': { '**/dist': true, '**/.probe': true },
    'files.watcherExclude': { '**/.probe/**': true },
  });
  assert.deepEqual(JSON.parse(read(app, '.mcp.json')), {
    mcpServers: { other: { command: 'other-server' }, probe: { command: 'node', args: ['node_modules/probe/dist/cli/main.js', 'mcp'] } },
  });
  assert.deepEqual(JSON.parse(read(app, '.cursor/mcp.json')), {
    mcpServers: { probe: { command: 'node', args: ['node_modules/probe/dist/cli/main.js', 'mcp'] } },
  });
  // Says what it wrote.
  assert.match(result.stdout, /\.mcp\.json: registered the probe MCP server: node node_modules\/probe\/dist\/cli\/main\.js mcp/);
  assert.match(result.stdout, /\.vscode\/mcp\.json: already set up/);
  // A probe entry the user edited is theirs.
  assert.deepEqual(JSON.parse(read(app, '.vscode/mcp.json')), { servers: { probe: { type: 'stdio', command: 'node', args: ['custom.js'] } }, inputs: [] });

  const before = contents(app);
  assert.equal((await app.cli(['install', '--mcp'])).code, 0);
  assert.deepEqual(contents(app), before);
});

test('a settings file with comments is left byte for byte, with what to add printed', async () => {
  const settings = '{\n  // my settings\n  "editor.tabSize": 4,\n}\n';
  const app = new TestApp({ '.vscode/settings.json': settings });
  const result = await app.cli(['install']);
  assert.equal(result.code, 0);
  assert.equal(read(app, '.vscode/settings.json'), settings);
  assert.match(result.stdout, /\.vscode\/settings\.json: not plain JSON, left unchanged; add "search\.exclude"/);
});

test('probe install --mcp where Probe is not in node_modules/probe says the server starts once it is installed', async () => {
  const app = new TestApp({ 'sub/package.json': '{}' });
  const result = await app.cli(['install', '--mcp'], { env: { PROBE_ROOT: path.join(app.dir, 'sub') } });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /note: node_modules\/probe\/dist\/cli\/main\.js is not in .*sub; the MCP server starts once Probe is installed/);
  assert.deepEqual(JSON.parse(read(app, 'sub/.vscode/mcp.json')), {
    servers: { probe: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/node_modules/probe/dist/cli/main.js', 'mcp'] } },
  });
});
