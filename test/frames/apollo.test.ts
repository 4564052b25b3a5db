import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runChild } from '../helpers/child';
import { startStub, type Stub } from '../origin/stub';
import { installFrameApp } from './install';
import { appEnv, assertOrigins, httpRows, oracles, originsOf, REGISTER } from './run';

let app: string;
let stub: Stub;

describe(
  'origin: libraries that hop where V8 async stacks stop, learned (Apollo Server 4 RESTDataSource, request), real packages',
  { timeout: 900_000 },
  () => {
    before(async () => {
      app = await installFrameApp('apollo');
      stub = await startStub();
    });
    after(async () => stub?.close());

    it("a RESTDataSource's calls carry the resolver's line once the package is learned to hop; never another line", async () => {
      fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
      const result = await runChild(process.execPath, ['server.mjs'], { cwd: app, env: appEnv(`--require ${REGISTER}`, { API_URL: stub.url }) });
      assert.equal(result.code, 0, `the app failed:\n${result.stdout}\n${result.stderr}`);
      const expected = oracles(result.stdout, app);
      const rows = httpRows(app);
      // The first RESTDataSource call has no app frame on its stack (the library returns its promises un-awaited,
      // where V8's async stack traces stop): null, not a guess; it teaches Probe the package, and the next call has the line.
      assert.deepEqual(originsOf(rows, '/users/7'), ['null']);
      assertOrigins(rows, expected, { rest: '/users/8', dataloader: '/users', 'graphql-request': '/graphql' });
    });

    it('a library in no list that starts its request on a later tick (request): learned the same way', async () => {
      fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
      const result = await runChild(process.execPath, ['request.cjs'], { cwd: app, env: appEnv(`--require ${REGISTER}`, { API_URL: stub.url }) });
      assert.equal(result.code, 0, `the app failed:\n${result.stdout}\n${result.stderr}`);
      const rows = httpRows(app);
      assert.deepEqual(originsOf(rows, '/users/request-first'), ['null']);
      assertOrigins(rows, oracles(result.stdout, app), { second: '/users/request-second', third: '/users/request-third' });
    });
  },
);
