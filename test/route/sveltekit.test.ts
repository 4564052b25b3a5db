import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runChild } from '../helpers/child';
import { cleanEnv } from '../helpers/pinned';
import { freePort } from '../helpers/redis';
import { frameAppCopy } from '../frames/install';
import { serve, writeFiles, type Served } from './served';

/**
 * SvelteKit 2 as its users run it: adapter-node's build (`node build`) and Vite's dev server (`vite dev`). Each
 * request's route is SvelteKit's own route id, as its file system router writes it (`/api/users/[id]`): an
 * endpoint, a page and the page's data request; a 404 has none (never the server's catch-all).
 */
const FILES: Record<string, string> = {
  'src/routes/api/users/[id]/+server.js':
    "import { json } from '@sveltejs/kit';\nexport async function GET({ params }) {\n  return json({ id: params.id });\n}\n",
  'src/routes/pages/[slug]/+page.server.js': 'export async function load({ params }) {\n  return { slug: params.slug };\n}\n',
  'src/routes/pages/[slug]/+page.svelte': '<script>\n  let { data } = $props();\n</script>\n<p>{data.slug}</p>\n',
};

const PATHS = ['/api/users/42', '/pages/hello', '/pages/hello/__data.json', '/nope'];
const ROUTES = {
  'GET /api/users/42': '/api/users/[id]',
  'GET /pages/hello': '/pages/[slug]',
  'GET /pages/hello/__data.json': '/pages/[slug]',
  'GET /nope': null,
};

let app: string;

function routesOf(served: Served): Record<string, string | null> {
  return Object.fromEntries(served.rows.map((row) => [row.name, row.route]));
}

describe("SvelteKit 2: each request's route is SvelteKit's route id; a 404 has none", { timeout: 900_000 }, () => {
  before(async () => {
    app = await frameAppCopy('sveltekit', 'routes');
    writeFiles(app, FILES);
  });

  it('adapter-node build (`node build`), the same answers with and without Probe', async () => {
    const built = await runChild(process.execPath, ['node_modules/vite/bin/vite.js', 'build'], {
      cwd: app,
      env: { ...cleanEnv(), FRAMES_OUT: 'routes' },
      timeout: 600_000,
    });
    assert.equal(built.code, 0, built.stdout + built.stderr);
    assert.ok(fs.existsSync(path.join(app, 'routes', 'index.js')));
    const run = (preload: boolean) =>
      serve(app, ['routes'], { preload, ready: /Listening on (http:\/\/\S+)/, paths: PATHS, env: { PORT: '0', HOST: '127.0.0.1' } });
    const alone = await run(false);
    assert.deepEqual(
      alone.answers.map((answer) => answer.status),
      [200, 200, 200, 404],
    );
    const withProbe = await run(true);
    assert.deepEqual(withProbe.answers, alone.answers, 'the app answers as without Probe');
    assert.deepEqual(routesOf(withProbe), ROUTES);
  });

  it('`vite dev`, the same answers with and without Probe', async () => {
    const run = async (preload: boolean) => {
      // Vite takes port 0 as "its default": a port the system picked and let go, held strictly.
      const port = await freePort();
      return serve(app, ['node_modules/vite/bin/vite.js', 'dev', '--port', String(port), '--strictPort', '--host', '127.0.0.1'], {
        preload,
        ready: /Local:\s+(http:\/\/\S+)/,
        paths: PATHS,
      });
    };
    const alone = await run(false);
    assert.deepEqual(
      alone.answers.map((answer) => answer.status),
      [200, 200, 200, 404],
    );
    const withProbe = await run(true);
    assert.deepEqual(withProbe.answers, alone.answers, 'the app answers as without Probe');
    assert.deepEqual(routesOf(withProbe), ROUTES);
  });
});
