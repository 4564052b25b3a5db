import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import type { HttpRow } from '../../src/capture/types';
import { TestApp } from '../helpers/app';

/**
 * gRPC answers over HTTP/2 with status 200 and says its own outcome in `grpc-status` (trailers, or the headers of a
 * trailers-only answer). A real grpc-js server on loopback and a grpc-js client under the preload: every call's row
 * carries the status the client itself got (printed by the app: the oracle), failed unless OK.
 */
const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};
const METHOD = {
  path: '/users.Users/GetUser',
  requestStream: false,
  responseStream: false,
  requestSerialize: json.serialize,
  requestDeserialize: json.deserialize,
  responseSerialize: json.serialize,
  responseDeserialize: json.deserialize,
};

const APP = `
const grpc = require('@grpc/grpc-js');
const json = { serialize: (v) => Buffer.from(JSON.stringify(v)), deserialize: (b) => JSON.parse(b.toString()) };
const Users = grpc.makeGenericClientConstructor({ GetUser: { path: '/users.Users/GetUser', requestStream: false, responseStream: false,
  requestSerialize: json.serialize, requestDeserialize: json.deserialize, responseSerialize: json.serialize, responseDeserialize: json.deserialize } });
const client = new Users(process.env.GRPC_ADDRESS, grpc.credentials.createInsecure());
const get = (id) => new Promise((resolve) => client.GetUser({ id }, (err, user) => { console.log(id + ' ' + (err ? err.code + ' ' + err.details : '0 ' + user.name)); resolve(); }));
(async () => {
  for (const id of ['ada', 'nobody', 'broken', 'secret']) await get(id);
  client.close();
})();
`;

describe('gRPC status on the row', () => {
  let server: grpc.Server;
  let address = '';
  before(async () => {
    server = new grpc.Server();
    server.addService(
      { GetUser: METHOD },
      {
        GetUser: (call: grpc.ServerUnaryCall<{ id: string }, unknown>, done: grpc.sendUnaryData<unknown>) => {
          const { id } = call.request;
          if (id === 'ada') return done(null, { name: 'Ada' });
          if (id === 'nobody') return done({ code: grpc.status.NOT_FOUND, details: 'no user nobody' });
          if (id === 'secret') return done({ code: grpc.status.PERMISSION_DENIED, details: 'token=hunter2 refused' });
          return done({ code: grpc.status.INTERNAL, details: 'database: 50% down' });
        },
      },
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    address = `127.0.0.1:${port}`;
  });
  after(() => server.forceShutdown());

  it('a non-OK status is a failed row that names it; OK is not failed', async () => {
    const app = new TestApp({ 'app.cjs': APP });
    const baseline = await app.run('app.cjs', { preload: 'none', env: { GRPC_ADDRESS: address } });
    const result = await app.run('app.cjs', { env: { GRPC_ADDRESS: address } });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, baseline.stdout, 'the app gets the same answers with Probe');
    // The oracle: what the client got, per call, in order.
    const got = result.stdout
      .trim()
      .split('\n')
      .map((line) => Number(line.split(' ')[1]));
    assert.deepEqual(got, [grpc.status.OK, grpc.status.NOT_FOUND, grpc.status.INTERNAL, grpc.status.PERMISSION_DENIED]);
    const capture = app.captures().find((c) => c.type === 'command');
    const rows = ((capture?.sections.http ?? []) as HttpRow[]).filter((row) => row.url.endsWith('/users.Users/GetUser'));
    assert.equal(rows.length, 4, JSON.stringify(capture?.sections.http));
    rows.forEach((row, i) => {
      assert.equal(row.status, 200);
      assert.equal(row.grpc_status?.code, got[i], JSON.stringify(row));
      assert.equal(row.grpc_status?.name, grpc.status[got[i]!]);
      assert.equal(row.failed, got[i] !== grpc.status.OK, JSON.stringify(row));
    });
    assert.equal(rows[1]!.grpc_status?.message, 'no user nobody');
    assert.equal(rows[2]!.grpc_status?.message, 'database: 50% down', 'grpc-message is percent-decoded');
    assert.doesNotMatch(rows[3]!.grpc_status?.message ?? '', /hunter2/, 'the message is masked like any text');
    assert.equal(capture!.summary.totals?.http_failed, 3);
    assert.match(capture!.summary.errors[0] ?? '', /\(200, gRPC 5 NOT_FOUND\)$/);
    // The agent tools filter on it.
    const listed = await app.cli(['rows', '--id', '*', '--where', 'grpc_status.code>0', '--fields', 'grpc_status.name']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /3 of 3 matching/);
    assert.deepEqual(
      [...listed.stdout.matchAll(/\b(NOT_FOUND|INTERNAL|PERMISSION_DENIED)\b/g)].map((m) => m[1]),
      ['NOT_FOUND', 'INTERNAL', 'PERMISSION_DENIED'],
    );
  });
});
