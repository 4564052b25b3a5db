import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Capture } from '../../src/capture/types';
import { TestApp } from '../helpers/app';
import { connectMcp, type McpSession } from '../helpers/mcp';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from './seed';

// A capture named `GET /` + 3,000 `a`s made `*a*a*a*b` (a RegExp glob) run for minutes, and the server
// answered nothing else meanwhile; a 100,000-character input came back whole in the error.

const LONG_ID = 'longName00000001';

function longNamed(): Capture {
  const capture = structuredClone(fixtureCaptures()[0]!);
  capture.id = LONG_ID;
  capture.name = `GET /${'a'.repeat(3000)}`;
  return capture;
}

describe('probe mcp: globs and long inputs', () => {
  const app = new TestApp();
  let mcp: McpSession;
  before(async () => {
    await seedFileStore(app, [...fixtureCaptures(), longNamed()]);
    mcp = await connectMcp(app);
  });
  after(async () => {
    await mcp?.close();
  });

  test('probe-rows with a pathological name glob answers, and so does the next call', async () => {
    for (const name of ['*a*a*b', '*a*a*a*b', `*${'a*'.repeat(400)}b`]) {
      const rows = await mcp.call('probe-rows', { name, since: '1d' });
      assert.equal(rows.isError, undefined, rows.text);
      assert.equal(rows.json.returned, 0);
    }
    const hit = await mcp.call('probe-rows', { name: '*a*a*a*a', since: '1d', fields: ['url'] });
    assert.equal(hit.json.captures, 1);
    const list = await mcp.call('probe-list', {});
    assert.equal(list.isError, undefined, list.text);
    assert.ok(list.json.captures.some((row: { id: string }) => row.id === IDS.order));
  });

  test('a 100,000-character input is a short error naming it, not a store failure; the server keeps answering', async () => {
    const long = `*${'a'.repeat(99_999)}`;
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['probe-rows', { name: long }, /name/],
      ['probe-rows', { where: [{ field: 'url', op: 'contains', value: long }] }, /where value/],
      ['probe-rows', { id: long }, /id/],
      ['probe-show', { id: long }, /id/],
      ['probe-list', { since: long }, /since/],
    ];
    for (const [tool, args, names] of cases) {
      const result = await mcp.call(tool, args);
      assert.equal(result.isError, true, `${tool} ${Object.keys(args).join()}`);
      assert.match(result.text, names);
      assert.doesNotMatch(result.text, /could not read the store/);
      assert.ok(result.text.length < 500, `${tool}: ${result.text.length} characters: ${result.text.slice(0, 200)}`);
    }
    const show = await mcp.call('probe-show', { id: IDS.order, limit: 1 });
    assert.equal(show.isError, undefined, show.text);
  });
});
