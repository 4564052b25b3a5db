import { after, before, describe, it } from 'node:test';
import { startStub, type Stub } from '../origin/stub';
import { installFrameApp } from './install';
import { appEnv, assertOrigins, buildOnce, oracles, REGISTER, serveAndAsk, throughBuildMaps } from './run';

let app: string;
let stub: Stub;

const CALLS = { 'kit-load': '/users/kit-load', 'kit-global': '/users/kit-global' };

/** `vite build` into `<name>/` (adapter-node) and `.svelte-kit-<name>/`, once per fixture version. */
function build(name: string, sourcemap: boolean): Promise<void> {
  const env = appEnv(null, { FRAMES_OUT: name, FRAMES_SOURCEMAP: sourcemap ? '1' : '0' });
  return buildOnce(app, 'sveltekit', `${name}/.frames-built`, [process.execPath, 'node_modules/vite/bin/vite.js', 'build'], env);
}

function serve(name: string) {
  const env = appEnv(`--require ${REGISTER} --enable-source-maps`, { API_URL: stub.url, PORT: '0', HOST: '127.0.0.1' });
  return serveAndAsk(app, [name], env, /Listening on (http:\/\/\S+)/, ['/items'], Object.values(CALLS));
}

describe('origin: SvelteKit 2 with adapter-node, a load function calling through the fetch it is handed', { timeout: 900_000 }, () => {
  before(async () => {
    app = await installFrameApp('sveltekit');
    stub = await startStub();
  });
  after(async () => stub?.close());

  it("without build.sourcemap: the load's line in SvelteKit's server output (what Node prints), not SvelteKit's fetch", async () => {
    await build('plain', false);
    const { output, rows } = await serve('plain');
    assertOrigins(rows, oracles(output, app), CALLS);
  });

  it("with build.sourcemap: the load's line in src/, every map of the build followed", async () => {
    await build('mapped', true);
    const { output, rows } = await serve('mapped');
    // Node prints the position one map away (.svelte-kit/output); the build's next map leads to src/.
    const printed = oracles(output, app);
    const expected = new Map([...printed].map(([name, at]) => [name, throughBuildMaps(app, at)]));
    for (const at of expected.values()) if (!at.startsWith('src/')) throw new Error(`the build's maps lead to ${at}, not src/`);
    assertOrigins(rows, expected, CALLS);
  });
});
