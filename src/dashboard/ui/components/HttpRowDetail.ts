import type { HttpRow, Origin } from '../../../capture/types';
import { originHref } from '../editor';
import { AnsweredCapture } from './AnsweredCapture';
import { html } from '../html';
import { bytes, ms, prettyBody } from '../format';
import { curlOf } from '../curl';
import { fetchOf } from '../fetchSnippet';
import { CopyButton } from './CopyButton';
import { GrpcStatusBadge, MethodBadge, StatusBadge } from './Badges';
import { JsonText } from './JsonText';
import { EventStream, isEventStreamCards } from './EventStream';
import { Waterfall } from './Waterfall';

function Section({ title, children, testid }: { title: string; children: unknown; testid?: string }) {
  return html`<section class="detail-section" data-testid=${testid}><h4>${title}</h4>${children}</section>`;
}

function Headers({ headers }: { headers: Record<string, string> }) {
  const entries = Object.entries(headers);
  if (entries.length === 0) return html`<p class="muted small">none</p>`;
  return html`<table class="kv"><tbody>
    ${entries.map(([name, value]) => html`<tr><th class="mono">${name}</th><td class="mono">${String(value)}</td></tr>`)}
  </tbody></table>`;
}

function fieldText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Payload fields as a table; a field the capture formats (e.g. GraphQL) shows as that text. */
function Payload({ row }: { row: HttpRow }) {
  const payload = row.request_payload;
  const formats = row.request_formats ?? {};
  const blocks: unknown[] = [];
  if (payload !== null) {
    if (Array.isArray(payload)) blocks.push(html`<${JsonText} value=${payload} />`);
    else
      blocks.push(html`<table class="kv" data-testid="payload"><tbody>
        ${Object.entries(payload).map(
          ([key, value]) => html`<tr><th class="mono">${key}</th><td class="mono">
            ${formats[key] ? html`<span class="tag">${formats[key]!.format}</span><pre class="code">${formats[key]!.text}</pre>` : value !== null && typeof value === 'object' ? html`<${JsonText} value=${value} />` : fieldText(value)}
          </td></tr>`,
        )}
      </tbody></table>`);
  }
  if (row.request_body !== null) {
    blocks.push(html`<details class="raw" open=${payload === null}><summary>Raw body</summary><${JsonText} text=${prettyBody(row.request_body)} /></details>`);
  }
  if (blocks.length === 0)
    return html`<p class="muted small">${row.request_bytes > 0 ? `${bytes(row.request_bytes)} sent, not kept (not JSON or form fields; turn on the \`bodies\` option to keep it)` : 'No body'}</p>`;
  return html`<div>${blocks}</div>`;
}

function Response({ row }: { row: HttpRow }) {
  if (row.status === null) return html`<p class="muted small">No response arrived.</p>`;
  const capture = row.response_capture;
  if (capture) {
    return html`<div data-testid="response-capture">
      <div class="capture-name"><span class="tag">${capture.capture}</span></div>
      ${
        capture.cards === null || capture.cards === undefined
          ? html`<p class="muted small">The capture shows nothing for this body.</p>`
          : isEventStreamCards(capture.cards)
            ? html`<${EventStream} cards=${capture.cards} />`
            : html`<${JsonText} value=${capture.cards} />`
      }
      ${capture.raw !== null ? html`<details class="raw" data-testid="raw-body"><summary>Raw body</summary><${JsonText} text=${prettyBody(capture.raw)} /></details>` : null}
    </div>`;
  }
  const type = row.response_headers['content-type'];
  // A binary body is shown by its size and type, not as text; its bytes go out with the HAR and mock downloads.
  if (typeof row.response_body_base64 === 'string')
    return html`<p class="muted small" data-testid="binary-body">${bytes(row.response_bytes)} received${type ? ` (${type})` : ''}; binary body kept for the HAR and mock downloads.</p>`;
  if (row.response_body !== null) {
    return html`<details class="raw" open data-testid="raw-body"><summary>Raw body</summary><${JsonText} text=${prettyBody(row.response_body)} /></details>`;
  }
  return html`<p class="muted small">${bytes(row.response_bytes)} received${type ? ` (${type})` : ''}; body not kept.</p>`;
}

function ExceptionChain({ row }: { row: HttpRow }) {
  const exception = row.exception;
  if (!exception) return null;
  return html`<${Section} title="Exception" testid="exception">
    <div class="exception">
      <div><b class="exc-class">${exception.class}</b>${exception.code ? html` <span class="tag tag-error">${exception.code}</span>` : null}</div>
      <div class="exc-message">${exception.message}</div>
      ${exception.file ? html`<div class="mono muted small">at ${exception.file}</div>` : null}
      ${exception.previous.map(
        (link) =>
          html`<div class="exc-cause"><span class="muted">caused by</span> <b class="exc-class">${link.class}</b>${link.code ? html` <span class="tag tag-error">${link.code}</span>` : null}<div class="exc-message">${link.message}</div></div>`,
      )}
    </div>
  <//>`;
}

