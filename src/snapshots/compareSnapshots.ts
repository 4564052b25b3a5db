import type { Capture, HttpRow } from '../capture/types';
import type { DiffResult } from '../diff/Diff';
import { diffCaptures } from '../diff/diffCaptures';
import type { SnapshotCall, TestSnapshot } from './Snapshot';

/** True when two snapshots of a test hold the same calls (code lines are shown, never compared). */
export function sameCalls(a: TestSnapshot, b: TestSnapshot): boolean {
  return callsText(a) === callsText(b);
}

function callsText(snapshot: TestSnapshot): string {
  return JSON.stringify(snapshot.calls.map(({ line: _line, ...call }) => call));
}

/**
 * What changed from a test's snapshot to its calls now, in `probe diff`'s terms: both sides are laid out as
 * captures whose rows hold the snapshot's values, and compared by the one differ (diff/diffCaptures.ts).
 */
export function compareSnapshots(name: string, before: TestSnapshot, after: TestSnapshot): DiffResult {
  // No duration is kept in a snapshot (each row's is null): none is compared, whatever the threshold.
  return diffCaptures(asCapture('snapshot', name, before), asCapture('run', name, after));
}

function asCapture(id: string, name: string, snapshot: TestSnapshot): Capture {
  return {
    schema_version: 1,
    id,
    type: 'test',
    name,
    status: '',
    label: null,
    tags: [],
    parent_id: null,
    trace_id: '',
    linked_via: null,
    started_at: 0,
    ended_at: 0,
    duration: 0,
    ended_by: 'return',
    job_id: null,
    meta: { pid: 0, hostname: '', node: '', service: '' },
    summary: { errors: [], warnings: [] },
    spans: [],
    sections: { http: snapshot.calls.map(asRow) },
  };
}

function asRow(call: SnapshotCall, index: number): HttpRow {
  const target = call.url.split('?')[0]!;
  const origin = lineParts(call.line);
  return {
    method: call.method,
    url: call.url,
    host: hostOf(target),
    endpoint: `${call.method} ${target}`,
    request_headers: call.request?.headers ?? {},
    request_bytes: 0,
    request_payload: (call.request?.body as HttpRow['request_payload'] | undefined) ?? null,
    request_body: null,
    status: call.status,
    response_headers: {},
    response_bytes: null,
    response_capture: call.response && 'body' in call.response ? { capture: 'snapshot', cards: call.response.body, raw: null } : null,
    response_body: null,
    duration: null,
    timing: null,
    failed: call.status === null || call.status >= 400,
    exception: call.failure !== undefined ? { class: call.failure, message: call.failure, code: null, file: call.line, previous: [] } : null,
    pool: null,
    fake: false,
    time: index,
    origin,
  };
}

function lineParts(line: string | null): HttpRow['origin'] {
  if (!line) return null;
  const colon = line.lastIndexOf(':');
  const number = Number(line.slice(colon + 1));
  return colon > 0 && Number.isInteger(number) ? { file: line.slice(0, colon), line: number, chain: [] } : { file: line, line: 0, chain: [] };
}

function hostOf(url: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/]*)/i.exec(url);
  return match ? match[1]! : '';
}
