import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Capture, HttpRow } from '../../src/capture/types';
import { REPO_ROOT } from '../helpers/app';
import { runChild } from '../helpers/child';
import { installApp } from './install';
import { startStub, type Stub } from './stub';

// PROBE_ORIGIN_DIST: another build's dist/ (to see the test fail on a Probe without the fix).
const REGISTER = path.join(path.resolve(process.env.PROBE_ORIGIN_DIST ?? path.join(REPO_ROOT, 'dist')), 'register.js');

/** Each `// call:NAME` line of the app, with the requests it makes (a retry case makes two). */
const CJS_CALLS: Array<[string, string, number]> = [
  ['got', 'GET /users/got', 1],
  ['got-retry', 'GET /users/got-retry', 2],
  ['got-hooked', 'GET /users/got-hooked', 1],
  ['in-hook', 'GET /users/in-hook', 1],
  ['axios', 'GET /users/axios', 1],
  ['node-fetch', 'GET /users/node-fetch', 1],
  ['superagent', 'GET /users/superagent', 1],
  ['ky', 'GET /users/ky', 1],
  ['ky-retry', 'GET /users/ky-retry', 2],
  ['ky-call-retry', 'GET /users/ky-call-retry', 2],
  ['needle', 'GET /users/needle', 1],
  ['undici-request', 'GET /users/undici-request', 1],
  ['undici-fetch', 'GET /users/undici-fetch', 1],
  ['undici-stream', 'GET /users/undici-stream', 1],
  ['fetch', 'GET /users/fetch', 1],
  ['openai', 'POST /v1/chat/completions', 1],
  ['openai-retry', 'POST /openai-retry/v1/chat/completions', 2],
  ['anthropic', 'POST /v1/messages', 1],
  ['stripe', 'GET /v1/customers/cus_123', 1],
  ['stripe-retry', 'GET /v1/customers/cus_retry', 2],
  ['s3-put', 'PUT /bucket/k1', 1],
  ['s3-get', 'GET /bucket/k1', 1],
  ['octokit', 'GET /repos/o/r', 1],
  ['googleapis', 'GET /drive/v3/files', 1],
  ['slack', 'POST /api/chat.postMessage', 1],
  ['twilio', 'POST /2010-04-01/Accounts/AC123/Messages.json', 1],
];

const ESM_CALLS: Array<[string, string, number]> = [
  ['fetch', 'GET /users/esm-fetch', 1],
  ['axios', 'GET /users/esm-axios', 1],
  ['got', 'GET /users/esm-got', 1],
  ['got-retry', 'GET /users/esm-got-retry', 2],
  ['ky-retry', 'GET /users/esm-ky-retry', 2],
  ['ky-call-retry', 'GET /users/esm-ky-call-retry', 2],
];

let app: string;
let stub: Stub;

async function runApp(script: string, preload: string): Promise<HttpRow[]> {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: preload,
    API_URL: stub.url,
    API_PORT: String(stub.port),
    PROBE_ROOT: undefined,
    PROBE_CONFIG: undefined,
    PROBE_STORAGE: undefined,
    PROBE_ENABLED: undefined,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const result = await runChild(process.execPath, [script], { cwd: app, env });
  assert.equal(result.code, 0, `the app failed:\n${result.stdout}\n${result.stderr}`);
  const dir = path.join(app, '.probe', 'captures');
  const captures = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => (JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { capture: Capture }).capture);
  return captures.flatMap((capture) => capture.sections.http ?? []);
}

/** Every call's rows carry the app file and the line of its `// call:NAME` marker. */
function checkOrigins(script: string, rows: HttpRow[], calls: Array<[string, string, number]>): void {
  const source = fs.readFileSync(path.join(app, script), 'utf8').split('\n');
  const problems: string[] = [];
  for (const [name, request, count] of calls) {
    const line = source.findIndex((text) => text.includes(`// call:${name}`)) + 1;
    assert.ok(line > 0, `no marker for ${name}`);
    const matching = rows.filter((row) => `${row.method} ${new URL(row.url).pathname}` === request);
    if (matching.length !== count) problems.push(`${name}: ${matching.length} rows for ${request}, expected ${count}`);
    for (const row of matching) {
      const seen = row.origin ? `${row.origin.file}:${row.origin.line}` : 'null';
      if (seen !== `${script}:${line}`) problems.push(`${name} (${request}): origin ${seen}, expected ${script}:${line}`);
      else assert.ok(row.origin!.chain[0]?.startsWith(`${script}:${line}`), `${name}: chain starts at the call`);
    }
  }
  assert.deepEqual(problems, []);
}

describe('origin: the app line of calls made through client libraries and SDKs (real packages, loopback stub)', { timeout: 600_000 }, () => {
  before(async () => {
    app = await installApp(['sdks.cjs', 'esm.mjs']);
    stub = await startStub();
  });
  after(async () => stub?.close());

  it('CommonJS (--require): every client and SDK, retries included', async () => {
    const rows = await runApp('sdks.cjs', `--require ${REGISTER}`);
    checkOrigins('sdks.cjs', rows, CJS_CALLS);
  });

  it('ESM (--import): global fetch, axios, got and ky, retries included', async () => {
    const rows = await runApp('esm.mjs', `--import ${pathToFileURL(REGISTER).href}`);
    checkOrigins('esm.mjs', rows, ESM_CALLS);
  });
});