/** The call's code line, a link that opens it in the developer's editor where one is set (`PROBE_EDITOR`). */
export function CodeLine({ origin }: { origin: Origin }) {
  const text = `${origin.file}:${String(origin.line)}`;
  const href = originHref(origin);
  return href
    ? html`<a class="code-link" href=${href} data-testid="code-link" title="Open in your editor" onClick=${(event: Event) => event.stopPropagation()}>${text}</a>`
    : html`<span>${text}</span>`;
}

/** Everything recorded about one call, unfolded under its row. */
export function HttpRowDetail({ row, index }: { row: HttpRow; index: number }) {
  return html`<div class="row-detail" data-testid="row-detail" data-row=${String(index)}>
    <div class="detail-url">
      <${MethodBadge} method=${row.method} />
      <span class="mono url-full" data-testid="full-url">${row.url}</span>
      <span class="detail-actions">
        <${CopyButton} text=${row.url} label="Copy URL" testid="copy-url" />
        <${CopyButton} text=${() => curlOf(row)} label="Copy as curl" testid="copy-curl" />
        <${CopyButton} text=${() => fetchOf(row)} label="Copy as fetch" testid="copy-fetch" />
      </span>
    </div>
    <dl class="facts">
      <div><dt>Status</dt><dd><${StatusBadge} status=${row.status} />${row.grpc_status ? html` <${GrpcStatusBadge} status=${row.grpc_status} />` : null}</dd></div>
      ${row.grpc ? html`<div><dt>gRPC method</dt><dd class="mono" data-testid="grpc-method">${row.grpc.service}/${row.grpc.method}</dd></div>` : null}
      ${row.grpc_status?.message ? html`<div><dt>gRPC message</dt><dd class="mono">${row.grpc_status.message}</dd></div>` : null}
      <div><dt>Duration</dt><dd>${ms(row.duration)}</dd></div>
      <div><dt>Started</dt><dd>+${ms(row.time)}</dd></div>
      <div><dt>Sent</dt><dd>${bytes(row.request_bytes)}</dd></div>
      <div><dt>Received</dt><dd>${bytes(row.response_bytes)}</dd></div>
      <div><dt>Pool</dt><dd>${row.pool === null ? '–' : `#${row.pool}`}</dd></div>
      ${row.fake ? html`<div><dt>Answered by</dt><dd><span class="tag tag-fake">fake</span></dd></div>` : null}
      ${row.cache ? html`<div><dt>Answered by</dt><dd><span class="tag tag-fake">cache</span></dd></div>` : null}
      ${row.truncated ? html`<div><dt>Body</dt><dd><span class="tag tag-warn">truncated</span></dd></div>` : null}
      ${row.answered_by ? html`<div><dt>Answered in</dt><dd><${AnsweredCapture} id=${row.answered_by} /></dd></div>` : null}
    </dl>
    <${Section} title="Timing"><${Waterfall} row=${row} /><//>
    <${ExceptionChain} row=${row} />
    <div class="detail-columns">
      <div>
        <${Section} title="Request headers" testid="request-headers"><${Headers} headers=${row.request_headers} /><//>
        <${Section} title="Payload" testid="request-payload"><${Payload} row=${row} /><//>
      </div>
      <div>
        <${Section} title="Response headers" testid="response-headers"><${Headers} headers=${row.response_headers} /><//>
        <${Section} title="Response" testid="response"><${Response} row=${row} /><//>
      </div>
    </div>
    <${Section} title="Code" testid="origin">
      ${
        row.origin
          ? html`<div class="mono code-line"><${CodeLine} origin=${row.origin} /></div>
            ${row.origin.chain.length > 0 ? html`<ol class="chain mono">${row.origin.chain.map((frame) => html`<li>${frame}</li>`)}</ol>` : null}`
          : html`<p class="muted small">No app frame recorded.</p>`
      }
    <//>
  </div>`;
}
