import type { EventStreamCards, StreamEvent } from '../../../response/EventStreamCapture';
import { html } from '../html';
import { JsonText } from './JsonText';

/** Events shown before "show all": a long stream stays quick to unfold. */
const FIRST_EVENTS = 200;

/** EventStreamCapture's cards, recognised by shape (a custom capture may reuse the name). */
export function isEventStreamCards(cards: unknown): cards is EventStreamCards {
  return (
    cards !== null && typeof cards === 'object' && Array.isArray((cards as EventStreamCards).events) && typeof (cards as EventStreamCards).count === 'number'
  );
}

function EventRow({ event, index }: { event: StreamEvent; index: number }) {
  return html`<tr data-testid="sse-event">
    <td class="num muted">${String(index + 1)}</td>
    <td class="mono">${event.event ?? 'message'}${event.id !== undefined ? html`<div class="muted small">id ${event.id}</div>` : null}</td>
    <td>${typeof event.data === 'string' ? html`<pre class="code">${event.data}</pre>` : html`<${JsonText} value=${event.data} />`}</td>
  </tr>`;
}

/** A streamed response: the assembled answer and usage (model streams), then every event as text. */
export function EventStream({ cards }: { cards: EventStreamCards }) {
  const shown = cards.events.slice(0, FIRST_EVENTS);
  return html`<div class="event-stream" data-testid="event-stream">
    <p class="small">
      <b data-testid="sse-count">${String(cards.count)}</b> ${cards.count === 1 ? 'event' : 'events'}
      ${cards.style ? html` · <span class="tag">${cards.style}</span>` : null}
      ${cards.model ? html` · <span class="mono">${cards.model}</span>` : null}
      ${cards.stop_reason ? html` · stop: <span class="mono">${cards.stop_reason}</span>` : null}
      ${cards.truncated ? html` <span class="tag tag-warn">cut at max_body_bytes</span>` : null}
    </p>
    ${cards.text !== undefined ? html`<h5>Assembled text</h5><pre class="code assembled" data-testid="sse-text">${cards.text}</pre>` : null}
    ${cards.usage ? html`<h5>Usage</h5><div data-testid="sse-usage"><${JsonText} value=${cards.usage} /></div>` : null}
    <details class="raw" open=${cards.text === undefined}>
      <summary>Events</summary>
      <table class="kv events"><tbody>${shown.map((event, index) => html`<${EventRow} event=${event} index=${index} />`)}</tbody></table>
      ${cards.events.length > shown.length ? html`<p class="muted small">${cards.events.length - shown.length} more events in the raw body.</p>` : null}
    </details>
  </div>`;
}
