// Several services storing into one folder (one PROBE_ROOT): each capture names its service, `probe list --service`
// filters by it, and four processes writing at once under load lose nothing and leave every file whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Services, getJson } from './services';
import { whilePossible } from '../helpers/app';
import { startUpstream } from '../helpers/upstream';

const LIMIT = { timeout: 480_000 };
const PER_SERVICE = 40;
const NAMES = ['alpha', 'beta', 'gamma', 'delta'];

test('four services writing one folder store at once: every capture whole, named by its service, none lost', LIMIT, async (t) => {
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const services = new Services();
  const running = await Promise.all(NAMES.map((name) => services.start(name, { next: [`${upstream.url}/json`] })));
  const requests: Array<Promise<unknown>> = [];
  for (let i = 0; i < PER_SERVICE; i++) for (const service of running) requests.push(getJson(`${service.url}item/${i}`));
  await Promise.all(requests);
  const folder = path.join(services.root, '.probe', 'captures');
  const files = await whilePossible(
    () => {
      const names = readdirSync(folder).filter((name) => name.endsWith('.json'));
      return names.length >= NAMES.length * PER_SERVICE && names;
    },
    () => running.every((service) => service.child.exitCode === null),
    'every capture stored',
  );
  assert.equal(files.length, NAMES.length * PER_SERVICE);
  assert.deepEqual(
    readdirSync(folder).filter((name) => name.endsWith('.tmp')),
    [],
  );
  const byService = new Map<string, number>();
  for (const name of files) {
    // Whole JSON: a file interleaved by two writers would not parse.
    const { capture } = JSON.parse(readFileSync(path.join(folder, name), 'utf8')) as {
      capture: { service: string; meta: { service: string }; sections: { http: unknown[] } };
    };
    assert.equal(capture.service, capture.meta.service);
    assert.equal(capture.sections.http.length, 1);
    byService.set(capture.service, (byService.get(capture.service) ?? 0) + 1);
  }
  assert.deepEqual(Object.fromEntries(byService), Object.fromEntries(NAMES.map((name) => [name, PER_SERVICE])));

  const listed = await services.app.cli(['list', '--service', 'gamma', '--limit', '500', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  const rows = (JSON.parse(listed.stdout) as { captures: Array<{ service: string }> }).captures;
  assert.equal(rows.length, PER_SERVICE);
  assert.ok(rows.every((row) => row.service === 'gamma'));
  const text = await services.app.cli(['list', '--limit', '500']);
  assert.match(text.stdout.split('\n')[0]!, /\bSERVICE\b/);
  for (const name of NAMES) assert.match(text.stdout, new RegExp(`\\b${name}\\b`));
});

test('four services over the limit at once: readers see the limit, and the next put leaves exactly the limit, every kept file whole', LIMIT, async (t) => {
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const services = new Services();
  writeFileSync(path.join(services.root, 'probe.config.json'), JSON.stringify({ storage: { limit: 30 } }));
  const running = await Promise.all(NAMES.map((name) => services.start(name, { next: [`${upstream.url}/json`] })));
  await Promise.all(running.flatMap((service) => Array.from({ length: PER_SERVICE }, (_, i) => getJson(`${service.url}item/${i}`))));
  // Stopped at once: a put still on its way when the signal came may leave its file over the limit until the next
  // trim (the writer is gone before its trim's turn), but no reader ever sees more than the limit.
  for (const service of running) service.child.kill('SIGTERM');
  await Promise.all(
    running.map((service) => new Promise((resolve) => (service.child.exitCode !== null ? resolve(null) : service.child.once('exit', resolve)))),
  );
  const listed = await services.app.cli(['list', '--limit', '500', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal((JSON.parse(listed.stdout) as { captures: unknown[] }).captures.length, 30);
  // The next writer's put trims to exactly the limit, whatever the others left.
  const next = await services.start('epsilon', { next: [`${upstream.url}/json`] });
  await getJson(`${next.url}item/0`);
  const folder = path.join(services.root, '.probe', 'captures');
  const files = await whilePossible(
    () => {
      const names = readdirSync(folder).filter((name) => name.endsWith('.json'));
      return names.length === 30 && names.some((name) => readFileSync(path.join(folder, name), 'utf8').includes('"epsilon"')) && names;
    },
    () => next.child.exitCode === null,
    'the limit after the next put',
  );
  for (const name of files) JSON.parse(readFileSync(path.join(folder, name), 'utf8'));
});
