import type { MockCalls } from './mockCalls';
import { jsLiteral, jsString } from '../util/jsLiteral';

/** HTTP methods MSW 2's `http` namespace names; other methods are left out with a comment. */
const MSW_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/**
 * An MSW 2 handlers module (`export const handlers = [...]`, for `setupServer(...handlers)`). MSW matches
 * a URL without its query, so calls to one path answer in the recorded order: every handler but the last of
 * a method and path is `{ once: true }`. Every recorded value (URL, headers, body, where it came from, what was
 * left out) is a literal made by the one encoder (util/jsLiteral.ts); comments hold Probe's own words only. A
 * binary body is its base64, decoded to bytes, with its recorded content type.
 */
export function mswModule({ calls, left_out }: MockCalls, source: string): string {
  const lines = [
    '// MSW 2 request handlers recorded by Probe. Masked values (********) stay masked.',
    "import { http, HttpResponse } from 'msw';",
    '',
    '/** What the handlers were recorded from. */',
    `export const recordedFrom = ${jsString(source)};`,
  ];
  const usable = calls.filter((call) => MSW_METHODS.has(call.method.toLowerCase()));
  const skipped = [
    ...left_out.map((call) => ({ ...call })),
    ...calls.filter((call) => !usable.includes(call)).map((call) => ({ ...call, reason: 'method MSW has no handler for' })),
  ];
  if (skipped.length > 0) {
    lines.push('/** Calls with no handler here, and why. */', 'export const leftOut = [');
    for (const call of skipped)
      lines.push(`  ${jsLiteral({ method: call.method, url: call.url, capture: call.capture_id, row: call.row, reason: call.reason })},`);
    lines.push('];');
  }
  lines.push('');
  // atob, not Buffer: the same module serves msw/node and msw/browser.
  if (usable.some((call) => call.base64 !== undefined))
    lines.push(
      '/** A binary body recorded as base64, as the bytes the app got. */',
      'const bytes = (base64) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));',
      '',
    );
  lines.push('export const handlers = [');
  const last = new Map<string, number>();
  usable.forEach((call, i) => last.set(`${call.method} ${pathOf(call.url)}`, i));
  usable.forEach((call, i) => {
    const init = `{ status: ${Number(call.status)}, headers: ${jsLiteral(call.headers)} }`;
    const body = call.base64 !== undefined ? `bytes(${jsString(call.base64)})` : call.body === '' ? 'null' : jsString(call.body);
    const response = call.json !== undefined ? `HttpResponse.json(${jsLiteral(call.json)}, ${init})` : `new HttpResponse(${body}, ${init})`;
    const once = last.get(`${call.method} ${pathOf(call.url)}`) === i ? '' : ', { once: true }';
    lines.push(`  http.${call.method.toLowerCase()}(${mswPath(pathOf(call.url))}, () => ${response}${once}),`);
  });
  lines.push('];', '');
  return lines.join('\n');
}

/**
 * A string path reads best, but MSW reads it as a path-to-regexp pattern (`*`, `:name`, `(…)`, `{…}`, `+`, `?`
 * are syntax there): a URL with any character beyond the plain ones is matched exactly by a RegExp instead.
 */
function mswPath(url: string): string {
  if (PLAIN_URL.test(url)) return jsString(url);
  return `new RegExp(${jsString(`^${url.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')}$`)})`;
}

const PLAIN_URL = /^[a-z][a-z0-9+.-]*:\/\/[A-Za-z0-9.-]+(?::\d+)?\/[A-Za-z0-9._~/%@,;=&-]*$/;

/** MSW matches a URL without its query. */
function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
