import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildCapture } from '../../src/builder/buildCapture';
import { resolveConfig } from '../../src/config/resolve';
import { indexRowOf } from '../../src/capture/indexRow';
import { readableCapture } from '../../src/capture/readableCapture';
import type { Capture } from '../../src/capture/types';
import { TestApp, eventually } from '../helpers/app';
import { callInput, unitOf, T0 } from '../helpers/call-input';
import { startDashboardCli, type RunningCli } from './harness';

/**
 * A store driver written as a user would (config `register` + `extendStore`) over `<dir>/<id>.json` and
 * `<dir>/index.json`, reading synchronously, that notes in `finds.log` each capture it is asked for: the test
 * learns from it that the dashboard has read the long capture for its findings, and asks for the list only then.
 */
const NOTING_STORE_CONFIG = `
const fs = require('node:fs');
const path = require('node:path');
module.exports = {
  lenses: { HttpClientLens: { max_rows: 100000 } },
  storage: { driver: 'noting', noting: { dir: 'store' } },
  register(probe) {
    probe.extendStore('noting', (app, config) => {
      const dir = path.join(app.root, config.dir);
      return {
        async put() { throw new Error('read-only store'); },
        async find(id) {
          if (!/^[0-9A-Za-z_-]{8,64}$/.test(id)) return null;
          fs.appendFileSync(path.join(app.root, 'finds.log'), id + '\\n');
          try { return JSON.parse(fs.readFileSync(path.join(dir, id + '.json'), 'utf8')); } catch { return null; }
        },
        async index() {
          try { return JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')); } catch { return []; }
        },
        async clear() {},
      };
    });
  },
};
`;

const CALLS = 20_000;
const LONG_ID = 'longjob0000000001';

/** A job whose one code line loads CALLS catalogue entries one by one, each answering a list of words: built by the builder. */
function longCapture(): Capture {
  const calls = [];
  for (let i = 0; i < CALLS; i++) {
    const body = Buffer.from(JSON.stringify(Array.from({ length: 100 }, (_, k) => `word-${i}-${k}`)));
    calls.push(
      callInput({
        spanId: `s${i}`,
        url: `https://api.test/catalog/slug-${i}-x`,
        responseHeaders: { 'content-type': 'application/json' },
        responseBody: { chunks: [body], size: body.length, truncated: false },
        start: T0 + i * 3,
        end: T0 + i * 3 + 2,
        origin: { file: 'job.js', line: 7, chain: ['job.js:7 load', 'job.js:12 run'] },
      }),
    );
  }
  const config = resolveConfig({ root: '/app', configFile: null, file: { lenses: { HttpClientLens: { max_rows: 100_000 } } }, env: {} });
  return buildCapture({ ...unitOf(calls), id: LONG_ID, type: 'job', name: 'catalog', endedAt: T0 + CALLS * 3 + 5 }, config);
}

/** GET from the dashboard, noting in `order` when the answer has arrived whole. */
async function answered(cli: RunningCli, pathname: string, order: string[]): Promise<unknown> {
  const response = await fetch(cli.origin + pathname);
  const text = await response.text();
  order.push(pathname);
  assert.equal(response.status, 200, `${pathname}: ${text.slice(0, 200)}`);
  return response.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as unknown) : text;
}

describe('dashboard findings of a long capture', () => {
  let app: TestApp;
  let cli: RunningCli;

  before(async () => {
    app = new TestApp({ 'probe.config.cjs': NOTING_STORE_CONFIG }, 'catalog-worker');
    const capture = longCapture();
    assert.equal(capture.sections.http?.length, CALLS);
    app.write(path.join('store', `${LONG_ID}.json`), JSON.stringify(capture));
    app.write(path.join('store', 'index.json'), JSON.stringify([indexRowOf(readableCapture(capture))]));
    cli = await startDashboardCli(app, undefined, { lifetime: 'file' });
  });

  after(async () => {
    await cli?.stop();
  });

  it('answers the list and a capture page while it makes them, and they are what `probe show` finds', async () => {
    const log = path.join(app.dir, 'finds.log');
    writeFileSync(log, '');
    const order: string[] = [];
    const findingsPath = `/api/captures/${LONG_ID}/findings`;
    const findings = answered(cli, findingsPath, order);
    // The dashboard has read the long capture: its findings are being made from here on.
    await eventually(() => existsSync(log) && readFileSync(log, 'utf8').split('\n').includes(LONG_ID));
    await answered(cli, '/api/captures', order);
    await answered(cli, '/assets/app.js', order);
    const found = await findings;
    assert.deepEqual(order, ['/api/captures', '/assets/app.js', findingsPath]);

    const shown = await app.cli(['show', LONG_ID, '--json', '--all']);
    assert.equal(shown.code, 0, shown.stderr);
    const expected = (JSON.parse(shown.stdout) as { findings: unknown[] }).findings;
    assert.ok(expected.length > 0, 'the long capture has findings');
    assert.deepEqual(found, expected);
  });
});
