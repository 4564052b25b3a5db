import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Capture, HttpRow } from '../../../src/capture/types';

/**
 * The oracle: the app makes `new Error()` on the call's own line and prints its frame, `ORACLE <frame>`, as the
 * setup's own stack mapping formats it (the transformer's source-map-support, Node's `--enable-source-maps`, a
 * test runner's). Probe's origin must be that file and line: no expected line is typed by hand.
 */
export function oracleLines(output: string, root: string): string[] {
  const found: string[] = [];
  for (const match of output.matchAll(/ORACLE .*?\(?((?:file:\/\/|webpack:\/\/[^/]*\/)?[^\s()]+):(\d+):\d+\)?/g)) {
    // Node prints a webpack map's source as the map names it: webpack://<name>/./src/x.ts, from the project (an
    // eval-source-map module's with a `?hash` query).
    const file = path.resolve(
      root,
      match[1]!
        .replace(/^file:\/\//, '')
        .replace(/^webpack:\/\/[^/]*\//, '')
        .replace(/\?[^/]*$/, ''),
    );
    found.push(`${path.relative(fs.realpathSync(root), fs.realpathSync(file))}:${match[2]}`);
  }
  return found;
}

/** The http rows of every capture stored under `root`. */
export function capturedRows(root: string): HttpRow[] {
  const dir = path.join(root, '.probe', 'captures');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => (JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { capture: Capture }).capture.sections.http ?? []);
}

/** Each row to `pathname` has its origin at the oracle's line (and there is one, at least). */
export function assertOrigins(rows: HttpRow[], pathname: string, oracle: string, context: string): void {
  const matching = rows.filter((row) => new URL(row.url).pathname === pathname);
  assert.ok(matching.length > 0, `no row for ${pathname}: ${context}`);
  for (const row of matching) {
    const seen = row.origin ? `${row.origin.file}:${row.origin.line}` : 'null';
    assert.equal(seen, oracle, `origin of ${pathname}: ${context}`);
  }
}
