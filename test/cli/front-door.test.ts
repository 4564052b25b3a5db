import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { TestApp } from '../helpers/app';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from '../mcp/seed';
import { exitStatusText } from '../../src/query/exitStatus';

const ROOT = path.resolve(__dirname, '..', '..');

describe('the CLI a newcomer meets: version, bad input, units, exit codes, hints', () => {
  const app = new TestApp();
  before(async () => {
    const captures = fixtureCaptures();
    // A command ended by SIGTERM: the shell's 128 + 15.
    const command = captures.find((capture) => capture.type === 'command')!;
    command.status = '143';
    await seedFileStore(app, captures);
  });

  test('probe --version (and -v) prints the package version, exit 0', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const result = await app.cli([flag]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), version);
    }
  });

  test('an unknown command or a bad flag: one line with a hint, exit 2', async () => {
    for (const [args, hint] of [
      [['frobnicate'], /probe --help lists the commands/],
      [['lsit'], /did you mean list\?/],
      [['list', '--bogus'], /probe list --help lists its options/],
    ] as const) {
      const result = await app.cli([...args]);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stdout, '');
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, hint);
    }
  });

  test('every duration has its unit; a command capture reads as an exit code with its signal', async () => {
    const rows = await app.cli(['rows', IDS.order, '--fields', 'url,duration,timing.wait']);
    assert.equal(rows.code, 0, rows.stderr);
    for (const line of rows.stdout.split('\n').filter((text) => /^\d+ /.test(text) && !/matching/.test(text))) assert.match(line, /\d+(\.\d+)?ms\b/, line);
    assert.doesNotMatch(rows.stdout, /\s\d+\.\d+\s/, 'no bare number of milliseconds');
    const list = await app.cli(['list']);
    assert.match(list.stdout, /command\s+exit 143 \(SIGTERM\)/);
    const show = await app.cli(['show', IDS.seed]);
    assert.match(show.stdout, /command {2}.* {2}exit 143 \(SIGTERM\) {2}/);
    assert.equal(exitStatusText('1'), 'exit 1');
    assert.equal(exitStatusText('130'), 'exit 130 (SIGINT)');
    assert.equal(exitStatusText('running'), 'running');
  });

  test('hints name CLI commands, not the agent tools', async () => {
    const rows = await app.cli(['rows', IDS.order]);
    const show = await app.cli(['show', IDS.order, '--limit', '1']);
    for (const out of [rows.stdout, show.stdout]) assert.doesNotMatch(out, /probe-(show|rows|list)/, out);
  });
});
