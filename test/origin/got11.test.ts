import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Capture, HttpRow } from '../../src/capture/types';
import { REPO_ROOT } from '../helpers/app';
import { runChild } from '../helpers/child';
import { cleanEnv, installPinned } from '../helpers/pinned';
import { startStub, type Stub } from './stub';

// PROBE_ORIGIN_DIST: another build's dist/ (to see the test fail on a Probe without the fix).
const REGISTER = path.join(path.resolve(process.env.PROBE_ORIGIN_DIST ?? path.join(REPO_ROOT, 'dist')), 'register.js');
const CACHE = process.env.PROBE_ORIGIN_CACHE ?? path.join(os.homedir(), '.cache', 'probe-origin');

/** Each `// call:NAME` line of the app, with the requests it makes (the retry makes two). */
const CALLS: Array<[string, string, number]> = [
  ['got', 'GET /users/got11', 1],
  ['extend', 'GET /users/got11-extend', 1],
  ['extend-post', 'POST /users/got11-post', 1],
  ['retry', 'GET /users/got11-retry', 2],
  ['stream', 'GET /users/got11-stream', 1],
];

/**
 * got 11, the last CommonJS got (its own app: one got per node_modules): each call's row carries the app's line,
 * a got.extend() client's and a retry's included. The oracle is the line of the marker at each call.
 */
describe('origin: got 11 calls carry the app line', () => {
  let app: string;
  let stub: Stub;
  before(async () => {
    app = await installPinned({ dir: path.join(CACHE, 'got-11'), package: { name: 'origin-got-11', dependencies: { got: '11.8.6' } }, probe: false });
    fs.copyFileSync(path.join(__dirname, 'apps', 'got11.cjs'), path.join(app, 'got11.cjs'));
    stub = await startStub();
  });
  after(async () => stub?.close());

  it('got(), a got.extend() client, a retry and a stream (--require)', async () => {
    fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
    const env = { ...cleanEnv(), NODE_OPTIONS: `--require ${REGISTER}`, API_URL: stub.url };
    const result = await runChild(process.execPath, ['got11.cjs'], { cwd: app, env });
    assert.equal(result.code, 0, `the app failed:\n${result.stdout}\n${result.stderr}`);
    const dir = path.join(app, '.probe', 'captures');
    const rows: HttpRow[] = fs
      .readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .flatMap((file) => (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { capture: Capture }).capture.sections.http ?? []);
    const source = fs.readFileSync(path.join(app, 'got11.cjs'), 'utf8').split('\n');
    const problems: string[] = [];
    for (const [name, request, count] of CALLS) {
      const line = source.findIndex((text) => text.includes(`// call:${name}`)) + 1;
      assert.ok(line > 0, `no marker for ${name}`);
      const matching = rows.filter((row) => `${row.method} ${new URL(row.url).pathname}` === request);
      if (matching.length !== count) problems.push(`${name}: ${matching.length} rows for ${request}, expected ${count}`);
      for (const row of matching) {
        const seen = row.origin ? `${row.origin.file}:${row.origin.line}` : 'null';
        if (seen !== `got11.cjs:${line}`) problems.push(`${name} (${request}): origin ${seen}, expected got11.cjs:${line}`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
