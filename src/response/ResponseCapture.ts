import type { FormattedField } from '../capture/types';
import type { Masker } from '../mask/Masker';

/** What a response capture is given: the call as recorded, the decoded body text, and the lens config. */
export interface ResponseCaptureInput {
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    payload: unknown;
  };
  response: {
    status: number | null;
    headers: Record<string, string>;
  };
  /** Decoded body as text (UTF-8, invalid sequences replaced). */
  body: string;
  /** True when the body was cut at `max_body_bytes` (only EventStreamCapture is given a cut body). */
  truncated?: boolean;
  config: { masker: Masker };
}

export interface ResponseCaptureOutput {
  cards: unknown;
  /** Payload fields the capture shows in a format, by dotted key. */
  formats?: Record<string, FormattedField>;
}

/**
 * A response capture class: `static name` identifies it in records; `capture()` may be static or on the
 * instance.
 */
export interface ResponseCaptureClass {
  readonly name: string;
  capture?(input: ResponseCaptureInput): ResponseCaptureOutput;
  new (): { capture(input: ResponseCaptureInput): ResponseCaptureOutput };
}
