import type { Capture, HttpRow } from '../capture/types';
import type { HostCall, SnapshotCall, SnapshotOptions, TestSnapshot } from './Snapshot';
import { parseIgnorePath, withoutPaths, type PathStep } from '../util/ignorePaths';
import { shapeOf, stableText, stableValue } from './stableValues';
import { hostAllowed } from './allowedHosts';

/**
 * A test capture's calls as its snapshot keeps them, in the order they started (docs/snapshots.md), and the calls
 * it made to hosts outside `hosts`. Pure: the same capture gives the same snapshot, byte for byte once written.
 */
export function snapshotOfCapture(capture: Capture, options: SnapshotOptions, hosts: readonly string[]): { snapshot: TestSnapshot; outside: HostCall[] } {
  const rows = Array.isArray(capture.sections?.http) ? capture.sections.http : [];
  const order = rows.map((_, index) => index).sort((x, y) => rows[x]!.time - rows[y]!.time || x - y);
  const paths = options.ignore.map(parseIgnorePath).filter((path): path is PathStep[] => path !== null);
  const ignoredHeaders = new Set(options.ignore.filter((entry) => !entry.startsWith('$')).map((name) => name.toLowerCase()));
  const headers = options.headers.filter((name) => !ignoredHeaders.has(name));
  const outside: HostCall[] = [];
  const testFile = typeof capture.meta?.test_file === 'string' ? capture.meta.test_file : null;
  const calls = order.map((index) => {
    const row = rows[index]!;
    const call = snapshotCall(row, headers, paths, options.bodies, testFile);
    // A faked answer (nock, MockAgent, msw) reaches no host: only real calls are held to the list.
    if (!row.fake && !hostAllowed(hostnameOf(row), hosts)) outside.push({ url: row.url, line: call.line });
    return call;
  });
  return { snapshot: { calls }, outside };
}

function snapshotCall(
  row: HttpRow,
  headers: readonly string[],
  paths: readonly PathStep[][],
  bodies: SnapshotOptions['bodies'],
  testFile: string | null,
): SnapshotCall {
  const body = (value: unknown) => {
    const kept = stableValue(withoutPaths(value, paths));
    return bodies === 'shapes' ? shapeOf(kept) : kept;
  };
  const call: SnapshotCall = {
    method: row.method,
    url: snapshotUrl(row),
    status: row.status,
    line: lineOf(row, testFile),
  };
  if (row.status === null) call.failure = failureOf(row);
  const sent: Record<string, string> = {};
  for (const name of headers) {
    const value = row.request_headers?.[name];
    if (typeof value === 'string') sent[name] = stableText(value);
  }
  const request: NonNullable<SnapshotCall['request']> = {};
  if (Object.keys(sent).length) request.headers = sent;
  if (row.request_payload !== null && row.request_payload !== undefined) request.body = body(row.request_payload);
  if (Object.keys(request).length) call.request = request;
  const cards = row.response_capture?.cards;
  if (cards !== undefined && cards !== null) call.response = { body: body(cards) };
  return call;
}

const FRAME = /^(.+?):(\d+)(?:\s|$)/;

/**
 * The code line a reader of the test looks for: the test file's own frame in the call's chain (a test calls
 * through a helper: the helper's line is the same for every call), else the line that made the call.
 */
function lineOf(row: HttpRow, testFile: string | null): string | null {
  if (!row.origin) return null;
  if (testFile && row.origin.file !== testFile) {
    for (const frame of row.origin.chain ?? []) {
      const match = FRAME.exec(frame);
      if (match && match[1] === testFile) return `${match[1]}:${match[2]}`;
    }
  }
  return `${row.origin.file}:${row.origin.line}`;
}

/** The endpoint's URL (ids folded) with the row's query, its parameters sorted, and a loopback port as `{port}`. */
function snapshotUrl(row: HttpRow): string {
  const space = row.endpoint.indexOf(' ');
  const target = space >= 0 ? row.endpoint.slice(space + 1) : row.endpoint;
  let query = '';
  const mark = row.url.indexOf('?');
  if (mark >= 0) {
    const params = [...new URLSearchParams(row.url.slice(mark + 1).split('#')[0]).entries()];
    params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (params.length) query = `?${params.map(([key, value]) => `${queryPart(key)}=${queryPart(stableText(value))}`).join('&')}`;
  }
  return stableText(target) + query;
}

/** Encoded as a URL's query is, the fixed words (`{datetime}`) left readable. */
function queryPart(text: string): string {
  return encodeURIComponent(text).replace(/%7B/g, '{').replace(/%7D/g, '}');
}

function failureOf(row: HttpRow): string {
  const exception = row.exception;
  if (!exception) return 'no response';
  const chain = [exception, ...(exception.previous ?? [])];
  for (let i = chain.length - 1; i >= 0; i--) if (chain[i]!.code) return chain[i]!.code!;
  return exception.class || 'no response';
}

function hostnameOf(row: HttpRow): string {
  try {
    return new URL(row.url).hostname;
  } catch {
    return row.host.replace(/:\d+$/, '');
  }
}
