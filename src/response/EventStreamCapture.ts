import type { ResponseCaptureInput, ResponseCaptureOutput } from './ResponseCapture';
import { dataValue, parseEventStream } from '../util/eventStream';
import { assembleStream } from './assembleStream';
import type { Masker } from '../mask/Masker';

/** One event as shown: `data` parsed as JSON when it parses (and masked like inputs). */
export interface StreamEvent {
  event?: string;
  id?: string;
  retry?: number;
  data: unknown;
}

/** What EventStreamCapture shows for a `text/event-stream` response. */
export interface EventStreamCards {
  /** Events in the kept body. */
  count: number;
  /** `openai` or `anthropic` when the stream is a model's streamed answer, else absent. */
  style?: 'openai' | 'anthropic';
  model?: string;
  /** The answer's text deltas joined. */
  text?: string;
  usage?: Record<string, unknown> | null;
  stop_reason?: string;
  /** The body was cut at `max_body_bytes`: these are the events that arrived whole before the cut. */
  truncated?: true;
  events: StreamEvent[];
}

/**
 * Shows a Server-Sent Events response as its events, and for OpenAI- and Anthropic-style streams the
 * assembled text and token usage. It reads the copy the lens kept (at most `max_body_bytes`); the app's
 * stream is never held back or read ahead.
 */
export class EventStreamCapture {
  capture({ body, truncated, config }: ResponseCaptureInput): ResponseCaptureOutput {
    const raw = parseEventStream(body, !truncated);
    const events = raw.map((event): StreamEvent => ({ ...event, data: maskedData(dataValue(event.data), config.masker) }));
    const cards: EventStreamCards = { count: events.length, events };
    const assembled = assembleStream(events.map((event) => event.data));
    if (assembled) {
      const { style, model, text, usage, stop_reason } = assembled;
      Object.assign(cards, { style, ...(model ? { model } : {}), text, usage, ...(stop_reason ? { stop_reason } : {}) });
    }
    if (truncated) cards.truncated = true;
    // Cards first, events last: the JSON view reads top-down.
    const { events: list, ...head } = cards;
    return { cards: { ...head, events: list } };
  }
}

/** JSON data masked by field; data that is not JSON (`token=…`, JSON cut or invalid) masked as text. */
function maskedData(value: unknown, masker: Masker): unknown {
  return typeof value === 'string' ? masker.text(value) : masker.maskValue(value);
}
