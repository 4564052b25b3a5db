import { createHash } from 'node:crypto';
import type { MockCalls } from './mockCalls';

/**
 * A file undici's `SnapshotAgent` loads in playback mode (undici 7 lib/mock/snapshot-recorder.js:
 * `[{hash, snapshot: {request, responses: [{statusCode, headers, body (base64), trailers}], callCount,
 * timestamp}}]`). The hash is what the agent computes for a live request (`createRequestHash`: method, URL,
 * the matched headers sorted, body, joined by `|`, sha256 base64url). Probe keeps request bodies only as
 * masked fields, so entries match on method, URL and content type: play back with UNDICI_PLAYBACK_OPTIONS.
 * Repeated calls become one entry whose responses answer in the recorded order.
 */
export const UNDICI_PLAYBACK_OPTIONS = { matchHeaders: ['content-type'], matchBody: false } as const;

export interface SnapshotEntry {
  hash: string;
  snapshot: {
    request: { method: string; url: string; headers: Record<string, string>; body: string };
    responses: Array<{ statusCode: number; headers: Record<string, string>; body: string; trailers: Record<string, string> }>;
    callCount: number;
    timestamp: string;
  };
}

export function undiciSnapshots({ calls }: MockCalls, now = new Date()): SnapshotEntry[] {
  const entries = new Map<string, SnapshotEntry>();
  for (const call of calls) {
    const request: SnapshotEntry['snapshot']['request'] = {
      method: call.method,
      url: new URL(call.url).toString(),
      headers: call.request_type === null ? {} : { 'content-type': call.request_type },
      body: '',
    };
    const hash = requestHash(request);
    const headers: Record<string, string> = {};
    for (const [name, value] of call.headers) headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    const response = { statusCode: call.status, headers, body: call.base64 ?? Buffer.from(call.body, 'utf8').toString('base64'), trailers: {} };
    const entry = entries.get(hash);
    if (entry) entry.snapshot.responses.push(response);
    else entries.set(hash, { hash, snapshot: { request, responses: [response], callCount: 0, timestamp: now.toISOString() } });
  }
  return [...entries.values()];
}

/** undici's createRequestHash (snapshot-recorder.js) for a request whose headers hold one value each. */
function requestHash(request: SnapshotEntry['snapshot']['request']): string {
  const parts = [request.method, request.url];
  for (const key of Object.keys(request.headers).sort()) parts.push(key, request.headers[key]!);
  parts.push(request.body);
  return createHash('sha256').update(parts.join('|')).digest('base64url');
}
