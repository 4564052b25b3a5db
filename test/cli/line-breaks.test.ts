import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Capture } from '../../src/capture/types';
import { TestApp } from '../helpers/app';
import { IDS, fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from '../mcp/seed';

// A line break inside recorded or read text (a job name sent to the collector, a header, a hand-edited baseline)
// printed raw starts a line the reader takes for Probe's own. Every printed value escapes CR, LF and the other line
// separators (U+0085, U+2028, U+2029) whatever command prints it; --json keeps the exact value.

/** `\r\n` here: the other separators (U+0085, U+2028, U+2029, VT, FF) are escaped at the CLI's edge, see terminal-escapes. */
const BREAKS = ['\r\nFORGED', '\nFORGED'];
const FORGED_LINE = /(^|[\n\r\u0085\u2028\u2029\u000b\u000c])FORGED/;
const HOSTILE_ID = 'evilJob000000009';
/** Fields that keep their shape: ids, enums, numbers. Every other string of the capture carries line breaks. */
const KEPT = new Set(['id', 'type', 'method', 'capture', 'protocol', 'remote', 'kind', 'status']);

let turn = 0;
/** Every string of `value` (object keys included) with a line break added, but the fields in KEPT. */
function broken<T>(value: T, key = ''): T {
  if (typeof value === 'string') return (KEPT.has(key) ? value : value + BREAKS[turn++ % BREAKS.length]) as T;
  if (Array.isArray(value)) return value.map((each) => broken(each, key)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, each] of Object.entries(value)) {
      const headerLike = /headers$/.test(key);
      out[headerLike ? name + BREAKS[turn++ % BREAKS.length] : name] = broken(each, name);
    }
    return out as T;
  }
  return value;
}

function hostile(): Capture {
  turn = 0;
  const [, job] = fixtureCaptures();
  const capture = broken(structuredClone(job!));
  capture.id = HOSTILE_ID;
  capture.started_at += 60;
  capture.ended_at += 60;
  return capture;
}

describe('no recorded or read text starts a line of its own in what the CLI prints', () => {
  const app = new TestApp();
  before(async () => {
    await seedFileStore(app, [...fixtureCaptures(), hostile()]);
    const saved = await app.cli(['baseline', 'save', HOSTILE_ID, 'hostile']);
    assert.equal(saved.code, 0, saved.stderr);
    // A baseline edited by hand: its name in the file is checked, its capture's text is not.
    const edited = { name: 'edited', saved_at: 1, capture: { ...hostile(), name: 'edited\r\nFORGED', type: 'job\r\nFORGED' } };
    mkdirSync(path.join(app.dir, '.probe', 'baselines'), { recursive: true });
    writeFileSync(path.join(app.dir, '.probe', 'baselines', 'edited.json'), JSON.stringify(edited), { mode: 0o600 });
  });

  const commands: string[][] = [
    ['list'],
    ['list', '--group-by', 'route'],
    ['list', '--group-by', 'name'],
    ['show', HOSTILE_ID],
    ['show', HOSTILE_ID, '--section', 'http', '--row', '0'],
    ['rows', '--id', HOSTILE_ID],
    ['rows', '--id', HOSTILE_ID, '--fields', 'url,request_headers,response_headers,origin,exception'],
    ['rows', '--group-by', 'endpoint'],
    ['rows', '--group-by', 'host'],
    ['rows', '--group-by', 'endpoint', '--id', HOSTILE_ID],
    ['diff', HOSTILE_ID, IDS.sync],
    ['diff', '--name', 'no such name'],
    ['diff', '--name', 'Nightly*'],
    ['diff', '--baseline', 'hostile', HOSTILE_ID],
    ['diff', '--baseline', 'edited', HOSTILE_ID],
    ['diff', '--baseline', 'missing'],
    ['baseline', 'list'],
    ['tail', '--help'],
    ['export', HOSTILE_ID, '--har', '--out', 'hostile.har'],
    ['export', HOSTILE_ID, '--msw', '--out', 'hostile.mjs'],
    ['export', HOSTILE_ID, '--nock'],
  ];
  for (const args of commands) {
    test(`probe ${args.join(' ')}`, async () => {
      const result = await app.cli(args);
      assert.ok(result.code === 0 || result.code === 1 || result.code === 2, `exit ${result.code}: ${result.stderr}`);
      assert.doesNotMatch(result.stdout, FORGED_LINE, result.stdout);
      assert.doesNotMatch(result.stderr, FORGED_LINE, result.stderr);
      assert.doesNotMatch(result.stdout + result.stderr, /\r/);
    });
  }

  test('--json keeps the exact text', async () => {
    const list = JSON.parse((await app.cli(['list', '--json'])).stdout) as { captures: { id: string; name: string }[] };
    assert.equal(list.captures.find((row) => row.id === HOSTILE_ID)?.name, hostile().name);
  });
});
