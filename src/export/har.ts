import { STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import type { Capture, HttpRow } from '../capture/types';
import type { Har, HarEntry, HarNameValue, HarTimings } from './harTypes';

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * The captures' calls as one HAR 1.2 log: a page per capture, an entry per HTTP row. Built from stored
 * records only, so what was masked stays masked and bodies are what the capture kept. Pure.
 */
export function harOf(captures: readonly Capture[], creatorVersion: string): Har {
  const pages: Har['log']['pages'] = [];
  const entries: HarEntry[] = [];
  for (const capture of captures) {
    const startMs = capture.started_at * 1000;
    pages.push({
      startedDateTime: isoTime(startMs),
      id: capture.id,
      title: `${capture.type}: ${capture.name}`,
      pageTimings: { onContentLoad: -1, onLoad: -1 },
      comment: `status ${capture.status}, ${round(capture.duration)} ms`,
    });
    const rows = (capture.sections.http ?? []) as HttpRow[];
    for (const row of rows) entries.push(entryOf(row, capture.id, startMs));
  }
  // HAR entries are sorted by start; a stable sort keeps call order for calls started together.
  entries.sort((a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime));
  return { log: { version: '1.2', creator: { name: 'Probe', version: creatorVersion }, pages, entries } };
}

function entryOf(row: HttpRow, pageref: string, captureStartMs: number): HarEntry {
  const timings = harTimings(row);
  const contentType = row.response_headers['content-type'];
  // A binary body is base64 with `encoding: "base64"` (HAR 1.2 content); text bodies are the text.
  const base64 = row.response_body_base64;
  const text = base64 ?? row.response_capture?.raw ?? row.response_body ?? undefined;
  const entry: HarEntry = {
    pageref,
    startedDateTime: isoTime(captureStartMs + row.time),
    time: round(sumOf(timings)),
    request: {
      method: row.method,
      url: harUrl(row.url),
      httpVersion: row.timing?.protocol ?? '',
      cookies: requestCookies(row.request_headers.cookie),
      headers: pairs(row.request_headers),
      queryString: queryOf(row.url),
      headersSize: -1,
      bodySize: row.request_bytes,
    },
    response: {
      status: row.status ?? 0,
      statusText: row.status === null ? '' : (STATUS_CODES[row.status] ?? ''),
      httpVersion: row.status === null ? '' : (row.timing?.protocol ?? ''),
      cookies: [],
      headers: pairs(row.response_headers),
      content: {
        size: row.response_bytes ?? 0,
        mimeType: contentType ?? 'x-unknown',
        ...(text !== undefined ? { text } : {}),
        ...(base64 !== undefined ? { encoding: 'base64' } : {}),
        ...(row.truncated && text !== undefined ? { comment: 'body cut at max_body_bytes' } : {}),
      },
      redirectURL: row.response_headers.location ?? '',
      headersSize: -1,
      // `response_bytes` counts decoded bytes where the client decodes: the wire size is known only without an encoding.
      bodySize: row.response_bytes !== null && !row.response_headers['content-encoding'] ? row.response_bytes : -1,
    },
    cache: {},
    timings,
  };
  const postData = postDataOf(row);
  if (postData) entry.request.postData = postData;
  const address = addressOf(row.timing?.remote);
  if (address) {
    entry.serverIPAddress = address.ip;
    entry.connection = address.port;
  }
  if (row.exception) entry._error = [row.exception, ...row.exception.previous].map((e) => `${e.class}${e.code ? ` ${e.code}` : ''}: ${e.message}`).join(' <- ');
  if (row.origin) entry.comment = `${row.origin.file}:${row.origin.line}`;
  const probe: Record<string, unknown> = {};
  if (row.origin) probe.origin = row.origin;
  if (row.pool !== null) probe.pool = row.pool;
  if (row.fake) probe.fake = true;
  if (row.cache) probe.cache = row.cache;
  if (row.truncated) probe.truncated = true;
  if (row.response_capture) probe.response_capture = { capture: row.response_capture.capture, cards: row.response_capture.cards };
  if (row.timing?.redirects) probe.redirects = row.timing.redirects;
  if (Object.keys(probe).length) entry._probe = probe;
  return entry;
}

/**
 * Probe's phases as HAR timings. HAR's `connect` includes `ssl`; a phase not reached is -1 (dns and connect
 * on a reused connection, ssl on plain HTTP). Probe does not time the request write apart from the wait, so
 * `send` is 0, and what the phases leave of the call's duration (a keep-alive socket's queue, redirect hops
 * followed, the request write) is `blocked`. A call without timing (a fake's answer, a failed connection)
 * is all `wait`. Entry `time` is the sum, as HAR defines it.
 */
export function harTimings(row: HttpRow): HarTimings {
  const total = Math.max(0, row.duration ?? 0);
  const t = row.timing;
  if (!t) return { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: round(total), receive: 0 };
  const dns = t.dns ?? -1;
  const ssl = t.tls ?? -1;
  const connect = t.connect === undefined && t.tls === undefined ? -1 : (t.connect ?? 0) + (t.tls ?? 0);
  const wait = t.wait ?? 0;
  const receive = t.download ?? 0;
  const rest = total - Math.max(0, dns) - Math.max(0, connect) - wait - receive;
  const timings: HarTimings = {
    blocked: rest >= 0.001 ? round(rest) : -1,
    dns: dns < 0 ? -1 : round(dns),
    connect: connect < 0 ? -1 : round(connect),
    ssl: ssl < 0 ? -1 : round(ssl),
    send: 0,
    wait: round(wait),
    receive: round(receive),
  };
  if (t.redirects) timings.comment = `blocked includes ${t.redirects} redirect hop${t.redirects === 1 ? '' : 's'} followed (${round(t.redirect ?? 0)} ms)`;
  return timings;
}

function sumOf(t: HarTimings): number {
  // ssl is already inside connect.
  return [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive].reduce((sum, value) => sum + Math.max(0, value), 0);
}

function isoTime(epochMs: number): string {
  return new Date(Math.round(epochMs)).toISOString();
}

function pairs(headers: Record<string, string>): HarNameValue[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value: String(value) }));
}

