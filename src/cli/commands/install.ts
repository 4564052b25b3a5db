import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CliCommand, CliIo } from '../io';
import { findAppRoot } from '../../config/appRoot';
import { readProjectFile, writeProjectFile } from '../projectFile';

/**
 * `probe install`: sets a project up. Every step is idempotent and merges with what is there: a file that
 * already says what we would add is left byte for byte as it was, and a file we cannot parse is never
 * rewritten (we say what to add instead). Nothing is written through a link (projectFile.ts): a file that is a
 * link or lies in a linked folder is skipped, and one line names them all.
 */
export const install: CliCommand = async (argv, io) => {
  const { values } = parseArgs({ args: argv, options: { mcp: { type: 'boolean' } }, strict: true });
  const root = findAppRoot(io.cwd, io.env).root;
  const skipped: string[] = [];
  const report: Report = (file, what) => io.out(`${file}: ${what}`);
  report.skip = (file, why) => void skipped.push(`${file} (${why})`);
  let failed = false;

  writeConfig(root, report);
  for (const file of IGNORE_FILES) ensureIgnored(root, file, report);
  failed = !mergeJson(root, '.vscode/settings.json', addVsCodeExcludes, report, VSCODE_HINT) || failed;
  if (values.mcp) {
    for (const target of MCP_TARGETS) failed = !mergeJson(root, target.file, target.add, report, target.hint) || failed;
    if (!existsSync(path.join(root, MCP_CLI))) {
      io.out(`note: ${MCP_CLI} is not in ${root}; the MCP server starts once Probe is installed in this project (see the README's Install)`);
    }
  }
  if (skipped.length) {
    io.out(`skipped, as Probe writes through no link: ${skipped.join(', ')}; set these up by hand if they are meant to be shared`);
    failed = true;
  }
  return failed ? 1 : 0;
};

const CONFIG_NAMES = ['probe.config.mjs', 'probe.config.js', 'probe.config.cjs', 'probe.config.json'];
const IGNORE_FILES = ['.gitignore', '.cursorignore', '.aiexclude'];
const IGNORED = '.probe/';

type Report = ((file: string, what: string) => void) & { skip?: (file: string, why: string) => void };

export const CONFIG_TEMPLATE = `// Probe configuration. Every setting is optional: the commented values are the defaults.
// A bad setting is reported at start, naming the setting; the app then runs unrecorded.
import { defineConfig } from 'probe';

export default defineConfig({
  // enabled: true, // PROBE_ENABLED=false turns Probe off

  storage: {
    // driver: 'file', // 'file', 'redis', or a driver registered with extendStore() (PROBE_STORAGE)
    // limit: 200, // most recent captures kept
    // file: { path: '.probe/captures' }, // must stay inside .probe/
    // redis: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: 'probe:', ttl: 86400 },
  },

  lenses: {
    // HttpClientLens: {
    //   bodies: false, // also keep raw request/response bodies
    //   max_body_bytes: 1048576,
    //   max_rows: 1000, // calls kept per capture; totals count them all
    //   capture: { response_types: { 'application/json': JsonCapture, 'application/*+json': JsonCapture, 'text/event-stream': EventStreamCapture } },
    // },
  },

  mask: {
    // headers: { 'x-session-id': 'FullMask' }, // added to authorization, cookie, x-api-key, x-amz-security-token... (README, Masking)
    // inputs: ['github_token', /^x-internal-/], // added to password, secret, token, api_key... as whole names: apiKey, API-KEY match api_key
  },

  // origin: { enabled: true }, // record the app code line of each call
  // except: ['GET /health'], // capture names kept out of recording (globs or RegExps)

  // register(probe) {
  //   probe.extendStore('mine', (app, config) => new MyStore(config));
  // },
});
`;

function writeConfig(root: string, report: Report): void {
  for (const name of CONFIG_NAMES) {
    const existing = readProjectFile(root, name);
    if ('refused' in existing) return report.skip?.(name, existing.refused);
    if (existing.text !== null) return report(name, 'exists, left as is');
  }
  writeProjectFile(root, 'probe.config.mjs', CONFIG_TEMPLATE);
  report('probe.config.mjs', 'written (the defaults, commented)');
}

