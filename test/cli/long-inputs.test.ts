import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Capture } from '../../src/capture/types';
import { TestApp } from '../helpers/app';
import { fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from '../mcp/seed';

function longNamed(): Capture {
  const capture = structuredClone(fixtureCaptures()[0]!);
  capture.id = 'longName00000001';
  capture.name = `GET /${'a'.repeat(3000)}`;
  return capture;
}

describe('the CLI with pathological globs and long inputs', () => {
  const app = new TestApp();
  before(async () => {
    await seedFileStore(app, [...fixtureCaptures(), longNamed()]);
  });

  test('probe rows --name with many stars answers', async () => {
    const miss = await app.cli(['rows', '--since', '1d', '--name', '*a*a*a*b', '--json']);
    assert.equal(miss.code, 0, miss.stderr);
    assert.equal(JSON.parse(miss.stdout).returned, 0);
    const hit = await app.cli(['rows', '--since', '1d', '--name', 'get /*a*a*a*a', '--json', '--fields', 'url']);
    assert.equal(JSON.parse(hit.stdout).captures, 1);
  });

  test('a 100,000-character input is one short line naming it, exit 2', async () => {
    const long = 'a'.repeat(100_000);
    const cases: Array<[string[], RegExp]> = [
      [['rows', '--since', '1d', '--name', `*${long}`], /^probe rows: name is too long: 100001 characters, at most 1000 \("\*a+"… \(100001 characters\)\)$/],
      [['rows', '--where', `url contains ${long}`], /^probe rows: --where is too long/],
      [['rows', '--since', long], /^probe rows: since is too long/],
      [['show', long], /^probe show: id is too long/],
      [['list', '--route', long], /^probe list: route is too long/],
    ];
    for (const [args, line] of cases) {
      const result = await app.cli(args);
      assert.equal(result.code, 2, result.stderr.slice(0, 300));
      const text = result.stderr.trimEnd();
      assert.equal(text.split('\n').length, 1, text.slice(0, 300));
      assert.ok(text.length <= 200, `${text.length} characters: ${text.slice(0, 200)}`);
      assert.match(text, line);
      assert.doesNotMatch(text, /cannot read the store|could not read the store/);
    }
  });
});
