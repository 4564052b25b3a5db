/**
 * The values a call sent (URL, query, headers, body) and those its answer carried (body, headers), as the app saw
 * them, before masking: what tells whether a later call used an earlier answer (a token that went back in a header,
 * a cursor in a query, an id in a body). They live only while a capture is built; what is stored is which rows a
 * request used (`uses`), never a value. Bounded per call: at most MAX_SENT and MAX_ANSWERED values, of
 * MIN_VALUE to MAX_VALUE characters, read from at most MAX_SCAN characters of a body.
 */
export interface CallValues {
  sent: string[];
  answered: string[];
}

export const MAX_SENT = 128;
export const MAX_ANSWERED = 256;
/** Shorter values (`1`, `en`, `ok`) are in too many answers and requests by chance to prove anything. */
export const MIN_VALUE = 3;
export const MAX_VALUE = 512;
const MAX_SCAN = 256 * 1024;

/** Headers that carry nothing an answer gave (the client's own or the transport's). */
const PLAIN_REQUEST_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'accept-encoding',
  'accept-language',
  'user-agent',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'traceparent',
  'tracestate',
  'baggage',
  'sec-fetch-mode',
]);
const PLAIN_RESPONSE_HEADERS = new Set([
  'date',
  'content-length',
  'content-type',
  'content-encoding',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'server',
  'vary',
  'cache-control',
  'expires',
  'last-modified',
  'age',
  'via',
  'traceparent',
]);

/** A bounded list that takes each value once. */
export class ValueList {
  readonly values: string[] = [];
  private readonly seen = new Set<string>();
  constructor(private readonly max: number) {}

  get full(): boolean {
    return this.values.length >= this.max;
  }

  add(value: string): void {
    if (this.full || value.length < MIN_VALUE || value.length > MAX_VALUE || this.seen.has(value)) return;
    this.seen.add(value);
    this.values.push(value);
  }
}

/** A URL's values: itself, its path and query, each path segment and each query value. */
export function addUrlValues(url: string, out: ValueList): void {
  out.add(url);
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://relative.invalid');
  } catch {
    return;
  }
  out.add(parsed.pathname + parsed.search);
  for (const segment of parsed.pathname.split('/')) if (segment) out.add(decodeSafe(segment));
  for (const value of parsed.searchParams.values()) out.add(value);
}

/** Header values and their words (`Bearer <token>`, `sid=<id>; Path=/`). */
export function addHeaderValues(headers: Record<string, unknown>, plain: ReadonlySet<string>, out: ValueList): void {
  for (const [name, raw] of Object.entries(headers)) {
    if (plain.has(name.toLowerCase()) || raw === undefined || raw === null) continue;
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      const text = String(value);
      out.add(text);
      for (const word of text.split(/[\s,;=]+/)) out.add(word);
      if (name.toLowerCase() === 'location') addUrlValues(text, out);
    }
  }
}

/**
 * String and number values of a JSON text, keys left out, without building the object: a linear scan of its
 * first MAX_SCAN characters. Strings that look like a URL or a path add their parts (a `next` link's cursor).
 */
export function addJsonTextValues(text: string, out: ValueList): void {
  const scan = text.length > MAX_SCAN ? text.slice(0, MAX_SCAN) : text;
  const token = /"((?:[^"\\]|\\.)*)"(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
  for (let match = token.exec(scan); match && !out.full; match = token.exec(scan)) {
    if (match[3] !== undefined) out.add(match[3]);
    else if (!match[2]) addString(unescapeJson(match[1]!), out);
  }
}

/** String and number leaves of a parsed JSON value, breadth first. */
export function addLeafValues(value: unknown, out: ValueList): void {
  const queue: unknown[] = [value];
  const limit = out.values.length + 4 * MAX_ANSWERED;
  for (let i = 0; i < queue.length && !out.full; i++) {
    const item = queue[i];
    if (typeof item === 'string') addString(item, out);
    else if (typeof item === 'number' && Number.isFinite(item)) out.add(String(item));
    else if (item !== null && typeof item === 'object' && queue.length < limit) {
      for (const child of Array.isArray(item) ? item : Object.values(item)) {
        if (queue.length >= limit) break;
        queue.push(child);
      }
    }
  }
}

function addString(value: string, out: ValueList): void {
  out.add(value);
  if (value.length >= MIN_VALUE && (value.startsWith('/') || /^https?:\/\//i.test(value))) addUrlValues(value, out);
}

/** A form body's values. */
export function addFormValues(text: string, out: ValueList): void {
  for (const value of new URLSearchParams(text.length > MAX_SCAN ? text.slice(0, MAX_SCAN) : text).values()) out.add(value);
}

function unescapeJson(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The values of one call as the app sent and received them (unmasked: never stored). */
export function callValues(input: {
  url: string;
  requestHeaders: Record<string, unknown>;
  requestText: string;
  requestType: string | null;
  responseHeaders: Record<string, unknown>;
  responseText: string | null;
  responseType: string | null;
}): CallValues {
  const sent = new ValueList(MAX_SENT);
  addUrlValues(input.url, sent);
  addHeaderValues(input.requestHeaders, PLAIN_REQUEST_HEADERS, sent);
  addBodyValues(input.requestText, input.requestType, sent);
  const answered = new ValueList(MAX_ANSWERED);
  addHeaderValues(input.responseHeaders, PLAIN_RESPONSE_HEADERS, answered);
  if (input.responseText) addBodyValues(input.responseText, input.responseType, answered);
  return { sent: sent.values, answered: answered.values };
}

function addBodyValues(text: string, type: string | null, out: ValueList): void {
  if (!text) return;
  const media = (type ?? '').split(';')[0]!.trim().toLowerCase();
  if (media === 'application/x-www-form-urlencoded') addFormValues(text, out);
  else if (media.includes('json') || /^\s*[[{]/.test(text.slice(0, 64))) addJsonTextValues(text, out);
}

export const PLAIN_HEADERS = { request: PLAIN_REQUEST_HEADERS, response: PLAIN_RESPONSE_HEADERS };

/**
 * Each call's values, noted when its row is built (the row of an ended call is built once: RowCache) and read when
 * its capture links calls. Weak: they go with the call.
 */
const noted = new WeakMap<object, CallValues>();

export function noteCallValues(call: object, values: CallValues): void {
  noted.set(call, values);
}

export function notedCallValues(call: object): CallValues | undefined {
  return noted.get(call);
}
