// Issue 29: a kept binary body is stored as base64 (`response_body_base64`, `response_body` null).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve';
import { isBinaryBody } from '../../src/builder/body';
import { clip, FIELD_LIMITS, ROW_LIMITS } from '../../src/query/clip';
import { callInput, rowOf, storedRowOf } from '../helpers/call-input';

const BODIES = resolveConfig({ root: '/app', configFile: null, file: { lenses: { HttpClientLens: { bodies: true } } }, env: {} });
const DEFAULTS = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} });
const response = (bytes: Buffer, type: string | null, cutAt?: number) =>
  callInput({
    responseHeaders: type ? { 'content-type': type } : {},
    responseBody: { chunks: [cutAt === undefined ? bytes : bytes.subarray(0, cutAt)], size: bytes.length, truncated: cutAt !== undefined },
  });

test('binary by media type, or by bytes that are not UTF-8; JSON, forms and event streams stay text', () => {
  const ascii = Buffer.from('GIF89a');
  for (const type of [
    'image/png',
    'image/gif; x=1',
    'application/octet-stream',
    'application/pdf',
    'application/x-protobuf',
    'application/grpc+proto',
    'audio/ogg',
    'font/woff2',
  ])
    assert.equal(isBinaryBody(type, ascii), true, type);
  for (const type of ['image/svg+xml', 'text/plain', 'text/html; charset=utf-8', 'application/xml', null])
    assert.equal(isBinaryBody(type, ascii), false, String(type));
  const latin1 = Buffer.from('caf\xe9 au lait', 'latin1');
  assert.equal(isBinaryBody('text/plain', latin1), true);
  assert.equal(isBinaryBody(null, latin1), true);
  assert.equal(isBinaryBody('application/json', latin1), false);
  assert.equal(isBinaryBody('text/event-stream', latin1), false);
  // A multi-byte character cut at the cap is still text.
  assert.equal(isBinaryBody('text/plain', Buffer.from('ok ✓').subarray(0, 4)), false);
});

test('a binary body is base64 with bodies on, its size and type only with bodies off', () => {
  const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255, 1]);
  const stored = storedRowOf(response(bytes, 'image/png'), BODIES);
  assert.equal(stored.response_body, null, 'stored once, as base64');
  assert.equal(stored.response_body_base64, bytes.toString('base64'));
  assert.equal(stored.response_bytes, 7);
  // Readers get the text as before (bytes as UTF-8), beside the base64.
  const row = rowOf(response(bytes, 'image/png'), BODIES);
  assert.equal(row.response_body, bytes.toString('utf8'));
  assert.equal(row.response_body_base64, bytes.toString('base64'));
  const off = rowOf(response(bytes, 'image/png'), DEFAULTS);
  assert.equal(off.response_body, null);
  assert.equal('response_body_base64' in off, false);
  const text = rowOf(response(Buffer.from('hello'), 'text/plain'), BODIES);
  assert.equal(text.response_body, 'hello');
  assert.equal('response_body_base64' in text, false);
});

test('a cut binary body keeps its start as base64 with truncated; secrets in the bytes are masked', () => {
  const bytes = Buffer.concat([Buffer.from([0, 255]), Buffer.from('xx')]);
  const cut = rowOf(response(bytes, 'application/octet-stream', 3), BODIES);
  assert.equal(cut.truncated, true);
  assert.deepEqual(Buffer.from(cut.response_body_base64!, 'base64'), bytes.subarray(0, 3));
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
  const proto = Buffer.concat([Buffer.from([0x0a, jwt.length]), Buffer.from(jwt), Buffer.from([0x10, 0xff])]);
  const masked = Buffer.from(rowOf(response(proto, 'application/x-protobuf'), BODIES).response_body_base64!, 'base64');
  assert.ok(!masked.includes(jwt));
  assert.ok(masked.includes('********'));
  assert.deepEqual([...masked.subarray(-2)], [0x10, 0xff]);
});

test('agents get a size marker for the base64 in rows, the text when they ask for the field', () => {
  const base64 = Buffer.alloc(3000, 1).toString('base64');
  assert.deepEqual(clip({ response_body_base64: base64 }, ROW_LIMITS), {
    response_body_base64: '[binary body: 3000 bytes as base64; `probe export` writes it whole]',
  });
  assert.equal(clip(base64, FIELD_LIMITS, 'response_body_base64'), base64);
});
