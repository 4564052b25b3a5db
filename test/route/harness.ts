import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { cleanEnv, installApp } from '../compat/install';
import { runChild } from '../helpers/child';

const APPS = path.join(__dirname, 'apps');
const DEFAULT_ROUTE = '/api/users/:id';

/** One framework at pinned versions, run as a real child process under the preload. */
export interface RouteCell {
  name: string;
  dependencies: Record<string, string>;
  /** Pins of transitive packages (`router` under Express 5). */
  overrides?: Record<string, string>;
  /** The app file from test/route/apps/, and its arguments. */
  app: string;
  args?: string[];
  /** The app's own OTel setup (apps/otel.cjs), loaded before Probe and after it; its spans must not change. */
  otel?: boolean;
  /** The template the framework writes for the app's route, when not `/api/users/:id` (Hapi's `/api/users/{id}`). */
  route?: string;
  /** apps/ledger.cjs's name for the slots Probe wraps in this framework: listed while it runs, undone by shutdown(). */
  ledger?: string;
}

interface Run {
  stdout: string;
  stderr: string;
  spans?: unknown;
}

/** Installs each cell into the cache outside the repository, then checks the route of each capture. */
export function routeCells(cells: RouteCell[]): void {
  for (const cell of cells) {
    const ROUTE = cell.route ?? DEFAULT_ROUTE;
    test(`${cell.name}: the capture of /api/users/42 has route ${ROUTE}, a 404 has none, the app sees no difference`, async () => {
      const app = await installApp(`route-${cell.name}`, cell.dependencies, copyApps, cell.overrides);
      const esm = cell.app.endsWith('.mjs');
      const alone = await run(app, cell, []);
      const answers = JSON.parse(alone.stdout) as Array<{ path: string; status: number; body: string }>;
      assert.equal(answers[0]!.status, 200, alone.stdout);
      assert.match(answers[0]!.body, /42/);
      assert.equal(answers[1]!.status, 404);
      const orders = cell.otel ? ['after', 'before'] : ['only'];
      for (const order of orders) {
        const preload = esm ? ['--import', 'probe/register'] : ['--require', 'probe/register'];
        const withProbe = await run(app, cell, preload, order);
        assert.equal(withProbe.stdout, alone.stdout, 'the app answers as without Probe');
        assert.equal(withProbe.stderr, alone.stderr, 'nothing more on stderr');
        if (cell.otel) assert.deepEqual(withProbe.spans, alone.spans, `the app's spans are unchanged (Probe ${order})`);
        const requests = readCaptures(app).filter((entry) => entry.row.type === 'request');
        const found = requests.find((entry) => entry.row.name === 'GET /api/users/42');
        assert.ok(found, `a request capture for /api/users/42 (got ${requests.map((entry) => entry.row.name).join(', ')})`);
        assert.equal(found.row.route, ROUTE, 'index row route');
        assert.equal(found.capture.sections.request.route, ROUTE, 'request section route');
        const missing = requests.find((entry) => entry.row.name === 'GET /nope');
        assert.ok(missing, 'a request capture for the 404');
        assert.equal(missing.row.route, null);
        assert.equal(missing.capture.sections.request.route, null);
        assert.equal(missing.row.status, '404');
      }
      if (cell.ledger) {
        const result = await runChild(process.execPath, ['ledger.cjs', cell.ledger], { cwd: app, env: cleanEnv() });
        assert.equal(result.code, 0, result.stderr);
        const out = JSON.parse(result.stdout) as { wrapped: string[]; restored: string[]; listed: string[]; whys: string[]; left: number };
        assert.ok(
          out.wrapped.length > 0 && out.wrapped.length === out.listed.length,
          `wrapped ${JSON.stringify(out.wrapped)}, listed ${JSON.stringify(out.listed)}`,
        );
        assert.deepEqual(out.restored.sort(), out.wrapped.sort(), 'shutdown() gives back the framework its own functions');
        for (const why of out.whys) assert.match(why, /https:\/\/github\.com\//, 'each patch links the upstream code');
        assert.equal(out.left, 0);
      }
      if (cell.otel) {
        const server = (alone.spans as Array<{ kind: number; route: string | null }>).find((span) => span.kind === 1 && span.route);
        assert.equal(server?.route, ROUTE, "the app's own server span reports the same template");
      }
    });
  }
}

function copyApps(app: string): void {
  for (const file of fs.readdirSync(APPS)) fs.copyFileSync(path.join(APPS, file), path.join(app, file));
}

/** The app alone (`preload` empty) or under Probe; with `otel`, the app's setup first or after Probe. */
async function run(app: string, cell: RouteCell, preload: string[], order?: string): Promise<Run> {
  fs.rmSync(path.join(app, '.probe'), { recursive: true, force: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-route-'));
  const spansFile = path.join(work, 'spans.json');
  const own = cell.otel ? ['--require', './otel.cjs'] : [];
  const args = order === 'before' ? [...preload, ...own] : [...own, ...preload];
  const result = await runChild(process.execPath, [...args, cell.app, ...(cell.args ?? [])], { cwd: app, env: { ...cleanEnv(), ROUTE_SPANS: spansFile } });
  assert.equal(result.code, 0, `${cell.app} exited ${result.code}: ${result.stderr}`);
  const spans = cell.otel ? JSON.parse(fs.readFileSync(spansFile, 'utf8')) : undefined;
  fs.rmSync(work, { recursive: true, force: true });
  return { stdout: result.stdout, stderr: result.stderr, spans };
}

interface Stored {
  row: { type: string; name: string; route: string | null; status: string };
  capture: { sections: { request: { route: string | null } } };
}

function readCaptures(app: string): Stored[] {
  const dir = path.join(app, '.probe', 'captures');
  return fs.readdirSync(dir).map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Stored);
}
