import type { HttpRow } from '../capture/types';
import { MAX_ANSWERED, MAX_SENT, PLAIN_HEADERS, ValueList, addHeaderValues, addLeafValues, addUrlValues } from '../builder/callValues';
import { linkByValues } from '../builder/valueLinks';
import { endOf } from './callFacts';

/** Masked values say nothing: a `********` in two places is not a value passed on. */
const MASKED = /^\*{4,}/;

/**
 * Each row's `uses`: the earlier rows whose answers' values its request carried. Captures made by this version
 * have them, found before masking (builder/callValues.ts: a token that went back in a header counts). For older
 * ones (and captures where no call used another) they are read from what was stored, masked: answers' JSON fields and headers against the later request's
 * URL, query, payload and headers. The same linear pass either way (builder/valueLinks.ts).
 */
export function usesOfRows(rows: readonly HttpRow[]): number[][] {
  // `uses` is left out where empty: a capture where some row has it was linked when built.
  if (rows.some((row) => Array.isArray(row.uses))) return rows.map((row) => (Array.isArray(row.uses) ? row.uses : []));
  return linkByValues(
    rows.map((row) => ({
      start: row.time,
      end: row.status === null ? null : endOf(row),
      sent: storedSent(row),
      answered: storedAnswered(row),
    })),
  );
}

function storedSent(row: HttpRow): string[] {
  const out = new ValueList(MAX_SENT);
  addUrlValues(row.url, out);
  addHeaderValues(row.request_headers ?? {}, PLAIN_HEADERS.request, out);
  if (row.request_payload !== null) addLeafValues(row.request_payload, out);
  return out.values.filter((value) => !MASKED.test(value));
}

function storedAnswered(row: HttpRow): string[] {
  const out = new ValueList(MAX_ANSWERED);
  addHeaderValues(row.response_headers ?? {}, PLAIN_HEADERS.response, out);
  if (row.response_capture?.cards !== undefined) addLeafValues(row.response_capture.cards, out);
  return out.values.filter((value) => !MASKED.test(value));
}
