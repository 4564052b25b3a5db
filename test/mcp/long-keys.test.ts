import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Capture } from '../../src/capture/types';
import { TestApp } from '../helpers/app';
import { connectMcp, type McpSession } from '../helpers/mcp';
import { CHARS_PER_TOKEN, DEFAULT_MAX_TOKENS } from '../../src/query/budget';
import { fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from './seed';

// Keys are text an upstream chose too: a JSON answer whose 30 keys hold 20,000 characters each, 10,000 long header
// names. Every answer must still fit its max_tokens, whichever tool and limits an agent asks with.

const ID = 'longKeys00000001';
const HEADERS_ID = 'longHead00000002';

function longKeys(): Capture {
  const [order] = fixtureCaptures();
  const capture = structuredClone(order!);
  capture.id = ID;
  capture.started_at += 60;
  capture.ended_at += 60;
  const row = capture.sections.http![0]!;
  const cards: Record<string, number> = {};
  for (let i = 0; i < 30; i++) cards[`${i}`.padStart(3, '0') + 'k'.repeat(20_000)] = i;
  row.response_capture = { capture: 'JsonCapture', cards, raw: JSON.stringify(cards) } as never;
  return capture;
}

function longHeaderNames(): Capture {
  const [order] = fixtureCaptures();
  const capture = structuredClone(order!);
  capture.id = HEADERS_ID;
  capture.started_at += 61;
  capture.ended_at += 61;
  const headers: Record<string, string> = {};
  for (let i = 0; i < 10_000; i++) headers[`x-${i}-${'h'.repeat(400)}`] = 'v';
  capture.sections.http![0]!.request_headers = headers;
  return capture;
}

describe('the token budget holds with long keys, through the MCP client', () => {
  const app = new TestApp();
  let mcp: McpSession;
  before(async () => {
    await seedFileStore(app, [...fixtureCaptures(), longKeys(), longHeaderNames()]);
    mcp = await connectMcp(app);
  });
  after(async () => mcp?.close());

  const asks: [string, Record<string, unknown>][] = [
    ['probe-show', { id: ID }],
    ['probe-show', { id: ID, section: 'http', row: 0 }],
    ['probe-rows', { id: ID }],
    ['probe-rows', { id: ID, fields: ['response_capture'] }],
    ['probe-rows', { since: '1d' }],
    ['probe-show', { id: HEADERS_ID, section: 'http', row: 0 }],
    ['probe-rows', { id: HEADERS_ID, fields: ['request_headers'] }],
  ];
  for (const [tool, args] of asks) {
    for (const maxTokens of [undefined, 1000, 500]) {
      test(`${tool} ${JSON.stringify(args)}${maxTokens ? ` max_tokens ${maxTokens}` : ''}`, async () => {
        const result = await mcp.call(tool, maxTokens ? { ...args, max_tokens: maxTokens } : args);
        assert.equal(result.isError, undefined, result.text.slice(0, 500));
        const budget = (maxTokens ?? DEFAULT_MAX_TOKENS) * CHARS_PER_TOKEN;
        assert.ok(result.text.length <= budget, `${result.text.length} characters against ${budget}`);
        assert.match(result.text, /clipped|omitted/);
      });
    }
  }
});
