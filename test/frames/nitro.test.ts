import { after, before, describe, it } from 'node:test';
import { startStub, type Stub } from '../origin/stub';
import { installFrameApp } from './install';
import { appEnv, assertOrigins, buildOnce, oracles, REGISTER, serveAndAsk } from './run';

let app: string;
let stub: Stub;

const CALLS = { 'nitro-fetch': '/users/nitro-fetch', 'nitro-global': '/users/nitro-global' };

/** `nitro build` into `<name>/` (its `.output`), once per fixture version. sourcemap null: Nitro's default. */
function build(name: string, sourcemap: boolean | null): Promise<void> {
  const env = appEnv(null, { FRAMES_OUT: name, ...(sourcemap === null ? {} : { FRAMES_SOURCEMAP: sourcemap ? '1' : '0' }) });
  return buildOnce(app, 'nitro', `${name}/.frames-built`, [process.execPath, 'node_modules/nitropack/dist/cli/index.mjs', 'build'], env);
}

async function check(name: string): Promise<void> {
  const env = appEnv(`--require ${REGISTER} --enable-source-maps`, { API_URL: stub.url, PORT: '0', HOST: '127.0.0.1' });
  const { output, rows } = await serveAndAsk(app, [`${name}/server/index.mjs`], env, /Listening on (http:\/\/\S+)/, ['/items'], Object.values(CALLS));
  assertOrigins(rows, oracles(output, app), CALLS);
}

describe('origin: Nitro (node .output/server/index.mjs), a route calling through the $fetch Nitro hands it', { timeout: 900_000 }, () => {
  before(async () => {
    app = await installFrameApp('nitro');
    stub = await startStub();
  });
  after(async () => stub?.close());

  it("Nitro's default build (maps with empty mappings for its runtime): the route's line in routes/", () =>
    build('default', null).then(() => check('default')));

  it("sourceMap: false: the route chunk's line (what Node prints), not Nitro's $fetch", () => build('plain', false).then(() => check('plain')));
});
