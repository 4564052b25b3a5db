import type { IndexRow } from '../capture/types';
import { GlobError, compileGlob, type Glob } from '../util/glob';
import { QueryError } from './QueryError';
import { shownInput } from './inputs';
import { CAPTURE_TYPES } from './list';
import { parseSince } from './since';

/** Which captures a query reads: started within `since`, of `type`, named like `name`. */
export interface CaptureFilterInput {
  /** `30s`, `15m`, `2h`, `1d`. */
  since?: string;
  type?: string;
  /** Glob on the capture name: `*` any run of characters, `?` one; case ignored. */
  name?: string;
}

/** A predicate on index rows, checked once (a bad `since` or `type` is a query error listing valid values). */
export function captureFilter(input: CaptureFilterInput, now: number): (row: IndexRow) => boolean {
  if (input.type !== undefined && !(CAPTURE_TYPES as readonly string[]).includes(input.type)) {
    throw new QueryError(`type ${shownInput(input.type)} is not a capture type`, CAPTURE_TYPES);
  }
  if (input.name !== undefined && (typeof input.name !== 'string' || input.name === '')) {
    throw new QueryError('name must be a glob on capture names, such as "GET /orders/*" or "*sync*"');
  }
  const after = input.since !== undefined ? now - parseSince(input.since) : null;
  // Case ignored: `get /orders*` finding `GET /orders/42` is what a person or an agent means.
  const name = input.name !== undefined ? nameGlob(input.name) : null;
  return (row) =>
    (input.type === undefined || row.type === input.type) && (after === null || row.started_at >= after) && (name === null || name.test(row.name));
}

/** The filters in words, for notes: `started within 15m, of type job, named "sync*"`. */
export function describeFilter(input: CaptureFilterInput): string {
  const parts: string[] = [];
  if (input.since !== undefined) parts.push(`started within ${input.since}`);
  if (input.type !== undefined) parts.push(`of type ${input.type}`);
  if (input.name !== undefined) parts.push(`named ${JSON.stringify(input.name)}`);
  return parts.join(', ');
}

function nameGlob(pattern: string): Glob {
  try {
    return compileGlob(pattern, { ignoreCase: true });
  } catch (error) {
    if (error instanceof GlobError) throw new QueryError(`name: ${error.message}`);
    throw error;
  }
}