/** Adds `.probe/` unless a line already ignores that folder. */
function ensureIgnored(root: string, file: string, report: Report): void {
  const read = readProjectFile(root, file);
  if ('refused' in read) return report.skip?.(file, read.refused);
  const text = read.text ?? '';
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  if (lines.some((line) => /^\/?\.probe\/?(\*\*)?$/.test(line))) return report(file, `already ignores ${IGNORED}`);
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  writeProjectFile(root, file, `${text}${separator}${IGNORED}\n`);
  report(file, `${text ? 'added' : 'created with'} ${IGNORED}`);
}

type Json = Record<string, unknown>;

/** Reads a JSON object file (missing or empty → {}), lets `add` change it, writes it back only when changed. */
function mergeJson(root: string, file: string, add: (json: Json) => string | null, report: Report, hint: string): boolean {
  let json: Json = {};
  const read = readProjectFile(root, file);
  if ('refused' in read) {
    report.skip?.(file, read.refused);
    return true; // said in the line of skipped files
  }
  if (read.text !== null) {
    const text = read.text;
    if (text.trim() !== '') {
      try {
        json = JSON.parse(text) as Json;
        if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error('not an object');
      } catch {
        // Comments or trailing commas (VS Code allows them): rewriting would drop them, so ask instead.
        report(file, `not plain JSON, left unchanged; add ${hint}`);
        return file.endsWith('settings.json');
      }
    }
  }
  const change = add(json);
  if (!change) {
    report(file, 'already set up');
    return true;
  }
  writeProjectFile(root, file, `${JSON.stringify(json, null, 2)}\n`);
  report(file, change);
  return true;
}

function objectAt(json: Json, key: string): Json {
  const value = json[key];
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Json;
  const created: Json = {};
  json[key] = created;
  return created;
}

const VSCODE_HINT = '"search.exclude": {"**/.probe": true} and "files.watcherExclude": {"**/.probe/**": true}';

function addVsCodeExcludes(json: Json): string | null {
  const added: string[] = [];
  const search = objectAt(json, 'search.exclude');
  if (!('**/.probe' in search)) {
    search['**/.probe'] = true;
    added.push('search.exclude');
  }
  const watcher = objectAt(json, 'files.watcherExclude');
  if (!('**/.probe/**' in watcher)) {
    watcher['**/.probe/**'] = true;
    added.push('files.watcherExclude');
  }
  return added.length ? `added .probe to ${added.join(' and ')}` : null;
}

/**
 * The command every editor and agent starts: the Probe installed in the project, never `npx probe` (which,
 * where this package is missing, would fetch and run the unrelated registry package named `probe`). Claude
 * Code and Cursor start project servers in the project folder; VS Code's `${workspaceFolder}` says so.
 */
const MCP_CLI = 'node_modules/probe/dist/cli/main.js';
const SERVER = { command: 'node', args: [MCP_CLI, 'mcp'] };
const VSCODE_SERVER = { type: 'stdio', command: 'node', args: [`\${workspaceFolder}/${MCP_CLI}`, 'mcp'] };

/** Registers the server under `probe` in the clients' key, keeping every other server and a probe entry the user edited. */
function registerUnder(key: string, entry: { command: string; args: string[] }): (json: Json) => string | null {
  return (json) => {
    const servers = objectAt(json, key);
    if ('probe' in servers) return null;
    servers.probe = { ...entry, args: [...entry.args] };
    return `registered the probe MCP server: ${[entry.command, ...entry.args].join(' ')}`;
  };
}

const MCP_TARGETS = [
  // Claude Code
  { file: '.mcp.json', add: registerUnder('mcpServers', SERVER), hint: `"mcpServers": {"probe": ${JSON.stringify(SERVER)}}` },
  { file: '.cursor/mcp.json', add: registerUnder('mcpServers', SERVER), hint: `"mcpServers": {"probe": ${JSON.stringify(SERVER)}}` },
  { file: '.vscode/mcp.json', add: registerUnder('servers', VSCODE_SERVER), hint: `"servers": {"probe": ${JSON.stringify(VSCODE_SERVER)}}` },
];
