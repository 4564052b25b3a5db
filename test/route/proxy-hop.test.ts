import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startStub, type Stub } from '../origin/stub';
import { frameAppCopy } from '../frames/install';
import { serve, writeFiles, type Row } from './served';

/**
 * A dev server that passes each request on to a server of the same app gives one capture per request: the one of
 * the server that answered it, with the app's calls. `nuxi dev` (Nuxt 3) hands each request to Nitro's worker
 * thread over a unix socket; a front process of no list passes requests to its child over a unix socket or TCP
 * loopback. A call the front makes of its own (another path) keeps its capture.
 */
let stub: Stub;

before(async () => {
  stub = await startStub();
});
after(async () => stub?.close());

/** Request captures by name: how many, and the calls each holds. */
function byName(rows: Row[]): Record<string, number[]> {
  const found: Record<string, number[]> = {};
  for (const row of rows) (found[row.name] ??= []).push(row.counts.http ?? 0);
  return found;
}

describe('a front server passing requests to a child process of the same app (no framework)', { timeout: 300_000 }, () => {
  for (const hop of ['unix', 'tcp']) {
    it(`over ${hop === 'unix' ? 'a unix socket' : 'TCP loopback'}: one capture per passed request; the front's own call to the child kept`, async () => {
      const app = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-proxy-hop-'));
      try {
        fs.writeFileSync(path.join(app, 'package.json'), '{"name":"proxy-hop","private":true}\n');
        fs.copyFileSync(path.join(__dirname, 'apps', 'proxy.cjs'), path.join(app, 'proxy.cjs'));
        // /with-health is the front's own, asked last: once its capture is stored, the front's earlier ones are.
        const paths = ['/api/42', '/api/43?x=1', '/with-health'];
        const run = (preload: boolean) =>
          serve(app, ['proxy.cjs'], {
            preload,
            ready: /Listening on (http:\/\/\S+)/,
            paths,
            env: { API_URL: stub.url, PROXY_HOP: hop },
            until: (rows) => ['GET /with-health', 'GET /health', 'GET /api/43'].every((name) => rows.some((row) => row.name === name)),
          });
        const alone = await run(false);
        assert.deepEqual(
          alone.answers.map((answer) => answer.status),
          [200, 200, 200],
        );
        const withProbe = await run(true);
        assert.deepEqual(withProbe.answers, alone.answers, 'the app answers as without Probe');
        assert.deepEqual(byName(withProbe.rows), {
          'GET /api/42': [1],
          'GET /api/43': [1],
          'GET /with-health': [1],
          'GET /health': [0],
        });
      } finally {
        fs.rmSync(app, { recursive: true, force: true });
      }
    });
  }
});

describe('Nuxt 3 `nuxi dev`', { timeout: 900_000 }, () => {
  it("one capture per request, the Nitro worker's, holding the server route's call, named by Nitro's route", async () => {
    const app = await frameAppCopy('nuxt', 'routes');
    writeFiles(app, {
      'server/api/items/[id].get.ts':
        "export default defineEventHandler(async (event) => {\n  const id = getRouterParam(event, 'id');\n  const upstream = await fetch(`${process.env.API_URL}/users/${id}`);\n  return { id, upstream: upstream.status };\n});\n",
    });
    // The Vite client is served by nuxi's own process, asked last: once its capture is stored, any earlier
    // capture of that process is.
    const paths = ['/api/items/42', '/api/items/43', '/_nuxt/@vite/client'];
    const run = (preload: boolean) =>
      serve(app, ['node_modules/@nuxt/cli/bin/nuxi.mjs', 'dev', '--port', '0', '--host', '127.0.0.1'], {
        preload,
        ready: /Local:\s+(http:\/\/\S+)[\s\S]*Nitro server built/,
        warm: true,
        paths,
        env: { API_URL: stub.url, NUXT_TELEMETRY_DISABLED: '1' },
        until: (rows) => rows.some((row) => row.name === 'GET /_nuxt/@vite/client') && rows.some((row) => row.name === 'GET /api/items/43'),
      });
    const alone = await run(false);
    assert.deepEqual(
      alone.answers.map((answer) => answer.status),
      [200, 200, 200],
    );
    const withProbe = await run(true);
    assert.deepEqual(withProbe.answers, alone.answers, 'the app answers as without Probe');
    const found = byName(withProbe.rows);
    assert.deepEqual(found['GET /api/items/42'], [1], JSON.stringify(found));
    assert.deepEqual(found['GET /api/items/43'], [1], JSON.stringify(found));
    // Named by the route of Nitro's handler table (what it writes for server/api/items/[id].get.ts); the page
    // renderer's catch-all, which answers the Vite client's path in nuxi's own process, is no route.
    const routes = Object.fromEntries(withProbe.rows.map((row) => [row.name, row.route]));
    assert.deepEqual(routes, { 'GET /api/items/42': '/api/items/:id', 'GET /api/items/43': '/api/items/:id', 'GET /_nuxt/@vite/client': null });
  });
});
