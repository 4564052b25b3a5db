// A gRPC call's row names its service and method by the protocol's own rule (content type and path), whatever
// client made it; every other row has no `grpc` field. The pure builder, with calls as the lenses hand them over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';
import { callInput, rowOf } from '../helpers/call-input';
import { tailText } from '../../src/query/tailLine';
import type { Capture } from '../../src/capture/types';

const config = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
const grpcCall = (url: string, type = 'application/grpc', trailers: Record<string, string> = { 'grpc-status': '0' }) =>
  callInput({ method: 'POST', url, requestHeaders: { 'content-type': type }, responseHeaders: { 'content-type': type }, responseTrailers: trailers });

test('a gRPC request names its service and method: each content type of the protocol, a nested package', () => {
  for (const type of ['application/grpc', 'application/grpc+proto', 'application/grpc+json', 'application/grpc-web+proto', 'application/grpc-web-text']) {
    assert.deepEqual(rowOf(grpcCall('http://127.0.0.1:50051/users.Users/GetUser', type), config).grpc, { service: 'users.Users', method: 'GetUser' }, type);
  }
  assert.deepEqual(rowOf(grpcCall('https://api.test/google.cloud.v1.Storage/ReadObject'), config).grpc, {
    service: 'google.cloud.v1.Storage',
    method: 'ReadObject',
  });
  assert.deepEqual(rowOf(grpcCall('http://127.0.0.1/Health/Check'), config).grpc, { service: 'Health', method: 'Check' });
});

test('no grpc field on a call that is not gRPC, or whose path names no method', () => {
  const cases = [
    callInput({ method: 'POST', url: 'http://api.test/users.Users/GetUser', requestHeaders: { 'content-type': 'application/json' } }),
    callInput({ method: 'POST', url: 'http://api.test/users.Users/GetUser' }),
    grpcCall('http://api.test/users.Users'),
    grpcCall('http://api.test/a/users.Users/GetUser'),
    grpcCall('http://api.test/users.Users/Get-User'),
    grpcCall('http://api.test/users..Users/GetUser'),
    grpcCall('http://api.test/users.Users/GetUser/'),
    grpcCall('http://api.test/%3Cscript%3E/GetUser'),
    grpcCall(`http://api.test/${'a'.repeat(101)}/GetUser`),
    callInput({ method: 'POST', url: 'http://api.test/users.Users/GetUser', requestHeaders: { 'content-type': 'application/grpcx' } }),
  ];
  for (const call of cases) assert.equal(rowOf(call, config).grpc, undefined, `${call.url} ${JSON.stringify(call.requestHeaders)}`);
});

test("probe tail's line states a gRPC row's status by number and name beside the HTTP one", () => {
  const row = rowOf(grpcCall('http://127.0.0.1:50051/users.Users/GetUser', 'application/grpc', { 'grpc-status': '5', 'grpc-message': 'no user' }), config);
  assert.deepEqual(row.grpc_status, { code: 5, name: 'NOT_FOUND', message: 'no user' });
  assert.equal(row.failed, true);
  const capture = { started_at: 0, name: 'job' } as Capture;
  assert.match(tailText(capture, row), / POST {2}200 gRPC 5 NOT_FOUND {2}/);
  assert.match(tailText(capture, rowOf(callInput(), config)), / GET {2}200 {2}/);
});
