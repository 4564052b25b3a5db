import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChild } from '../helpers/child';
import { startStub, type Stub } from '../origin/stub';
import { frameAppCopy } from './install';
import { appEnv, assertOrigins, httpRows, oracles, originsOf, REGISTER } from './run';

let app: string;
let stub: Stub;
const LEARNED = 'learned-hops.json';

/** One run of a fixture under the preload, its captures cleared first (the learned list is kept unless `fresh`). */
async function run(script: string, fresh: boolean) {
  if (fresh) fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  else fs.rmSync(path.join(app, '.probe', 'captures'), { recursive: true, force: true });
  const result = await runChild(process.execPath, [script], { cwd: app, env: appEnv(`--require ${REGISTER}`, { API_URL: stub.url }) });
  assert.equal(result.code, 0, `the app failed:\n${result.stdout}\n${result.stderr}`);
  return { rows: httpRows(app), expected: oracles(result.stdout, app), stdout: result.stdout };
}

/** The packages the list holds, as `name@version`, ` (esm)` after those that ran as ES modules. */
function learnedList(): string[] {
  const file = path.join(app, '.probe', LEARNED);
  const info = fs.lstatSync(file);
  assert.ok(info.isFile());
  assert.equal(info.mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.join(app, '.probe')).mode & 0o777, 0o700);
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { packages: Array<{ name: string; version: string; esm: boolean }> }).packages.map(
    (p) => `${p.name}@${p.version}${p.esm ? ' (esm)' : ''}`,
  );
}

/** `name (esm)` as the list shows it, with the version the app's node_modules hold (a transitive one is not pinned). */
function installed(learned: string): string {
  const [name, esm] = learned.split(' ');
  const { version } = JSON.parse(fs.readFileSync(path.join(app, 'node_modules', name!, 'package.json'), 'utf8')) as { version: string };
  return `${name}@${version}${esm ? ` ${esm}` : ''}`;
}

const CASES = [
  // Apollo Server 4's RESTDataSource returns its promises un-awaited (a CommonJS package, loaded by an ESM app).
  { script: 'server.mjs', first: ['rest', '/users/7'], second: ['rest', '/users/8'], learns: ['@apollo/datasource-rest'] },
  // posthog-node sends from a .then() callback and an async flush nobody awaits (in @posthog/core): in no list of Probe's.
  {
    script: 'posthog.cjs',
    first: ['first', '/posthog-first/batch/'],
    second: ['second', '/posthog-second/batch/'],
    learns: ['@posthog/core', 'posthog-node'],
  },
  // The same, its ES module build imported: reached through its module namespace.
  {
    script: 'posthog.mjs',
    first: ['first', '/posthog-first/batch/'],
    second: ['second', '/posthog-second/batch/'],
    learns: ['@posthog/core (esm)', 'posthog-node (esm)'],
  },
  // Its ES module build again, from a CommonJS app through import(): the import loader is started for it.
  {
    script: 'posthog-import.cjs',
    first: ['first', '/posthog-first/batch/'],
    second: ['second', '/posthog-second/batch/'],
    learns: ['@posthog/core (esm)', 'posthog-node (esm)'],
  },
] as const;

describe('origin: libraries that hop, learned once and hooked at load in the next runs (real packages)', { timeout: 900_000 }, () => {
  before(async () => {
    // A copy of its own: the Apollo test of the same app may run at the same time, and clears its `.probe`.
    app = await frameAppCopy('apollo', 'learned');
    stub = await startStub();
  });
  after(async () => stub?.close());

  for (const { script, first, second, learns } of CASES) {
    it(`${script}: run 1's first hopped call is null and teaches the package; run 2's first call has the oracle's line`, async () => {
      const one = await run(script, true);
      assert.deepEqual(originsOf(one.rows, first[1]), ['null']);
      assertOrigins(one.rows, one.expected, { [second[0]]: second[1] });
      // The package that hopped, and the one whose class the same object ran (posthog-node's client over
      // @posthog/core's base class); not a dependency the library called (node-fetch under RESTDataSource).
      assert.deepEqual(learnedList().sort(), learns.map(installed));

      const two = await run(script, false);
      assert.deepEqual(originsOf(two.rows, first[1]), [two.expected.get(first[0])]);
      assertOrigins(two.rows, two.expected, { [second[0]]: second[1] });
      // The app saw nothing: the same output both times.
      assert.equal(two.stdout, one.stdout);
    });
  }

  it('a learned list that is a link, huge or garbled is ignored (the first call is null again) and never followed', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-learned-elsewhere-'));
    const valid = JSON.stringify({ packages: [{ name: 'posthog-node', version: '5.70.0', esm: false }] });
    const target = path.join(elsewhere, 'list.json');
    const hostile: Array<[string, () => void]> = [
      ['a link to a valid list', () => (fs.writeFileSync(target, valid), fs.symlinkSync(target, path.join(app, '.probe', LEARNED)))],
      ['a huge list', () => fs.writeFileSync(path.join(app, '.probe', LEARNED), valid.replace('{', `{"pad":"${'x'.repeat(64 * 1024)}",`), { mode: 0o600 })],
      ['garbage', () => fs.writeFileSync(path.join(app, '.probe', LEARNED), '\u0000{not json', { mode: 0o600 })],
      [
        'an entry that is no package name',
        () => fs.writeFileSync(path.join(app, '.probe', LEARNED), valid.replace('posthog-node', '../../x'), { mode: 0o600 }),
      ],
    ];
    try {
      for (const [what, plant] of hostile) {
        fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
        fs.mkdirSync(path.join(app, '.probe'), { mode: 0o700 });
        plant();
        const result = await run('posthog.cjs', false);
        assert.deepEqual(originsOf(result.rows, '/posthog-first/batch/'), ['null'], what);
        assertOrigins(result.rows, result.expected, { second: '/posthog-second/batch/' });
      }
      // The link's target was neither read into the run nor written: the list replaced the link itself.
      assert.equal(fs.readFileSync(target, 'utf8'), JSON.stringify({ packages: [{ name: 'posthog-node', version: '5.70.0', esm: false }] }));
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('a `.probe` that is a link is neither read nor written through', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-learned-elsewhere-'));
    try {
      fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
      fs.writeFileSync(path.join(elsewhere, LEARNED), JSON.stringify({ packages: [{ name: 'posthog-node', version: '5.70.0', esm: false }] }), { mode: 0o600 });
      fs.symlinkSync(elsewhere, path.join(app, '.probe'));
      const result = await runChild(process.execPath, ['posthog.cjs'], { cwd: app, env: appEnv(`--require ${REGISTER}`, { API_URL: stub.url }) });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(fs.readdirSync(elsewhere), [LEARNED]);
    } finally {
      fs.rmSync(path.join(app, '.probe'), { force: true });
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
