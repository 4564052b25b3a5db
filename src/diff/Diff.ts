import type { FieldChange } from './jsonChanges';

/** The shapes `probe diff`, the dashboard and probe-show's `compare_to` give. */

export interface DiffThreshold {
  /** A duration change is reported when it is at least this many ms… */
  ms: number;
  /** …and at least this share of the earlier duration, in percent. */
  percent: number;
}

export const DEFAULT_THRESHOLD: DiffThreshold = Object.freeze({ ms: 100, percent: 50 });

export interface DiffSide {
  id: string;
  type: string;
  name: string;
  status: string;
  started_at: number;
  duration: number;
  calls: number;
  /** The baseline's name when this side is one. */
  baseline?: string;
}

/** A call only one side made. */
export interface CallRef {
  /** Its row in its own capture. */
  row: number;
  method: string;
  url: string;
  endpoint: string;
  status: number | null;
  /** The code line (`file:line`) that made it. */
  line: string | null;
}

export interface Change<T> {
  before: T;
  after: T;
}

/** A call both sides made (aligned by endpoint, then order) that differs. */
export interface CallChange {
  before_row: number;
  after_row: number;
  method: string;
  endpoint: string;
  line: string | null;
  url?: Change<string>;
  status?: Change<number | null>;
  /** A gRPC call's status as `<code> <NAME>` (`5 NOT_FOUND`): HTTP says 200 either way; null when it had none. */
  grpc_status?: Change<string | null>;
  /** The innermost failure message, when one side failed without a response or the message changed. */
  exception?: Change<string | null>;
  duration?: Change<number | null>;
  request_headers?: FieldChange[];
  request_payload?: FieldChange[];
  /** Fields of the response as its capture shows it (JSON), or its body. */
  response?: FieldChange[];
}

export interface DiffResult {
  /** True when nothing below differs: the exit code of `probe diff` is 0. */
  same: boolean;
  before: DiffSide;
  after: DiffSide;
  threshold: DiffThreshold;
  status?: Change<string>;
  /** Calls aligned with one on the other side. */
  matched: number;
  added: CallRef[];
  removed: CallRef[];
  /** Endpoints called a different number of times (both sides called them). */
  repeated: Array<{ endpoint: string; before: number; after: number }>;
  changed: CallChange[];
}
