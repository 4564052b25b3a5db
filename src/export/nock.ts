import type { MockCalls } from './mockCalls';

/** One definition as `nock.define()` reads it (nock/lib/scope.js define). */
export interface NockDefinition {
  scope: string;
  method: string;
  path: string;
  status: number;
  response: unknown;
  rawHeaders: Record<string, string | string[]>;
  /** The `response` is the body's bytes in hex (what nock's recorder writes for a body that is not UTF-8). */
  responseIsBinary?: true;
}

/**
 * nock definitions (`nock.define(JSON.parse(file))`): one interceptor per call, each answering once, so
 * repeated calls replay in the recorded order. JSON bodies are values, text bodies strings, binary bodies hex
 * with `responseIsBinary` (nock/lib/scope.js define reads it so).
 */
export function nockDefinitions({ calls }: MockCalls): NockDefinition[] {
  return calls.map((call) => {
    const url = new URL(call.url);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of call.headers) {
      const seen = headers[name];
      headers[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    const definition: NockDefinition = {
      scope: url.origin,
      method: call.method,
      path: `${url.pathname}${url.search}`,
      status: call.status,
      response: call.json !== undefined ? call.json : call.body,
      rawHeaders: headers,
    };
    if (call.base64 !== undefined) {
      definition.response = Buffer.from(call.base64, 'base64').toString('hex');
      definition.responseIsBinary = true;
    }
    return definition;
  });
}
