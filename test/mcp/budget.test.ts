import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import { connectMcp, type McpSession } from '../helpers/mcp';
import { CHARS_PER_TOKEN, DEFAULT_MAX_TOKENS } from '../../src/query/budget';

// A real app that makes 1,000 calls in one command capture; every tool answer about it must fit the default
// budget and say what it left out and how to ask for it.
const APP = `
const UP = process.env.UP;
(async () => {
  for (let i = 0; i < 1000; i++) await fetch(UP + '/json?i=' + i).then((r) => r.json());
})();
`;

describe('token budget: a capture of 1,000 calls through the MCP client', () => {
  let upstream: Upstream;
  let app: TestApp;
  let mcp: McpSession;
  let id: string;
  before(async () => {
    upstream = await startUpstream();
    app = new TestApp({ 'app.js': APP });
    const run = await app.run('app.js', { env: { UP: upstream.url } });
    assert.equal(run.code, 0, run.stderr);
    const [capture] = app.captures();
    assert.equal(capture?.sections.http?.length, 1000);
    id = capture!.id;
    mcp = await connectMcp(app);
  });
  after(async () => {
    await mcp?.close();
    await upstream?.close();
  });

  const within = (text: string, tokens = DEFAULT_MAX_TOKENS) => assert.ok(text.length <= tokens * CHARS_PER_TOKEN, `${text.length} characters`);

  test('probe-rows with limit 500: cut to the budget, the cut named with the call that reads on', async () => {
    const result = await mcp.call('probe-rows', { id, limit: 500 });
    assert.equal(result.isError, undefined);
    within(result.text);
    const { rows, omitted, note, returned, matched } = result.json;
    assert.ok(rows.length > 0 && rows.length < 500);
    assert.equal(returned, rows.length);
    assert.equal(matched, 1000);
    assert.deepEqual(
      omitted.map((cut: any) => [cut.path, cut.kept, cut.kept + cut.left_out]),
      [['rows', rows.length, 500]],
    );
    assert.match(omitted[0].ask, new RegExp(`"field": "row", "op": ">=", "value": "${rows.length}"`));
    assert.match(note, /Cut to fit max_tokens 4000/);
    // Asking as told goes on where the answer stopped.
    const next = await mcp.call('probe-rows', { id, limit: 500, where: [{ field: 'row', op: '>=', value: String(rows.length) }] });
    within(next.text);
    assert.equal(next.json.rows[0].row, rows.length);
  });

  test('probe-show: summary and findings first, rows cut and named; a larger max_tokens gets more', async () => {
    const result = await mcp.call('probe-show', { id, limit: 100 });
    within(result.text);
    const { summary, findings, sections, omitted } = result.json;
    assert.equal(summary.totals.http_calls, 1000);
    assert.equal(findings[0].kind, 'n_plus_one');
    assert.deepEqual(findings[0].lines, ['app.js:4']);
    assert.equal(sections.http.shown, sections.http.rows.length);
    const cut = omitted.find((item: any) => item.path === 'sections.http.rows');
    assert.ok(cut, JSON.stringify(omitted));
    assert.equal(cut.kept, sections.http.rows.length);
    assert.equal(cut.kept + cut.left_out, 100);
    assert.match(cut.ask, /probe-rows/);
    const findingCut = omitted.find((item: any) => item.path === 'findings[0].rows');
    if (findingCut) assert.equal(findingCut.kept + findingCut.left_out, 1000, "a cut of the finding's row list is named too");
    const larger = await mcp.call('probe-show', { id, limit: 100, max_tokens: 40_000 });
    within(larger.text, 40_000);
    assert.ok(larger.json.sections.http.rows.length > sections.http.rows.length);
  });

  test('probe-list and a small answer are untouched; a bad max_tokens is a tool error naming the range', async () => {
    const listed = await mcp.call('probe-list', { has_findings: true });
    within(listed.text);
    assert.equal(listed.json.omitted, undefined);
    assert.deepEqual(
      listed.json.captures.map((row: any) => row.id),
      [id],
    );
    assert.ok(listed.json.captures[0].findings >= 1, 'the N+1 at least (slow calls depend on the machine)');
    const bad = await mcp.call('probe-show', { id, max_tokens: 10 });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /max_tokens must be at least 500/);
  });
});
