import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ALL } from './cells';
import { compare, describeRun } from './install';
import { LAYOUTS, PROBE_API, apiVersions, layoutRuns } from './layouts';

/**
 * The app's own OpenTelemetry setup (NodeTracerProvider, W3C propagator, context manager, OTLP exporter to the
 * runner's sink) beside Probe installed as a linked checkout, globally (also beside an app on API 1.7), in npm
 * workspaces and with pnpm: its
 * provider, context manager and propagator stay global, its `traceparent` headers and exported spans are those of
 * the app alone, and Probe records every call (the packed install is the rest of the compat matrix).
 */
for (const layout of LAYOUTS) {
  describe(`install layout: ${layout.name}`, { concurrency: 1 }, () => {
    let installed = false;
    it('installs', { timeout: 1_200_000 }, async () => {
      await layout.install();
      installed = true;
    });
    const app = layout.cell.dependencies['@opentelemetry/api']!;
    it(layout.ownApi ? `Probe resolves its own @opentelemetry/api ${PROBE_API}, the app ${app}` : 'Probe shares the app’s @opentelemetry/api', async (t) => {
      if (!installed) return t.skip('not installed');
      // Without two copies the layout would not test what it is here for.
      assert.deepEqual(await apiVersions(layout), { app, probe: layout.ownApi ? PROBE_API : app });
    });
    for (const run of layoutRuns(layout)) {
      const expect = [...ALL, ...(run.mode === 'server' ? ['one-capture-per-request'] : [])];
      it(describeRun(run), { timeout: 240_000 }, async (t) => {
        if (!installed) return t.skip('not installed');
        const outcome = await compare(layout.app, run, expect);
        assert.ok(outcome.ok, outcome.output);
      });
    }
  });
}
