import { after, before, describe, it } from 'node:test';
import { startStub, type Stub } from '../origin/stub';
import { installFrameApp } from './install';
import { appEnv, assertOrigins, buildOnce, oracles, REGISTER, serveAndAsk, throughBuildMaps } from './run';

let app: string;
let stub: Stub;

const CALLS = { 'rr-loader': '/users/rr-loader' };

/** `react-router build` into `<name>/`, once per fixture version. */
function build(name: string, sourcemap: boolean): Promise<void> {
  const env = appEnv(null, { FRAMES_OUT: name, FRAMES_SOURCEMAP: sourcemap ? '1' : '0' });
  return buildOnce(app, 'react-router', `${name}/.frames-built`, [process.execPath, 'node_modules/@react-router/dev/bin.js', 'build'], env);
}

function serve(name: string) {
  const env = appEnv(`--require ${REGISTER} --enable-source-maps`, { API_URL: stub.url, PORT: '0', HOST: '127.0.0.1' });
  return serveAndAsk(
    app,
    ['node_modules/@react-router/serve/bin.js', `${name}/server/index.js`],
    env,
    /\[react-router-serve\] (http:\/\/\S+)/,
    ['/items'],
    Object.values(CALLS),
  );
}

describe('origin: React Router 7 framework mode under react-router-serve, a loader calling fetch', { timeout: 900_000 }, () => {
  before(async () => {
    app = await installFrameApp('react-router');
    stub = await startStub();
  });
  after(async () => stub?.close());

  it("without maps: the loader's line in build/server/index.js (what Node prints)", async () => {
    await build('plain', false);
    const { output, rows } = await serve('plain');
    assertOrigins(rows, oracles(output, app), CALLS);
  });

  it("with build.sourcemap: the loader's line in app/routes/", async () => {
    await build('mapped', true);
    const { output, rows } = await serve('mapped');
    const expected = new Map([...oracles(output, app)].map(([name, at]) => [name, throughBuildMaps(app, at)]));
    assertOrigins(rows, expected, CALLS);
  });
});
