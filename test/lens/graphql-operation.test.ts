import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { TestApp, collect, waitForLine } from '../helpers/app';
import { installPinned } from '../helpers/pinned';

/**
 * A GraphQL request capture carries the operation the request names (`POST /graphql (GetUser)`): operationName, else
 * the first named operation of the query, by one rule over the incoming request, for any server. Apollo Server 4
 * (standalone, on node:http) and a plain node:http handler executing with the `graphql` package (in no list).
 */
const CACHE = process.env.PROBE_UNITS_NET_CACHE ?? path.join(os.homedir(), '.cache', 'probe-units-net');
const APOLLO = '4.13.0';

const SCHEMA = `type User { name: String } type Query { user: User users: [User] }`;

const APOLLO_APP = `
const { ApolloServer } = require(process.env.APOLLO_PATH);
const { startStandaloneServer } = require(process.env.APOLLO_PATH + '/standalone');
const server = new ApolloServer({ typeDefs: \`${SCHEMA}\`, resolvers: { Query: { user: () => ({ name: 'Ada' }), users: () => [{ name: 'Ada' }] } } });
startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } }).then(({ url }) => console.log('listening ' + new URL(url).port));
process.on('SIGTERM', () => server.stop().then(() => process.exit(0)));
`;

const PLAIN_APP = `
const http = require('node:http');
const { graphql, buildSchema } = require('graphql');
const schema = buildSchema(\`${SCHEMA}\`);
const rootValue = { user: () => ({ name: 'Ada' }), users: () => [{ name: 'Ada' }] };
const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  let source = url.searchParams.get('query');
  let operationName = url.searchParams.get('operationName');
  if (req.method === 'POST') {
    let text = '';
    for await (const chunk of req) text += chunk;
    ({ query: source, operationName } = JSON.parse(text));
  }
  const result = await graphql({ schema, source, rootValue, operationName });
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(result));
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

const BOTH = 'query GetUser { user { name } } query ListUsers { users { name } }';

describe('GraphQL requests named by their operation', () => {
  let apollo = '';
  before(async () => {
    const dir = await installPinned({
      dir: path.join(CACHE, `apollo-${APOLLO}`),
      package: { name: 'apollo-app', dependencies: { '@apollo/server': APOLLO, graphql: '16.11.0' } },
      probe: false,
    });
    apollo = path.join(dir, 'node_modules', '@apollo', 'server');
  });

  async function serve(file: string, source: string, env: Record<string, string> = {}): Promise<{ app: TestApp; child: ChildProcess; base: string }> {
    const app = new TestApp({ [file]: source });
    const child = app.spawn(file, { env });
    const [, port] = await waitForLine(child, /listening (\d+)/);
    return { app, child, base: `http://127.0.0.1:${port}` };
  }

  const post = (url: string, body: unknown) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());

  async function names(app: TestApp, child: ChildProcess): Promise<string[]> {
    child.kill('SIGTERM');
    const result = await collect(child);
    assert.equal(result.code, 0, result.stderr);
    return app
      .captures()
      .filter((c) => c.type === 'request')
      .map((c) => c.name);
  }

  it(`Apollo Server ${APOLLO}`, async () => {
    const { app, child, base } = await serve('apollo.cjs', APOLLO_APP, { APOLLO_PATH: apollo });
    assert.deepEqual(await post(`${base}/`, { query: 'query GetUser { user { name } }' }), { data: { user: { name: 'Ada' } } });
    await post(`${base}/`, { query: BOTH, operationName: 'ListUsers' });
    await post(`${base}/`, { query: '{ user { name } }' });
    assert.deepEqual((await names(app, child)).sort(), ['POST /', 'POST / (GetUser)', 'POST / (ListUsers)']);
  });

  it('a plain node:http handler executing with graphql', async () => {
    const { app, child, base } = await serve('plain.cjs', PLAIN_APP);
    assert.deepEqual(await post(`${base}/graphql`, { query: BOTH, operationName: 'GetUser' }), { data: { user: { name: 'Ada' } } });
    await fetch(`${base}/graphql?query=${encodeURIComponent('query ListUsers { users { name } }')}`).then((r) => r.json());
    await post(`${base}/graphql`, { query: '{ user { name } }' });
    // A JSON body that is not GraphQL's keeps the plain name.
    await post(`${base}/graphql`, { query: 'find users named ada' }).catch(() => null);
    assert.deepEqual((await names(app, child)).sort(), ['GET /graphql (ListUsers)', 'POST /graphql', 'POST /graphql', 'POST /graphql (GetUser)']);
  });
});
