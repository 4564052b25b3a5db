import type { ResponseCaptureInput, ResponseCaptureOutput } from './ResponseCapture';
import { JsonCapture } from './JsonCapture';
import { formatGraphql } from './graphqlFormat';

/**
 * For GraphQL endpoints: the JSON response as cards, and the request's `query` field formatted as GraphQL
 * with string literals given to secret-named arguments masked.
 */
export class GraphqlCapture {
  capture(input: ResponseCaptureInput): ResponseCaptureOutput {
    const { cards } = new JsonCapture().capture(input);
    const payload = input.request.payload;
    const query = payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>).query : null;
    if (typeof query !== 'string') return { cards };
    const text = formatGraphql(query, (argument) => input.config.masker.isSecretName(argument));
    return { cards, formats: { query: { format: 'graphql', text } } };
  }
}
