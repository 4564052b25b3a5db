import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskEventStream, parseEventStream } from '../../src/util/eventStream';
import { assembleStream } from '../../src/response/assembleStream';
import { EventStreamCapture } from '../../src/response/EventStreamCapture';
import * as probe from '../../src/index';
import { resolveConfig } from '../../src/config/resolve';
import { JsonCapture } from '../../src/response/JsonCapture';
import { callInput, rowOf } from '../helpers/call-input';
import type { ProbeConfig } from '../../src/config/types';

const masker = resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }).http!.masker;
const mask = (value: unknown) => masker.maskValue(value);

test('the event-stream grammar: CR, LF and CRLF line ends, a BOM, comments, one leading space, multi-line data, retry, id', () => {
  const text =
    '\uFEFFretry: 3000\rid: a\rdata:no-space\r\r: note\n\nevent: tick\r\ndata:  two spaces\r\ndata: second line\r\n\r\nid: bad\0id\ndata: x\n\nevent: empty\n\n';
  assert.deepEqual(parseEventStream(text, true), [
    { id: 'a', retry: 3000, data: 'no-space' },
    { event: 'tick', data: ' two spaces\nsecond line' },
    { data: 'x' },
  ]);
});

test('a complete body dispatches its last block without a blank line; a cut body drops its unfinished block and line', () => {
  assert.deepEqual(parseEventStream('data: 1\n\ndata: 2\n', true), [{ data: '1' }, { data: '2' }]);
  assert.deepEqual(parseEventStream('data: 1\n\ndata: 2\n', false), [{ data: '1' }]);
  assert.deepEqual(parseEventStream('data: 1\n\ndata: {"n":2', false), [{ data: '1' }]);
});

test('maskEventStream rewrites only JSON data whose masked value differs, keeping every other byte', () => {
  const plain = ': hi\r\nevent: a\r\ndata: {"n":1}\r\n\r\ndata: [DONE]\r\n\r\n';
  assert.equal(maskEventStream(plain, mask), plain);
  const secret = 'event: s\ndata: {"password":\ndata: "hunter2", "n": 1}\nid: 4\n\ndata: {"ok":true}\n\n';
  assert.equal(maskEventStream(secret, mask), 'event: s\ndata: {"password":"********","n":1}\nid: 4\n\ndata: {"ok":true}\n\n');
});

test('masker.body masks event-stream JSON data when no capture handles the stream (bodies on)', () => {
  const stream = 'data: {"client_secret":"cs_live_1","text":"hi"}\n\n';
  const call = callInput({
    url: 'https://api.test/stream',
    responseHeaders: { 'content-type': 'text/event-stream' },
    responseBody: { chunks: [Buffer.from(stream)], size: stream.length, truncated: false },
  });
  const file: ProbeConfig = { lenses: { HttpClientLens: { bodies: true, capture: { response_types: { 'application/json': JsonCapture } } } } };
  const row = rowOf(call, resolveConfig({ root: '/app', configFile: null, file, env: {} }));
  assert.equal(row.response_capture, null);
  assert.equal(row.response_body, 'data: {"client_secret":"********","text":"hi"}\n\n');
  const byDefault = rowOf(call, resolveConfig({ root: '/app', configFile: null, file: {}, env: {} }));
  assert.equal(byDefault.response_capture?.capture, 'EventStreamCapture', 'the default response_types map event streams');
  assert.deepEqual((byDefault.response_capture?.cards as { events: unknown[] }).events, [{ data: { client_secret: '********', text: 'hi' } }]);
});

test('OpenAI Responses API events assemble too; a stream of plain JSON events is neither style', () => {
  const events = [
    { type: 'response.created', response: { model: 'gpt-4.1', status: 'in_progress', usage: null } },
    { type: 'response.output_text.delta', delta: 'Hi' },
    { type: 'response.output_text.delta', delta: ' there' },
    { type: 'response.completed', response: { model: 'gpt-4.1', status: 'completed', usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } } },
  ];
  assert.deepEqual(assembleStream(events), {
    style: 'openai',
    model: 'gpt-4.1',
    text: 'Hi there',
    usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    stop_reason: 'completed',
  });
  assert.equal(assembleStream([{ n: 1 }, 'text']), null);
});

test('the probe module exports EventStreamCapture beside JsonCapture and GraphqlCapture', () => {
  assert.equal(probe.EventStreamCapture, EventStreamCapture);
  assert.equal(typeof probe.JsonCapture, 'function');
});

test('EventStreamCapture puts the summary before the events and marks a cut body', () => {
  const out = new EventStreamCapture().capture({
    request: { method: 'GET', url: 'u', headers: {}, payload: null },
    response: { status: 200, headers: {} },
    body: 'data: {"a":1}\n\ndata: {"a":',
    truncated: true,
    config: { masker },
  });
  assert.deepEqual(out.cards, { count: 1, truncated: true, events: [{ data: { a: 1 } }] });
  assert.deepEqual(Object.keys(out.cards as object), ['count', 'truncated', 'events']);
});
