import type { Capture, CaptureSpan, HttpRow, Timing } from '../../src/capture/types';

/**
 * Capture records shaped as SPEC 2 describes, for the dashboard tests: a checkout request with pools,
 * failures, redirects, a fake, GraphQL, JSON captures and hostile values; a 1,000-row job; a failing
 * command; a few small requests for the list.
 */

export const XSS_SCRIPT = '<script>window.__probeXss = 1; alert(1)</script>';
export const XSS_IMG = '<img src=x onerror="window.__probeXss = 2; alert(2)">';

const BASE_TIME = 1_760_000_000;

function id(n: number): string {
  return `fixture${String(n).padStart(6, '0')}abc`;
}

interface RowSpec extends Partial<HttpRow> {
  method: string;
  url: string;
}

function endpointOf(method: string, url: string): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname
      .split('/')
      .map((segment) => (/^\d+$/.test(segment) || /^[0-9a-f]{16,}$/i.test(segment) || /^[0-9a-f-]{36}$/i.test(segment) ? '{id}' : segment))
      .join('/');
    return `${method} ${parsed.protocol}//${parsed.host}${path}`;
  } catch {
    return `${method} ${url}`;
  }
}

function timing(parts: Partial<Timing>): Timing {
  return { redirects: 0, ...parts };
}

export function row(spec: RowSpec): HttpRow {
  let host = spec.url;
  try {
    host = new URL(spec.url).host;
  } catch {
    // hostile fixture URLs may not parse
  }
  const status = spec.status === undefined ? 200 : spec.status;
  return {
    host,
    endpoint: endpointOf(spec.method, spec.url),
    request_headers: { 'user-agent': 'node', accept: 'application/json' },
    request_bytes: 0,
    request_payload: null,
    request_body: null,
    status,
    response_headers: status === null ? {} : { 'content-type': 'application/json; charset=utf-8' },
    response_bytes: status === null ? null : 128,
    response_capture: null,
    response_body: null,
    duration: 20,
    timing: status === null ? null : timing({ wait: 15, download: 5, remote: '10.0.0.7:443', protocol: 'HTTP/1.1' }),
    failed: status === null || status >= 400,
    exception: null,
    pool: null,
    fake: false,
    time: 0,
    origin: { file: 'src/routes/checkout.ts', line: 42, chain: ['src/routes/checkout.ts:42 checkout', 'src/server.ts:18 handle'] },
    ...spec,
  } as HttpRow;
}

function json(value: unknown): { capture: string; cards: unknown; raw: string } {
  return { capture: 'JsonCapture', cards: value, raw: JSON.stringify(value) };
}

function summaryOf(rows: HttpRow[]): Capture['summary'] {
  const byHost: Record<string, number> = {};
  for (const r of rows) byHost[r.host] = (byHost[r.host] ?? 0) + 1;
  const failed = rows.filter((r) => r.failed);
  return {
    totals: rows.length
      ? { http_ms: rows.reduce((sum, r) => sum + (r.duration ?? 0), 0), http_by_host: byHost, http_calls: rows.length, http_failed: failed.length }
      : undefined,
    errors: failed
      .slice(0, 3)
      .map((r) => `HTTP call failed: ${r.method} ${r.url} (${r.status ?? r.exception?.previous.at(-1)?.message ?? r.exception?.message ?? 'no response'})`),
    warnings: [],
  };
}

function capture(
  n: number,
  fields: Partial<Capture> & Pick<Capture, 'type' | 'name' | 'status' | 'duration'>,
  rows: HttpRow[],
  spans: CaptureSpan[] = [],
): Capture {
  const started = BASE_TIME + n * 7;
  const summary = summaryOf(rows);
  if (!summary.totals) delete summary.totals;
  return {
    schema_version: 1,
    id: id(n),
    label: null,
    tags: [],
    parent_id: null,
    trace_id: `${String(n).padStart(4, '0')}`.padEnd(32, 'a'),
    linked_via: null,
    started_at: started,
    ended_at: started + fields.duration / 1000,
    ended_by: fields.type === 'request' ? 'response' : fields.type === 'job' ? 'return' : 'exit',
    job_id: null,
    meta: { pid: 4242, hostname: 'dev-laptop', node: 'v20.19.0', service: 'shop-api' },
    summary,
    spans,
    sections: { http: rows },
    ...fields,
  };
}

function httpSpans(rows: HttpRow[], parentOf: (index: number) => string): CaptureSpan[] {
  return rows.map((r, index) => ({
    id: `h${index}`,
    kind: 'http',
    name: `${r.method} ${r.host}`,
    start: r.time,
    end: r.time + (r.duration ?? 0),
    duration: r.duration ?? 0,
    meta: { row: index, parent_id: parentOf(index) },
  }));
}

export const CHECKOUT_ID = id(10);
export const BIG_ID = id(9);
export const XSS_NAME_ID = id(11);

