import { useEffect, useState } from 'preact/hooks';
import type { Capture } from '../../../capture/types';
import { api } from '../api';
import { html } from '../html';
import { ms } from '../format';
import { captureHref } from '../router';

/**
 * The capture another service made of this call (docs/flows.md), shown inline under the call: its service, name,
 * status and duration, and its own calls with their code lines, each a link to the capture.
 */
export function AnsweredCapture({ id }: { id: string }) {
  const [capture, setCapture] = useState<Capture | null | undefined>(undefined);
  useEffect(() => {
    let stale = false;
    api.capture(id).then(
      (found) => !stale && setCapture(found),
      () => !stale && setCapture(null),
    );
    return () => {
      stale = true;
    };
  }, [id]);
  const link = html`<a class="mono" data-testid="answered-by" href=${captureHref(id)} title="The capture the service that answered this call made of it">${id}</a>`;
  if (!capture) return html`<div class="answered-capture">${link}${capture === null ? html` <span class="muted small">(no longer stored)</span>` : null}</div>`;
  const calls = capture.sections.http ?? [];
  return html`<div class="answered-capture" data-testid="answered-capture">
    <div><span class="tag">${capture.service ?? capture.meta.service}</span> <span class="mono">${capture.name}</span> · ${capture.status} · ${ms(capture.duration)} · ${link}</div>
    ${
      calls.length
        ? html`<ol class="chain mono">${calls.map(
            (call, row) =>
              html`<li><a href=${captureHref(capture.id, 'http', row)}>${call.method} ${call.url}</a> · ${call.status ?? 'failed'} · ${ms(call.duration)}${call.origin ? ` · ${call.origin.file}:${call.origin.line}` : ''}</li>`,
          )}</ol>`
        : null
    }
  </div>`;
}
