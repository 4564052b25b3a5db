// One call as the pure builder takes it, and the row it builds: for tests of the builder and masking that need
// a single row without running an app.
import type { CallInput, UnitInput } from '../../src/builder/input';
import type { HttpRow } from '../../src/capture/types';
import type { ResolvedConfig } from '../../src/config/types';
import { buildCapture } from '../../src/builder/buildCapture';
import { readableCapture } from '../../src/capture/readableCapture';

export const T0 = 1_700_000_000_000;

/** A finished GET with a 200 and an empty body, with `over` on top. */
export function callInput(over: Partial<CallInput> = {}): CallInput {
  return {
    spanId: 'a1',
    parentSpanId: 'root1',
    method: 'GET',
    url: 'https://api.test/x',
    requestHeaders: {},
    requestBody: null,
    status: 200,
    responseHeaders: {},
    responseBody: { chunks: [], size: 0, truncated: false },
    clientDecodes: true,
    start: T0,
    end: T0 + 5,
    timing: null,
    error: null,
    pool: null,
    fake: false,
    origin: null,
    ...over,
  };
}

/** The unit of one command holding these calls. */
export function unitOf(calls: CallInput[]): UnitInput {
  return {
    id: 'cap_00000001',
    type: 'command',
    name: 'x',
    status: '0',
    parentId: null,
    traceId: 'f'.repeat(32),
    linkedVia: null,
    rootSpanId: 'root1',
    startedAt: T0,
    endedAt: T0 + 10,
    endedBy: 'return',
    label: null,
    tags: [],
    jobId: null,
    meta: { pid: 1, hostname: 'h', node: 'v', service: 's' },
    request: null,
    spans: [],
    calls,
    pools: [],
  };
}

/** The row the builder makes of one call under `config`, as readers get it (a JSON body stored once is given back as cards and raw). */
export function rowOf(call: CallInput, config: ResolvedConfig): HttpRow {
  return readableCapture(buildCapture(unitOf([call]), config)).sections.http![0]!;
}

/** The row as the builder stores it. */
export function storedRowOf(call: CallInput, config: ResolvedConfig): HttpRow {
  return buildCapture(unitOf([call]), config).sections.http![0]!;
}
