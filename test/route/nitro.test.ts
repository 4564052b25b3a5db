import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { runChild } from '../helpers/child';
import { cleanEnv } from '../helpers/pinned';
import { frameAppCopy } from '../frames/install';
import { serve, writeFiles } from './served';

/**
 * Nitro 2 built as its users ship it (`nitro build`, then `node .output/server/index.mjs`): each request's route is
 * the template of Nitro's handler table, as Nitro writes it for a file route (`routes/api/users/[id].get.ts` →
 * `/api/users/:id`); a 404 and a method the route does not take (405) have none.
 */
let app: string;

describe("Nitro 2 build: each request's route is Nitro's own template", { timeout: 900_000 }, () => {
  before(async () => {
    app = await frameAppCopy('nitro', 'routes');
    writeFiles(app, {
      'routes/api/users/[id].get.ts': "export default defineEventHandler((event) => ({ id: getRouterParam(event, 'id') }));\n",
      'routes/api/files/[...path].ts': "export default defineEventHandler((event) => ({ path: getRouterParam(event, 'path') }));\n",
    });
    const built = await runChild(process.execPath, ['node_modules/nitropack/dist/cli/index.mjs', 'build'], {
      cwd: app,
      env: { ...cleanEnv(), FRAMES_OUT: 'routes-out' },
      timeout: 600_000,
    });
    assert.equal(built.code, 0, built.stdout + built.stderr);
  });

  it('node <output>/server/index.mjs, the same answers with and without Probe', async () => {
    const paths = ['/api/users/42', '/api/files/a/b.txt', '/nope'];
    const run = (preload: boolean) =>
      serve(app, ['routes-out/server/index.mjs'], { preload, ready: /Listening on (http:\/\/\S+)/, paths, env: { PORT: '0', HOST: '127.0.0.1' } });
    const alone = await run(false);
    assert.deepEqual(
      alone.answers.map((answer) => answer.status),
      [200, 200, 404],
    );
    const withProbe = await run(true);
    assert.deepEqual(withProbe.answers, alone.answers, 'the app answers as without Probe');
    assert.deepEqual(Object.fromEntries(withProbe.rows.map((row) => [row.name, row.route])), {
      'GET /api/users/42': '/api/users/:id',
      'GET /api/files/a/b.txt': '/api/files/**:path',
      'GET /nope': null,
    });
  });
});
