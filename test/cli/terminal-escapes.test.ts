import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Capture } from '../../src/capture/types';
import { terminalText } from '../../src/util/terminalText';
import { TestApp } from '../helpers/app';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from '../mcp/seed';

// Captured text is written by whoever the app talked to (or whatever sent spans to `probe collect`): shown
// raw, it could clear the screen, move the cursor, retitle the window, hide a link behind OSC 8 text or
// overwrite a line with \r. Every human-readable line escapes it; --json keeps the exact value.

const CLEAR = '\u001b[2J\u001b[H';
const LINK = '\u001b]8;;https://evil.test/\u0007click me\u001b]8;;\u0007';
const NAME = `GET /orders${CLEAR}\r\u0007ok\nfake line\u009b31m\u202e\u200e\u200f\u061c\ufeff`;
const URL_TEXT = `https://api.example.test/${LINK}?q=\r\u001b[1A`;
const HEADER = `x${CLEAR}\u0007`;
const ROUTE = `/orders/${CLEAR}:id`;
const EVIL_ID = 'evilReq000000001';

/** Raw control characters other than the newlines between lines; DEL and C1 too. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

function hostile(): Capture {
  const [order] = fixtureCaptures();
  const capture = structuredClone(order!);
  capture.id = EVIL_ID;
  capture.name = NAME;
  capture.label = `label${CLEAR}`;
  capture.tags = [`tag\u0007`];
  capture.started_at += 60;
  capture.ended_at += 60;
  const request = capture.sections.request!;
  request.route = ROUTE;
  request.path = `/orders${CLEAR}`;
  const row = capture.sections.http![0]!;
  row.url = URL_TEXT;
  row.request_headers = { 'x-evil': HEADER, [`x-name${CLEAR}`]: 'v' };
  capture.summary.errors = [`HTTP call failed: GET ${URL_TEXT} (500)`];
  return capture;
}

describe('terminalText', () => {
  test('escapes C0, DEL, C1, separators and bidi controls; keeps what it is told', () => {
    assert.equal(terminalText('a\u001b[2Jb\r\u0007\t'), 'a\\x1b[2Jb\\x0d\\x07\\x09');
    assert.equal(terminalText('\u007f\u009b\u2028\u202e'), '\\u007f\\u009b\\u2028\\u202e');
    assert.equal(terminalText('a\u200eb\u200fc\u061cd\ufeff'), 'a\\u200eb\\u200fc\\u061cd\\ufeff');
    assert.equal(terminalText('one\ntwo\u001b', '\n'), 'one\ntwo\\x1b');
    assert.equal(terminalText('plain café ✓'), 'plain café ✓');
    const json = JSON.stringify({ text: 'a\u001b\u009b\u007f\u2028\n' });
    assert.deepEqual(JSON.parse(terminalText(json, '\n')), { text: 'a\u001b\u009b\u007f\u2028\n' });
  });
});

describe('the CLI escapes captured text in every human-readable output', () => {
  const app = new TestApp();
  before(async () => {
    await seedFileStore(app, [...fixtureCaptures(), hostile()]);
  });

  const commands: string[][] = [
    ['list'],
    ['list', '--group-by', 'route'],
    ['show'],
    ['show', EVIL_ID],
    ['show', EVIL_ID, '--section', 'http', '--row', '0'],
    ['show', EVIL_ID, '--section', 'request', '--row', '0'],
    ['rows', '--id', EVIL_ID],
    ['rows', '--id', EVIL_ID, '--fields', 'url,request_headers'],
    ['rows', 'request', '--id', EVIL_ID],
    ['rows', '--since', '1d', '--name', 'GET /orders*'],
    ['rows', '--id', IDS.order, '--where', `url contains ${CLEAR}`],
    ['export', EVIL_ID, '--har', '--out', 'evil.har'],
    ['export', EVIL_ID, '--msw', '--out', 'evil.mjs'],
    ['export', EVIL_ID, '--nock'],
  ];
  for (const args of commands) {
    test(`probe ${args.join(' ')}`, async () => {
      const result = await app.cli(args);
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stdout, RAW_CONTROL, result.stdout);
      assert.doesNotMatch(result.stderr, RAW_CONTROL, result.stderr);
    });
  }

  test('the escapes are visible, and a newline in a name does not start a line of its own', async () => {
    const shown = await app.cli(['show', EVIL_ID]);
    assert.match(shown.stdout, /GET \/orders\\x1b\[2J\\x1b\[H\\x0d\\x07ok\\x0afake line\\u009b31m\\u202e/);
    assert.doesNotMatch(shown.stdout, /^fake line/m);
    for (const flag of ['--har', '--msw', '--undici-snapshot']) {
      const exported = await app.cli(['export', EVIL_ID, flag, '--out', `named${flag}`]);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stderr, /ok\\x0afake line\\u009b31m\\u202e\\u200e\\u200f\\u061c\\ufeff/, exported.stderr);
      assert.doesNotMatch(exported.stderr, /^fake line/m, `${flag}: the summary is one line`);
    }
    const grouped = await app.cli(['list', '--group-by', 'route']);
    assert.match(grouped.stdout, /\/orders\/\\x1b\[2J\\x1b\[H:id/);
  });

  test('--json keeps the exact text', async () => {
    const list = JSON.parse((await app.cli(['list', '--json'])).stdout);
    assert.equal(list.captures.find((row: { id: string }) => row.id === EVIL_ID).name, NAME);
    const rows = await app.cli(['rows', '--id', EVIL_ID, '--json', '--fields', 'url,request_headers']);
    assert.doesNotMatch(rows.stdout, RAW_CONTROL);
    const parsed = JSON.parse(rows.stdout);
    assert.equal(parsed.rows[0].url, URL_TEXT);
    assert.deepEqual(parsed.rows[0].request_headers, { 'x-evil': HEADER, [`x-name${CLEAR}`]: 'v' });
    assert.equal(parsed.capture.name, NAME);
  });
});
