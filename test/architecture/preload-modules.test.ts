import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { TestApp, lastJsonLine } from '../helpers/app';

// What the preload loads into an app's process, read in the app itself at exit (after Probe stored the process's
// capture): the files of every thread-less part of Probe the app's thread ran, and the packages they pulled in.
// The parts that read, serve or explain captures (CLI, dashboard, collector, MCP, diffs, findings, exports) and
// the heavy packages only they or a configured store need never load in the app's process: each costs every
// process start, and a test runner starts one per test file.
const FORBIDDEN_FOLDERS = ['cli', 'dashboard', 'collector', 'mcp', 'diff', 'findings', 'export', 'query', 'baselines'];
const FORBIDDEN_PACKAGES = ['zod', 'graphql', 'protobufjs', 'redis', '@redis', '@modelcontextprotocol', 'preact', 'htm'];

const REPORT = `
process.on('exit', () => {
  console.log(JSON.stringify({ files: Object.keys(require.cache) }));
});
`;

/** The forbidden files among those a child loaded: Probe's by folder (its dist/ or src/), packages by name. */
function forbidden(files: string[]): string[] {
  return files.filter((file) => {
    const parts = file.split(path.sep);
    const modules = parts.lastIndexOf('node_modules');
    if (modules >= 0) {
      // A package by its name, a scoped one by its scope (`@redis/client` is `@redis`).
      const name = parts[modules + 1] ?? '';
      if (name === 'probe-http' || name === 'probe') return probeForbidden(parts.slice(modules + 2));
      return FORBIDDEN_PACKAGES.includes(name);
    }
    const dist = parts.lastIndexOf('dist');
    return dist >= 0 && probeForbidden(parts.slice(dist));
  });
}

function probeForbidden(inside: string[]): boolean {
  const from = inside[0] === 'dist' || inside[0] === 'src' ? 1 : 0;
  const folder = inside[from];
  const file = inside.slice(from).join('/');
  return FORBIDDEN_FOLDERS.includes(folder!) || file === 'config/schema.js';
}

async function loaded(app: TestApp, script: string): Promise<string[]> {
  const result = await app.run(script);
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /\[probe\]/);
  const { files } = lastJsonLine<{ files: string[] }>(result.stdout);
  // The check saw the preload for real: its start-up and recording code are there.
  assert.ok(
    files.some((file) => /[/\\]start\.js$/.test(file)),
    'the preload did not run',
  );
  return files;
}

test('a process that makes no call loads no reading, serving or explaining part of Probe, nor their packages', async () => {
  const app = new TestApp({ 'app.js': `${REPORT}\n` });
  assert.deepEqual(forbidden(await loaded(app, 'app.js')), []);
});

test('scalar settings in a config file do not load the config schema (zod) into the app', async () => {
  const app = new TestApp({
    'app.js': `${REPORT}\n`,
    'probe.config.json': JSON.stringify({ sampling: { rate: 0.1 }, origin: { enabled: true }, storage: { limit: 50 } }),
  });
  assert.deepEqual(forbidden(await loaded(app, 'app.js')), []);
});

test('recording calls (a server, fetch and node:http, bodies kept) loads none of them either', async () => {
  const app = new TestApp({
    'probe.config.json': JSON.stringify({ lenses: { HttpClientLens: { bodies: true } } }),
    'app.js': `${REPORT}
const http = require('node:http');
const server = http.createServer((req, res) => {
  if (req.url === '/up') { res.setHeader('content-type', 'application/json'); res.end('{"token":"s3cr3t","items":[1,2]}'); return; }
  const base = 'http://127.0.0.1:' + server.address().port;
  fetch(base + '/up').then((r) => r.json()).then(() => {
    http.get(base + '/up', (up) => { up.resume(); up.on('end', () => res.end('ok')); });
  });
});
server.listen(0, '127.0.0.1', () => {
  http.get('http://127.0.0.1:' + server.address().port + '/front', (res) => {
    res.resume();
    res.on('end', () => server.close());
  });
});
`,
  });
  const files = await loaded(app, 'app.js');
  assert.deepEqual(forbidden(files), []);
  // The recording path ran: the lens's call record and the builder of captures were loaded for it.
  assert.ok(files.some((file) => /[/\\]runtime[/\\]CallRecord\.js$/.test(file)));
});
