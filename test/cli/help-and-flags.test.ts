import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestApp } from '../helpers/app';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from '../mcp/seed';

const COMMANDS = ['install', 'list', 'show', 'rows', 'clear', 'dashboard', 'mcp', 'collect'];

describe('probe --help and every command --help, as real child processes', () => {
  // A broken config: help must not need the config or the store.
  const app = new TestApp({ 'probe.config.json': JSON.stringify({ storage: { driver: 'nope' } }) });

  test('probe --help lists every command and how to get its help, exit 0', async () => {
    const result = await app.cli(['--help']);
    assert.equal(result.code, 0, result.stderr);
    for (const name of COMMANDS) assert.match(result.stdout, new RegExp(`^  ${name}\\s+\\S`, 'm'), name);
    assert.match(result.stdout, /probe <command> --help/);
  });

  test('each command answers --help (and -h, and probe help <command>) with usage, options and an example', async () => {
    for (const name of COMMANDS) {
      for (const args of [
        [name, '--help'],
        [name, '-h'],
        ['help', name],
      ]) {
        const result = await app.cli(args);
        assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
        assert.equal(result.stderr, '', args.join(' '));
        assert.match(result.stdout, new RegExp(`^usage: probe ${name}`), args.join(' '));
        assert.match(result.stdout, /\nexamples?:\n  probe /, args.join(' '));
      }
    }
    // Every option of the agent tools has its flag, listed in the command's help.
    const flags: Record<string, string[]> = {
      rows: ['--section', '--where', '--sort', '--dir', '--limit', '--fields', '--id', '--since', '--type', '--name', '--json'],
      list: ['--has', '--has-errors', '--since', '--type', '--limit', '--findings', '--baselines', '--json'],
      show: ['--id', '--sections', '--limit', '--section', '--row', '--compare-to', '--json'],
    };
    for (const [name, list] of Object.entries(flags)) {
      const help = (await app.cli([name, '--help'])).stdout;
      assert.match(help, /\noptions:\n/);
      for (const flag of list) assert.match(help, new RegExp(`^  ${flag}\\b`, 'm'), `${name} ${flag}`);
    }
  });
});

describe('probe rows / show: positional id, across captures, one row whole', () => {
  const app = new TestApp();
  before(async () => {
    await seedFileStore(app, fixtureCaptures());
  });

  test('probe rows <id> reads that capture, like probe show <id>; a section name still works as positional', async () => {
    const byId = await app.cli(['rows', IDS.order]);
    assert.equal(byId.code, 0, byId.stderr);
    assert.match(byId.stdout, new RegExp(`^capture ${IDS.order}  request  GET /orders/42`));
    assert.match(byId.stdout, /^2\s+GET\s+-\s+4ms\s+http:\/\/inventory\.example\.test:8080\/stock/m);
    const both = JSON.parse((await app.cli(['rows', IDS.order, 'request', '--json'])).stdout);
    assert.equal(both.id, IDS.order);
    assert.equal(both.section, 'request');
    const legacy = JSON.parse((await app.cli(['rows', 'http', '--id', IDS.order, '--json', '--fields', 'status'])).stdout);
    assert.deepEqual(legacy.rows, [{ status: 200 }, { status: 502 }, { status: null }]);
    const unknown = await app.cli(['rows', 'not-an-id-at-all']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^probe rows: no capture with id "not-an-id-at-all".*Valid values: fixCmd0000000003, fixJob0000000002, fixReq0000000001\n$/);
  });

  test('--since, * , --type, --name: rows of many captures, newest first, each naming its capture', async () => {
    const table = await app.cli(['rows', '--since', '1d', '--where', 'status>=200', '--fields', 'status']);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.split('\n');
    assert.match(lines[0]!, /^CAPTURE\s+NAME\s+ROW\s+STATUS$/);
    assert.match(lines[1]!, new RegExp(`^${IDS.sync}\\s+sync-users\\s+0\\s+200$`));
    assert.match(lines[3]!, new RegExp(`^${IDS.order}\\s+GET /orders/42\\s+0\\s+200$`));
    assert.match(table.stdout, /4 of 4 matching http rows \(5 in 2 captures, newest first\)/);
    const json = JSON.parse(
      (
        await app.cli([
          'rows',
          '*',
          '--type',
          'request',
          '--name',
          'get /orders/*',
          '--sort',
          'duration',
          '--dir',
          'desc',
          '--limit',
          '1',
          '--fields',
          'url',
          '--json',
        ])
      ).stdout,
    );
    assert.deepEqual(json.rows, [{ capture_id: IDS.order, capture_name: 'GET /orders/42', url: 'https://payments.example.test/charge' }]);
    const bad = await app.cli(['rows', '--since', 'yesterday']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^probe rows: since "yesterday" is not a duration.*Valid values: 30s, 15m, 2h, 1d\n$/);
  });

  test('probe show <id> --row N: the row whole, the number probe rows shows', async () => {
    const row = await app.cli(['show', IDS.order, '--row', '1']);
    assert.equal(row.code, 0, row.stderr);
    assert.match(row.stdout, /^http row 1 of 3 \(numbered from 0\)$/m);
    assert.match(row.stdout, /"url": "https:\/\/payments\.example\.test\/charge"/);
    const json = JSON.parse((await app.cli(['show', '--id', IDS.order, '--section', 'request', '--row', '0', '--json'])).stdout);
    assert.equal(json.data.route, '/orders/:id');
    const past = await app.cli(['show', IDS.order, '--row', '3']);
    assert.equal(past.code, 2);
    assert.match(past.stderr, /^probe show: row 3 is not in section http of capture fixReq0000000001: rows are numbered 0 to 2\n$/);
    const notNumber = await app.cli(['show', IDS.order, '--row', 'two']);
    assert.equal(notNumber.code, 2);
    assert.match(notNumber.stderr, /--row must be a row number/);
  });
});