/** HAR wants an absolute URI without the fragment: the URL parser's spelling (spaces and `<>` percent-encoded). */
function harUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}

function queryOf(url: string): HarNameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** Cookies of the request's `cookie` header; a masked header (the default) has none to list. */
function requestCookies(header: string | undefined): HarNameValue[] {
  if (!header) return [];
  const out: HarNameValue[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.push({ name: part.slice(0, eq).trim(), value: part.slice(eq + 1).trim() });
  }
  return out;
}

/** The request body as kept: the raw body with `bodies` on, else the masked JSON or form fields. */
function postDataOf(row: HttpRow): HarEntry['request']['postData'] | null {
  if (row.request_bytes === 0 && row.request_body === null) return null;
  const mimeType = row.request_headers['content-type'] ?? '';
  const payload = row.request_payload;
  const form = mimeType.split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
  let text = row.request_body ?? undefined;
  let params: HarNameValue[] | undefined;
  if (payload !== null && form && !Array.isArray(payload)) {
    params = Object.entries(payload).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((item) => ({ name, value: String(item) })));
    text ??= new URLSearchParams(params.map((p): [string, string] => [p.name, p.value])).toString();
  } else if (payload !== null) {
    text ??= JSON.stringify(payload);
  }
  return {
    mimeType,
    ...(text !== undefined ? { text } : {}),
    ...(params ? { params } : {}),
    ...(text === undefined ? { comment: 'body not kept (not JSON or form fields; the bodies option keeps it)' } : {}),
  };
}

/** `address:port` (IPv6 addresses have colons of their own) → an IP HAR accepts, and the port. */
function addressOf(remote: string | undefined): { ip: string; port: string } | null {
  if (!remote) return null;
  const colon = remote.lastIndexOf(':');
  if (colon <= 0) return null;
  const ip = remote.slice(0, colon).replace(/^\[|\]$/g, '');
  return isIP(ip) ? { ip, port: remote.slice(colon + 1) } : null;
}
