import type { MockCalls } from './mockCalls';

/** HTTP methods MSW 2's `http` namespace names; other methods are left out with a comment. */
const MSW_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/**
 * An MSW 2 handlers module (`export const handlers = [...]`, for `setupServer(...handlers)`). MSW matches
 * a URL without its query, so calls to one path answer in the recorded order: every handler but the last of
 * a method and path is `{ once: true }`. Bodies are literals in the source (JSON.stringify keeps every string
 * safe to embed); a binary one is its base64, decoded to bytes, with its recorded content type.
 */
export function mswModule({ calls, left_out }: MockCalls, source: string): string {
  const lines = [`// MSW 2 request handlers recorded by Probe (${source}). Masked values (********) stay masked.`];
  const usable = calls.filter((call) => MSW_METHODS.has(call.method.toLowerCase()));
  const skipped = [
    ...left_out.map((call) => ({ ...call })),
    ...calls.filter((call) => !usable.includes(call)).map((call) => ({ ...call, reason: 'method MSW has no handler for' })),
  ];
  for (const call of skipped)
    lines.push(`// left out: ${call.method} ${call.url} (capture ${call.capture_id} row ${call.row}): ${call.reason}`.replace(/[\r\n\u2028\u2029]/g, ' '));
  lines.push(`import { http, HttpResponse } from 'msw';`, '');
  // atob, not Buffer: the same module serves msw/node and msw/browser.
  if (usable.some((call) => call.base64 !== undefined))
    lines.push(
      '/** A binary body recorded as base64, as the bytes the app got. */',
      'const bytes = (base64) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));',
      '',
    );
  lines.push('export const handlers = [');
  const pathOf = (url: string) => {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  };
  const last = new Map<string, number>();
  usable.forEach((call, i) => last.set(`${call.method} ${pathOf(call.url)}`, i));
  usable.forEach((call, i) => {
    const init = `{ status: ${call.status}, headers: ${JSON.stringify(call.headers)} }`;
    const body = call.base64 !== undefined ? `bytes(${JSON.stringify(call.base64)})` : call.body === '' ? 'null' : JSON.stringify(call.body);
    const response = call.json !== undefined ? `HttpResponse.json(${JSON.stringify(call.json)}, ${init})` : `new HttpResponse(${body}, ${init})`;
    const once = last.get(`${call.method} ${pathOf(call.url)}`) === i ? '' : ', { once: true }';
    lines.push(`  // ${call.method} ${call.url} (capture ${call.capture_id} row ${call.row})`.replace(/[\r\n\u2028\u2029]/g, ' '));
    lines.push(`  http.${call.method.toLowerCase()}(${JSON.stringify(pathOf(call.url))}, () => ${response}${once}),`);
  });
  lines.push('];', '');
  return lines.join('\n');
}
