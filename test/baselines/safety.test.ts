import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Capture } from '../../src/capture/types';
import { BaselineStore } from '../../src/baselines/BaselineStore';
import { TestApp } from '../helpers/app';
import { fixtureCaptures } from '../fixtures/captures/fixtures';
import { seedFileStore } from '../mcp/seed';

const capture = (id = 'cap_0000000001', name = 'GET /checkout') => ({ id, name, type: 'request', status: '200', sections: { http: [] } }) as unknown as Capture;

test('saved private, read back, listed, removed; names checked; the default name is the capture name as a slug', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-baselines-'));
  const store = new BaselineStore(root);
  store.save('checkout', capture());
  const file = path.join(root, '.probe', 'baselines', 'checkout.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal((await store.find('checkout'))?.capture.id, 'cap_0000000001');
  assert.deepEqual(
    (await store.list()).map((entry) => entry.name),
    ['checkout'],
  );
  assert.equal(BaselineStore.defaultName(capture()), 'GET-checkout');
  assert.throws(() => store.save('../x', capture()), /not valid/);
  assert.equal(await store.find('../x'), null);
  assert.equal(store.remove('checkout'), true);
  assert.equal(store.remove('checkout'), false);
  assert.deepEqual(readdirSync(path.dirname(file)), [], 'no temp file left behind');
});

test('no link is followed: a baselines folder leading outside .probe is refused, a link planted under a name is never read', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'probe-baselines-'));
  const outside = mkdtempSync(path.join(os.tmpdir(), 'probe-outside-'));
  mkdirSync(path.join(root, '.probe'));
  symlinkSync(outside, path.join(root, '.probe', 'baselines'));
  assert.throws(() => new BaselineStore(root).save('checkout', capture()), /outside/);
  assert.deepEqual(readdirSync(outside), []);

  const other = mkdtempSync(path.join(os.tmpdir(), 'probe-baselines-'));
  const store = new BaselineStore(other);
  store.save('real', capture());
  const secret = path.join(outside, 'secret.json');
  writeFileSync(secret, JSON.stringify({ name: 'planted', saved_at: 1, capture: capture('cap_0000000002') }));
  symlinkSync(secret, path.join(other, '.probe', 'baselines', 'planted.json'));
  assert.equal(await store.find('planted'), null);
  assert.deepEqual(
    (await store.list()).map((entry) => entry.name),
    ['real'],
  );
  assert.equal(store.remove('planted'), false);
  assert.ok(readFileSync(secret, 'utf8').includes('planted'), 'the link target is untouched');
});

test('probe baseline rm and list never go through a .probe/baselines that is a link: the folder it leads to keeps its files', async () => {
  const app = new TestApp();
  const outside = mkdtempSync(path.join(os.tmpdir(), 'probe-outside-'));
  writeFileSync(path.join(outside, 'settings.json'), '{"editor":"kept"}');
  writeFileSync(path.join(outside, 'package.json'), '{"name":"kept"}');
  writeFileSync(path.join(outside, 'planted.json'), JSON.stringify({ name: 'planted', saved_at: 1, capture: capture('cap_0000000002') }));
  mkdirSync(path.join(app.dir, '.probe'), { mode: 0o700 });
  symlinkSync(outside, path.join(app.dir, '.probe', 'baselines'));
  for (const name of ['settings', 'package', 'planted']) {
    const removed = await app.cli(['baseline', 'rm', name]);
    assert.equal(removed.code, 2, removed.stdout);
    assert.match(removed.stderr, /baselines is a link/);
  }
  assert.deepEqual(readdirSync(outside).sort(), ['package.json', 'planted.json', 'settings.json']);
  const listed = await app.cli(['baseline', 'list', '--json']);
  assert.equal(listed.code, 2);
  assert.doesNotMatch(listed.stdout, /planted/);
  const diffed = await app.cli(['diff', '--baseline', 'planted']);
  assert.notEqual(diffed.code, 0);
  assert.doesNotMatch(diffed.stdout, /cap_0000000002/);
});

test('a garbled baseline is a bad input: probe diff exits 2 in one line, never 1 ("different")', async () => {
  const app = new TestApp();
  const [order] = fixtureCaptures();
  await seedFileStore(app, [order!]);
  const saved = await app.cli(['baseline', 'save', order!.id, 'good']);
  assert.equal(saved.code, 0, saved.stderr);
  const same = await app.cli(['diff', '--baseline', 'good', order!.id]);
  assert.equal(same.code, 0, same.stderr);
  const folder = path.join(app.dir, '.probe', 'baselines');
  const whole = JSON.parse(readFileSync(path.join(folder, 'good.json'), 'utf8'));
  const garbled: Record<string, string> = {
    text: '{not json',
    cut: JSON.stringify({ ...whole, name: 'cut' }).slice(0, 200),
    nocapture: JSON.stringify({ name: 'nocapture', saved_at: 1 }),
    rows: JSON.stringify({ ...whole, name: 'rows', capture: { ...whole.capture, sections: { http: [null, 5] } } }),
    notrows: JSON.stringify({ ...whole, name: 'notrows', capture: { ...whole.capture, sections: { http: 'nope' } } }),
    notype: JSON.stringify({ ...whole, name: 'notype', capture: { ...whole.capture, type: undefined, status: undefined } }),
  };
  for (const [name, text] of Object.entries(garbled)) {
    writeFileSync(path.join(folder, `${name}.json`), text, { mode: 0o600 });
    const result = await app.cli(['diff', '--baseline', name, order!.id]);
    assert.equal(result.code, 2, `${name}: ${result.stdout}${result.stderr}`);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`baseline "${name}"`));
  }
});
