import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Capture, HttpRow } from '../../src/capture/types';
import { diffCaptures } from '../../src/diff/diffCaptures';
import { renderDiff } from '../../src/diff/diffText';

/** A gRPC call's row as the builder makes it: HTTP 200 whatever the call's outcome, the outcome in grpc_status. */
function grpcRow(code: number, name: string): HttpRow {
  return {
    method: 'POST',
    url: 'http://127.0.0.1:50051/users.Users/GetUser',
    host: '127.0.0.1:50051',
    endpoint: '/users.Users/GetUser',
    status: 200,
    duration: 3,
    time: 0,
    failed: code !== 0,
    request_headers: { 'content-type': 'application/grpc' },
    grpc: { service: 'users.Users', method: 'GetUser' },
    grpc_status: { code, name, message: code === 0 ? null : 'no user' },
  } as unknown as HttpRow;
}

function captureOf(id: string, row: HttpRow): Capture {
  return { id, type: 'command', name: 'client.js', status: '0', started_at: 0, duration: 5, sections: { http: [row] } } as unknown as Capture;
}

test('probe diff tells a gRPC call that went from OK to NOT_FOUND apart, though HTTP said 200 both times', () => {
  const result = diffCaptures(captureOf('0mbefore00000000a', grpcRow(0, 'OK')), captureOf('0mafter000000000b', grpcRow(5, 'NOT_FOUND')));
  assert.equal(result.same, false);
  assert.equal(result.changed.length, 1);
  assert.deepEqual(result.changed[0]!.grpc_status, { before: '0 OK', after: '5 NOT_FOUND' });
  assert.equal(result.changed[0]!.status, undefined);
  assert.match(renderDiff(result), /^ {4}gRPC status: 0 OK → 5 NOT_FOUND$/m);
  // The same outcome on both sides is no change.
  assert.equal(diffCaptures(captureOf('0mbefore00000000a', grpcRow(5, 'NOT_FOUND')), captureOf('0mafter000000000b', grpcRow(5, 'NOT_FOUND'))).same, true);
});
