import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CollectorServer } from '../../src/collector/CollectorServer';
import { openStore } from '../../src/store/openStore';
import { createLogger } from '../../src/util/logger';
import { TestApp, eventually } from '../helpers/app';
import { exportRequest, span } from './otlpFixtures';

function serverTrace(traceId: string, method: string, path: string): Record<string, unknown> {
  return exportRequest([
    span({ spanId: traceId.slice(0, 16), traceId, kind: 2, start: 0, end: 5, attributes: { 'http.request.method': method, 'url.path': path } }),
  ]);
}

// A global RegExp keeps lastIndex between tests: without a reset the second health check would be recorded.
test('the collector drops every capture an except RegExp matches, a global one too', async () => {
  const app = new TestApp({ 'probe.config.mjs': 'export default { except: [/^GET \\/health$/g] };\n' }, 'collector-except');
  const { config, store } = openStore({ cwd: app.dir, env: {}, logger: createLogger(() => undefined) });
  const server = new CollectorServer({
    store,
    config,
    logger: createLogger(() => undefined),
    maxBodyBytes: 64 * 1024,
    sweepMs: 20,
    assembler: { settleMs: 50, commandIdleMs: 100 },
  });
  try {
    const url = `${await server.listen(0, '127.0.0.1')}/v1/traces`;
    const post = (body: unknown) => fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    for (const traceId of ['a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1', 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2', 'c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3']) {
      assert.equal((await post(serverTrace(traceId, 'GET', '/health'))).status, 200);
    }
    // A later capture that is kept: once it is stored, the health checks before it were grouped and judged.
    assert.equal((await post(serverTrace('d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4', 'GET', '/orders'))).status, 200);
    await eventually(async () => (await store.index()).some((row) => row.name === 'GET /orders'));
    await eventually(async () => server.stats.excluded === 3);
    assert.deepEqual(
      (await store.index()).map((row) => row.name),
      ['GET /orders'],
    );
  } finally {
    await server.close();
    await store.close?.();
  }
});