/** The request capture the screenshot shows: every kind of row. */
export function checkoutCapture(): Capture {
  const rows: HttpRow[] = [
    row({
      method: 'POST',
      url: 'https://api.payments.test/v1/payment_intents',
      request_headers: { 'content-type': 'application/json', authorization: '********', 'idempotency-key': 'c1b2-77aa' },
      request_bytes: 96,
      request_payload: { amount: 4200, currency: 'eur', customer: 'cus_81f2', card_token: '********' },
      status: 200,
      response_headers: { 'content-type': 'application/json', 'request-id': 'req_8Hq2' },
      response_bytes: 412,
      response_capture: json({ id: 'pi_3Nq2', status: 'requires_capture', amount: 4200, client_secret: '********', livemode: false }),
      duration: 184.2,
      timing: timing({ dns: 12.4, connect: 18.1, tls: 31.7, wait: 108.3, download: 13.7, remote: '93.184.216.34:443', protocol: 'HTTP/1.1' }),
      time: 8.5,
      origin: {
        file: 'src/payments/charge.ts',
        line: 27,
        chain: ['src/payments/charge.ts:27 createIntent', 'src/routes/checkout.ts:51 checkout', 'src/server.ts:18 handle'],
      },
    }),
    row({
      method: 'GET',
      url: 'https://inventory.internal.test:8443/items/12345',
      status: 200,
      duration: 41.3,
      time: 3.1,
      timing: timing({ wait: 36.2, download: 5.1, remote: '10.0.4.12:8443', protocol: 'HTTP/2' }),
      response_capture: json({ sku: 'A-12345', stock: 7 }),
      origin: { file: 'src/routes/checkout.ts', line: 33, chain: [] },
    }),
    ...[1, 2, 3].map((k) =>
      row({
        method: 'GET',
        url: `https://pricing.test/v2/quotes/${1000 + k}?currency=eur&api_key=********`,
        status: k === 3 ? 503 : 200,
        pool: 1,
        duration: 60 + k * 22.5,
        time: 200 + k * 1.5,
        timing: timing({ dns: 2.1, connect: 6.3, tls: 11.2, wait: 40 + k * 20, download: 3, remote: '10.0.2.3:443', protocol: 'HTTP/1.1' }),
        response_capture: k === 3 ? json({ error: 'upstream overloaded' }) : json({ quote: 19.99 * k, currency: 'eur' }),
        origin: { file: 'src/pricing/quotes.ts', line: 14, chain: ['src/pricing/quotes.ts:14 fetchQuotes'] },
      }),
    ),
    row({
      method: 'GET',
      url: 'http://127.0.0.1:9/health',
      status: null,
      duration: 2.7,
      time: 320,
      exception: {
        class: 'TypeError',
        message: 'fetch failed',
        code: null,
        file: 'src/health/ping.ts:9',
        previous: [{ class: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:9', code: 'ECONNREFUSED' }],
      },
      origin: { file: 'src/health/ping.ts', line: 9, chain: ['src/health/ping.ts:9 ping'] },
    }),
    row({
      method: 'DELETE',
      url: 'https://api.shop.test/v2/carts/9f86d081884c7d65',
      status: 404,
      duration: 22.1,
      time: 330,
      response_capture: json({ error: 'cart not found' }),
    }),
    row({
      method: 'GET',
      url: 'http://short.test/r/abc',
      status: 200,
      duration: 96.4,
      time: 356,
      timing: timing({ redirect: 41.2, dns: 3.3, connect: 5.5, wait: 38.1, download: 8.3, remote: '10.0.9.9:80', protocol: 'HTTP/1.1', redirects: 2 }),
      response_headers: { 'content-type': 'text/html' },
      response_bytes: 5120,
    }),
    row({
      method: 'POST',
      url: 'https://hooks.chat.test/services/T000/B000/XXXX',
      request_headers: { 'content-type': 'application/json' },
      request_bytes: 38,
      request_payload: { text: 'Order 1042 paid' },
      status: 200,
      response_headers: { 'content-type': 'text/plain' },
      response_bytes: 2,
      duration: 0.8,
      time: 460,
      timing: null,
      fake: true,
    }),
    row({
      method: 'POST',
      url: 'https://graph.test/graphql',
      request_headers: { 'content-type': 'application/json' },
      request_bytes: 120,
      request_payload: { query: 'query { viewer { login } }', variables: { first: 10 } },
      request_formats: { query: { format: 'graphql', text: 'query {\n  viewer {\n    login\n  }\n}' } },
      status: 200,
      duration: 73.9,
      time: 470,
      response_capture: { capture: 'GraphqlCapture', cards: { data: { viewer: { login: 'octo' } } }, raw: '{"data":{"viewer":{"login":"octo"}}}' },
    }),
    row({
      method: 'PUT',
      url: `https://evil.test/${encodeURI('<script>')}?q=${XSS_SCRIPT}&img=${XSS_IMG}`,
      request_headers: { 'content-type': 'text/plain', 'x-evil': XSS_IMG, 'x-script': XSS_SCRIPT },
      request_bytes: XSS_SCRIPT.length,
      request_body: XSS_SCRIPT,
      status: 500,
      response_headers: { 'content-type': 'text/html', 'x-evil': XSS_IMG },
      response_body: `<html><body>${XSS_SCRIPT}${XSS_IMG}</body></html>`,
      response_bytes: 180,
      duration: 15.2,
      time: 548,
      origin: { file: 'src/routes/checkout.ts', line: 77, chain: [`src/routes/checkout.ts:77 ${XSS_IMG}`] },
    }),
    row({
      method: 'POST',
      url: 'https://evil.test/api/echo',
      request_headers: { 'content-type': 'application/json' },
      request_bytes: 60,
      request_payload: { html: XSS_IMG, nested: { script: XSS_SCRIPT } },
      status: 200,
      duration: 12,
      time: 566,
      response_capture: json({ echoed: XSS_SCRIPT, image: XSS_IMG }),
    }),
  ];
  const spans: CaptureSpan[] = [
    { id: 'root', kind: 'phase', name: 'GET /checkout', start: 0, end: 612.4, duration: 612.4, meta: {} },
    { id: 'auth', kind: 'phase', name: 'middleware: auth', start: 1, end: 6, duration: 5, meta: { parent_id: 'root' } },
    { id: 'pool1', kind: 'pool', name: 'pool #1', start: 201.5, end: 271.5, duration: 70, meta: { parent_id: 'root', pool: 1 } },
    ...httpSpans(rows, (index) => (index === 0 ? 'root' : 'root')),
  ];
  return capture(
    10,
    {
      type: 'request',
      name: 'GET /checkout',
      status: '200',
      duration: 612.4,
      label: 'order 1042',
      tags: ['checkout'],
      sections: {
        request: {
          method: 'GET',
          url: 'http://localhost:3000/checkout?order=1042&token=********',
          path: '/checkout',
          route: '/checkout',
          status: '200',
          headers: { host: 'localhost:3000', cookie: '********', 'user-agent': 'Mozilla/5.0' },
          remote_address: '127.0.0.1',
        },
        http: rows,
      },
    },
    rows,
    spans,
  );
}

/** A job with 1,000 calls across four hosts, some failed. */
export function bigCapture(): Capture {
  const hosts = ['catalog.test', 'images.test', 'search.test', 'erp.internal.test'];
  const rows: HttpRow[] = [];
  for (let i = 0; i < 1000; i++) {
    const host = hosts[i % hosts.length]!;
    const status = i % 97 === 0 ? 502 : i % 41 === 0 ? 404 : 200;
    rows.push(
      row({
        method: i % 5 === 0 ? 'POST' : 'GET',
        url: `https://${host}/v1/products/${10_000 + i}`,
        status,
        pool: Math.floor(i / 100) + 1,
        duration: 5 + ((i * 37) % 120),
        time: i * 2.5,
        origin: { file: 'jobs/sync-products.ts', line: 60 + (i % 3), chain: [] },
      }),
    );
  }
  return capture(9, { type: 'job', name: 'sync-products', status: 'done', duration: 2700 }, rows);
}

/** Small captures so the list has types, errors and statuses to filter. */
export function listCaptures(): Capture[] {
  return [
    capture(1, { type: 'request', name: 'GET /health', status: '200', duration: 1.2 }, []),
    capture(2, { type: 'request', name: 'POST /login', status: '401', duration: 35.5 }, [
      row({ method: 'POST', url: 'https://auth.test/oauth/token', status: 401, duration: 30 }),
    ]),
    capture(3, { type: 'command', name: 'scripts/seed.js --all', status: '1', duration: 1520 }, [
      row({ method: 'GET', url: 'https://seed.test/data.json', status: 200, duration: 300 }),
      row({
        method: 'POST',
        url: 'http://localhost:9200/_bulk',
        status: null,
        duration: 3,
        time: 310,
        exception: { class: 'Error', message: 'connect ECONNREFUSED ::1:9200', code: 'ECONNREFUSED', file: 'scripts/seed.js:12', previous: [] },
      }),
    ]),
    capture(4, { type: 'job', name: 'send-receipt', status: 'done', duration: 88, parent_id: id(2) }, [
      row({ method: 'POST', url: 'https://mail.test/send', status: 202, duration: 80 }),
    ]),
    capture(11, { type: 'request', name: `GET /search ${XSS_IMG}`, status: '200', duration: 9, label: XSS_SCRIPT }, []),
  ];
}

export function allFixtureCaptures(): Capture[] {
  return [...listCaptures(), bigCapture(), checkoutCapture()];
}
