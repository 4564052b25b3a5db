// gRPC binary metadata (`x-session-token-bin`, `auth-token-bin`: names gRPC requires to end in `-bin`, values
// base64) is masked by the name before the suffix. A grpc-js client and a plain node:http2 client under the preload
// call a real grpc-js server on loopback; the stored capture file is read whole.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HttpRow } from '../../src/capture/types';
import { TestApp } from '../helpers/app';

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

/** Secrets sent as binary metadata; stored, each would show as its base64. */
const SECRETS = ['session-SEKRIT-one', 'auth-SEKRIT-two', 'refresh-SEKRIT-three', 'passphrase-SEKRIT-four'];
const BASE64 = SECRETS.map((secret) => [Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('base64').replace(/=+$/, '')]).flat();

const APP = `
const grpc = require('@grpc/grpc-js');
const http2 = require('node:http2');
const json = { serialize: (v) => Buffer.from(JSON.stringify(v)), deserialize: (b) => JSON.parse(b.toString()) };
const Users = grpc.makeGenericClientConstructor({ GetUser: { path: '/users.Users/GetUser', requestStream: false, responseStream: false,
  requestSerialize: json.serialize, requestDeserialize: json.deserialize, responseSerialize: json.serialize, responseDeserialize: json.deserialize } });
const client = new Users(process.env.GRPC_ADDRESS, grpc.credentials.createInsecure());
const metadata = new grpc.Metadata();
metadata.set('x-session-token-bin', Buffer.from('session-SEKRIT-one'));
metadata.set('auth-token-bin', Buffer.from('auth-SEKRIT-two'));
metadata.set('x-trace-bin', Buffer.from('readable-trace'));
client.GetUser({ id: 'ada' }, metadata, (err, user) => {
  console.log('grpc-js ' + (err ? err.code : user.name));
  client.close();
  // The same metadata as plain HTTP/2 headers, under a name no list holds (the word rule decides).
  const session = http2.connect('http://' + process.env.GRPC_ADDRESS);
  const req = session.request({ ':path': '/users.Users/GetUser', ':method': 'POST', 'content-type': 'application/grpc', te: 'trailers',
    'x-tenant-passphrase-bin': Buffer.from('passphrase-SEKRIT-four').toString('base64') });
  req.on('response', () => {});
  req.resume();
  req.on('end', () => { console.log('http2 done'); session.close(); });
  const message = Buffer.from(JSON.stringify({ id: 'ada' }));
  const frame = Buffer.alloc(5); frame.writeUInt32BE(message.length, 1);
  req.end(Buffer.concat([frame, message]));
});
`;

let server: grpc.Server;
let address = '';
before(async () => {
  server = new grpc.Server();
  server.addService(
    { GetUser: METHOD },
    {
      GetUser: (call: grpc.ServerUnaryCall<{ id: string }, unknown>, done: grpc.sendUnaryData<unknown>) => {
        const answer = new grpc.Metadata();
        answer.set('x-refresh-token-bin', Buffer.from('refresh-SEKRIT-three'));
        call.sendMetadata(answer);
        done(null, { name: 'Ada' });
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  address = `127.0.0.1:${port}`;
});
after(() => server.forceShutdown());

test('binary metadata is masked by the name before -bin, in requests and responses', async () => {
  const app = new TestApp({ 'app.js': APP });
  const run = await app.run('app.js', { env: { GRPC_ADDRESS: address } });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /grpc-js Ada/);
  assert.match(run.stdout, /http2 done/);
  const rows = app.captures().flatMap((c) => (c.sections.http as HttpRow[] | undefined) ?? []);
  assert.equal(rows.length, 2, rows.map((r) => r.url).join('\n'));
  const [viaGrpc, viaHttp2] = rows;
  assert.equal(viaGrpc!.request_headers['x-session-token-bin'], '********');
  assert.equal(viaGrpc!.request_headers['auth-token-bin'], '********');
  assert.equal(viaGrpc!.response_headers['x-refresh-token-bin'], '********');
  assert.equal(viaHttp2!.request_headers['x-tenant-passphrase-bin'], '********');
  // A `-bin` name that holds no secret word stays readable.
  assert.equal(Buffer.from(viaGrpc!.request_headers['x-trace-bin']!, 'base64').toString(), 'readable-trace');

  const folder = path.join(app.dir, '.probe', 'captures');
  for (const file of readdirSync(folder)) {
    const text = readFileSync(path.join(folder, file), 'utf8');
    for (const encoded of BASE64) assert.ok(!text.includes(encoded), `${file} holds ${encoded}`);
  }
  const har = await app.cli(['export', '--har']);
  assert.equal(har.code, 0, har.stderr);
  assert.match(har.stdout, /x-session-token-bin/);
  for (const encoded of BASE64) assert.ok(!har.stdout.includes(encoded), `the HAR export holds ${encoded}`);
});
