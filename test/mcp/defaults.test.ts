import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Capture } from '../../src/capture/types';
import { REPO_ROOT, TestApp } from '../helpers/app';
import { startUpstream, type Upstream } from '../helpers/upstream';
import { connectMcp, type McpSession } from '../helpers/mcp';
import { seedFileStore } from './seed';

// The tools' defaults, through the real MCP client over stdio, on captures real scripts made under the preload:
// a sync that met a 503, a sync that went well, then an unrelated report (the newest capture). An agent that
// leaves out `id` must not conclude "nothing failed" nor read a diff of two unrelated units.
const SYNC = `const UP = process.env.UP;
(async () => {
  await fetch(UP + '/json').then((r) => r.json());
  if (process.env.FAIL) await fetch(UP + '/status/503').then((r) => r.json());
  await fetch(UP + '/json?page=2').then((r) => r.json());
})();
`;
const REPORT = `fetch(process.env.UP + '/json').then((r) => r.json());
`;

describe('agent tools: defaults that name what they did not read', () => {
  let upstream: Upstream;
  let app: TestApp;
  let mcp: McpSession;
  let failedSync: Capture;
  let goodSync: Capture;
  let report: Capture;

  before(async () => {
    upstream = await startUpstream();
    app = new TestApp({ 'sync.js': SYNC, 'report.js': REPORT });
    const env = { UP: upstream.url };
    for (const [script, extra] of [
      ['sync.js', { FAIL: '1' }],
      ['sync.js', {}],
      ['report.js', {}],
    ] as const) {
      const run = await app.run(script, { env: { ...env, ...extra } });
      assert.equal(run.code, 0, run.stderr);
    }
    [failedSync, goodSync, report] = app.captures() as [Capture, Capture, Capture];
    assert.deepEqual(
      [failedSync, goodSync, report].map((capture) => [capture.name, capture.sections.http!.filter((row) => row.failed).length]),
      [
        ['sync.js', 1],
        ['sync.js', 0],
        ['report.js', 0],
      ],
    );
    mcp = await connectMcp(app);
  });
  after(async () => {
    await mcp?.close();
    await upstream?.close();
  });

  test('probe-rows without id: its documented first example says the failed call it did not read, and how to read it', async () => {
    const where = [{ field: 'failed', op: '=', value: 'true' }];
    const fields = ['row', 'url', 'status', 'exception.message', 'origin.file', 'origin.line'];
    const newest = await mcp.call('probe-rows', { where, fields });
    assert.equal(newest.isError, undefined, newest.text);
    assert.equal(newest.json.id, report.id);
    assert.equal(newest.json.matched, 0);
    // The oracle: the same question over every capture.
    const every = await mcp.call('probe-rows', { id: '*', where, fields });
    assert.equal(every.json.matched, 1);
    assert.equal(every.json.rows[0].capture_id, failedSync.id);
    assert.deepEqual(newest.json.not_read, {
      captures: 2,
      matching_rows: every.json.matched,
      matching_captures: 1,
      widen: 'add "id": "*" to read every stored capture, or "since": "1h" for the last hour',
    });
    assert.match(newest.json.note, /^Read only the newest capture with http rows \(\S+\); 2 captures stored before it/);
    assert.match(newest.json.note, /1 row in 1 of the others does: add "id": "\*" to read them/);

    // Grouped, the same default and the same words.
    const grouped = await mcp.call('probe-rows', { where, group_by: 'endpoint' });
    assert.equal(grouped.json.group_count, 0);
    assert.equal(grouped.json.not_read.matching_rows, 1);

    // With rows matched, what was left out is still named; nothing is looked for in it.
    const any = await mcp.call('probe-rows', { fields: ['url'] });
    assert.equal(any.json.matched, 1);
    assert.deepEqual(any.json.not_read, { captures: 2, widen: newest.json.not_read.widen });

    // Reading every capture leaves nothing out: no not_read.
    assert.equal(every.json.not_read, undefined);
    assert.equal((await mcp.call('probe-rows', { since: '1h', fields: ['url'] })).json.not_read, undefined);

    // The shell command says it with its own flags.
    const cli = await app.cli(['rows', '--where', 'failed=true']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /0 of 0 matching http rows/);
    assert.match(cli.stdout, /give the id '\*' \(probe rows '\*'\) to read every stored capture, or --since 1h/);
    assert.match(cli.stdout, /1 row in 1 of the others does: give the id '\*' to read them/);
    const json = JSON.parse((await app.cli(['rows', '--where', 'failed=true', '--json'])).stdout);
    assert.deepEqual(json.not_read, newest.json.not_read);
  });

  test('probe-rows with since: the stored captures it left out as older are counted', async () => {
    const other = new TestApp();
    const old = { ...failedSync, id: 'olderrun0001', started_at: failedSync.started_at - 2 * 86_400, ended_at: failedSync.ended_at - 2 * 86_400 };
    await seedFileStore(other, [old, goodSync]);
    const session = await connectMcp(other);
    try {
      const recent = await session.call('probe-rows', { since: '1d', fields: ['url'] });
      assert.equal(recent.json.captures, 1);
      assert.deepEqual(recent.json.not_read, { captures: 1, widen: 'give a longer "since", or "id": "*" for every stored capture' });
      assert.match(recent.json.note, /^1 capture with http rows started before the last 1d was not read/);
    } finally {
      await session.close();
    }
  });

  test('baselines: listed by probe-list and probe baseline list --json alike; compare_to without id takes the baseline name', async () => {
    const none = await mcp.call('probe-list', { baselines: true, limit: 1 });
    assert.equal(none.isError, undefined, none.text);
    assert.deepEqual(none.json.baselines, []);
    assert.match(none.json.note, /No baseline is saved: in a shell, probe baseline save <id> \[name\] keeps one/);

    const saved = await app.cli(['baseline', 'save', failedSync.id, 'nightly-sync']);
    assert.equal(saved.code, 0, saved.stderr);
    const listed = await mcp.call('probe-list', { baselines: true, limit: 1 });
    const cliList = JSON.parse((await app.cli(['baseline', 'list', '--json'])).stdout);
    assert.deepEqual(listed.json.baselines, cliList.baselines);
    assert.deepEqual(
      listed.json.baselines.map((entry: { name: string; id: string; capture_name: string }) => [entry.name, entry.id, entry.capture_name]),
      [['nightly-sync', failedSync.id, 'sync.js']],
    );
    const table = await app.cli(['list', '--baselines']);
    assert.match(table.stdout, new RegExp(`^nightly-sync\\s+${failedSync.id}\\s+command\\s+3\\s+`, 'm'));
    // Without the input, no baselines in the answer.
    assert.equal((await mcp.call('probe-list', { limit: 1 })).json.baselines, undefined);

    // Without id: the newest capture named like the baseline, not the newest capture (an unrelated report).
    const shown = await mcp.call('probe-show', { compare_to: 'baseline:nightly-sync', limit: 0 });
    assert.equal(shown.isError, undefined, shown.text);
    assert.equal(shown.json.id, goodSync.id);
    assert.match(shown.json.note, /^Without id: the newest capture named "sync\.js", the name baseline nightly-sync was saved from\./);
    // The oracle: probe diff --baseline, which picks the other side the same way.
    const diff = JSON.parse((await app.cli(['diff', '--baseline', 'nightly-sync', '--json'])).stdout);
    assert.deepEqual(shown.json.compare, diff);
    assert.equal(shown.json.compare.after.id, goodSync.id);
    assert.equal(shown.json.compare.removed.length, 1);

    // A given capture of another name: one line, no diff.
    const refused = await mcp.call('probe-show', { id: report.id, compare_to: 'baseline:nightly-sync' });
    assert.equal(refused.isError, true);
    assert.equal(
      refused.text,
      `capture ${report.id} is "report.js" but baseline nightly-sync was saved from "sync.js": leave id out to compare the newest "sync.js", or give the id of one`,
    );
    const cli = await app.cli(['show', report.id, '--compare-to', 'baseline:nightly-sync']);
    assert.equal(cli.code, 2);
    assert.equal(cli.stderr.trim().split('\n').length, 1);
    // A capture of the same name is compared.
    const same = await mcp.call('probe-show', { id: failedSync.id, compare_to: 'baseline:nightly-sync', limit: 0 });
    assert.equal(same.json.compare.same, true);

    // An unknown name lists the saved ones.
    const unknown = await mcp.call('probe-show', { compare_to: 'baseline:nope' });
    assert.match(unknown.text, /no baseline named "nope". Valid values: nightly-sync/);
  });

  test('probe show: a cut section lists its failed rows first, and says so', async () => {
    const shown = await mcp.call('probe-show', { id: failedSync.id, limit: 1 });
    const http = shown.json.sections.http;
    assert.equal(http.total, 3);
    assert.equal(http.failed, 1);
    assert.deepEqual(
      http.rows.map((row: { row: number; status: number }) => [row.row, row.status]),
      [[1, 503]],
    );
    assert.match(shown.json.note, /Cut to limit 1, failed rows first: http \(1 failed\)\./);
    // Uncut, rows keep their order.
    const whole = await mcp.call('probe-show', { id: failedSync.id, limit: 3 });
    assert.deepEqual(
      whole.json.sections.http.rows.map((row: { row: number }) => row.row),
      [0, 1, 2],
    );
    const text = await app.cli(['show', failedSync.id, '--limit', '1']);
    assert.match(text.stdout, /^http: 3 rows, 1 shown: the 1 failed first$/m);
    assert.match(text.stdout, /^ {2}1\s+GET\s+503\b/m);
  });

  test("docs/mcp.md documents every input of every tool, in that tool's row", async () => {
    const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'mcp.md'), 'utf8');
    const { tools } = await mcp.client.listTools();
    assert.equal(tools.length, 3);
    for (const tool of tools) {
      const row = docs.split('\n').find((line) => line.startsWith(`| \`${tool.name}\``));
      assert.ok(row, `docs/mcp.md has a row for ${tool.name}`);
      const missing = Object.keys(tool.inputSchema.properties ?? {}).filter((input) => !row.includes(`\`${input}\``));
      assert.deepEqual(missing, [], `${tool.name} inputs missing from docs/mcp.md`);
    }
  });
});
