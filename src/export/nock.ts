import type { MockCalls } from './mockCalls';

/** One definition as `nock.define()` reads it (nock/lib/scope.js define). */
export interface NockDefinition {
  scope: string;
  method: string;
  path: string;
  status: number;
  response: unknown;
  rawHeaders: Record<string, string | string[]>;
}

/**
 * nock definitions (`nock.define(JSON.parse(file))`): one interceptor per call, each answering once, so
 * repeated calls replay in the recorded order. JSON bodies are values, text bodies strings.
 */
export function nockDefinitions({ calls }: MockCalls): NockDefinition[] {
  return calls.map((call) => {
    const url = new URL(call.url);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of call.headers) {
      const seen = headers[name];
      headers[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    return {
      scope: url.origin,
      method: call.method,
      path: `${url.pathname}${url.search}`,
      status: call.status,
      response: call.json !== undefined ? call.json : call.body,
      rawHeaders: headers,
    };
  });
}
