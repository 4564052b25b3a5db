import type { Masker } from '../mask/Masker';
import type { CallInput } from './input';
import { urlFacts } from './urlFacts';
import { grpcFailed, grpcStatus } from './grpcStatus';
import { grpcStatusText } from './grpcStatusText';

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * What the summary's totals take from one call: the same host, duration and failed flag its row would show,
 * without building the row (no header masking, no body decoding). Calls past `max_rows` need only this.
 */
export interface CallFacts {
  host: string;
  /** ms, rounded as the row's `duration`. */
  duration: number;
  failed: boolean;
}

/** The fields of a call its facts come from: a live call record has them too, so none is converted first. */
export type FactsInput = Pick<CallInput, 'method' | 'url' | 'status' | 'start' | 'end' | 'error' | 'pool' | 'responseHeaders' | 'responseTrailers'>;

/** `end`: where a call the unit did not see finish stops (the unit's end). */
export function callFacts(call: FactsInput, end: number, masker: Masker): CallFacts {
  return {
    host: urlFacts(call.url, masker).host,
    duration: round(Math.max(0, (call.end ?? end) - call.start)),
    failed: call.status === null || call.status >= 400 || grpcFailed(call),
  };
}

/** The `summary.errors` line of a failed call, as its row would state it. */
export function failureLine(call: FactsInput, masker: Masker): string {
  const grpc = call.status !== null ? grpcStatus(call) : null;
  const outcome = grpc && grpc.code !== 0 ? `${call.status}, ${grpcStatusText(grpc)}` : (call.status ?? masker.text(innermostCause(call)));
  return `HTTP call failed: ${call.method.toUpperCase()} ${urlFacts(call.url, masker).url} (${outcome})`;
}

/** The message the summary shows for a call without a response: the innermost cause. */
function innermostCause(call: FactsInput): string {
  const error = call.error;
  if (!error) return 'no response';
  return error.causes.length ? error.causes[error.causes.length - 1]!.message : error.message || 'no response';
}
