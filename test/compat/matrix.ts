import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ALL, type Cell } from './cells';
import { compare, describeRun, installCell } from './install';

/**
 * One suite per cell: install it (cached), then every run compares the app alone with the app beside Probe:
 * answers, propagation headers, exported spans, the app's OTel globals and stderr identical; each call one
 * complete row in the right capture; nothing recorded of the telemetry's own traffic.
 */
export function matrix(cells: Cell[]): void {
  // PROBE_COMPAT_ONLY=name,name: only these cells (a quicker run while working on one setup).
  const only = process.env.PROBE_COMPAT_ONLY?.split(',').filter(Boolean);
  for (const cell of cells.filter((c) => !only || only.some((name) => c.name.includes(name)))) {
    describe(`${cell.name}: ${cell.setup}`, { concurrency: 1 }, () => {
      let app = '';
      it('installs beside the packed Probe', { timeout: 600_000 }, async () => {
        app = await installCell(cell);
      });
      for (const run of cell.runs) {
        const expect = [...(run.expect ?? ALL), ...(run.mode === 'server' ? ['one-capture-per-request'] : [])];
        it(describeRun(run), { timeout: 240_000 }, async (t) => {
          if (!app) return t.skip('not installed');
          const outcome = await compare(app, run, expect);
          assert.ok(outcome.ok, outcome.output);
        });
      }
    });
  }
}
