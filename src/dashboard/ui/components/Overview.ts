import { captureHref } from '../router';
import type { Capture } from '../../../capture/types';
import { html } from '../html';
import { ms } from '../format';
import { httpCoveredMs } from '../timeline';

function Breakdown({ capture }: { capture: Capture }) {
  const rows = capture.sections.http ?? [];
  const duration = Math.max(capture.duration, 0);
  const http = Math.min(duration, httpCoveredMs(rows, duration));
  const other = Math.max(0, duration - http);
  const share = (value: number) => (duration > 0 ? (value / duration) * 100 : 0);
  const parts = [
    { key: 'http', label: 'Outgoing HTTP', value: http },
    { key: 'app', label: 'Application', value: other },
  ];
  return html`<div class="card breakdown" data-testid="breakdown">
    <h3>Time breakdown <span class="muted small">of ${ms(duration)}</span></h3>
    <div class="bd-bar">
      ${parts.map((p) => (p.value > 0 ? html`<span class=${`bd-seg bd-${p.key}`} style=${{ width: `${share(p.value)}%` }} title=${`${p.label} ${ms(p.value)}`}></span>` : null))}
    </div>
    <div class="bd-legend">
      ${parts.map(
        (p) =>
          html`<div class="bd-item" data-testid=${`breakdown-${p.key}`}><i class=${`bd-dot bd-${p.key}`}></i><span>${p.label}</span><b>${ms(p.value)}</b><span class="muted">${share(p.value).toFixed(0)}%</span></div>`,
      )}
    </div>
    ${
      capture.summary.totals && capture.summary.totals.http_ms > http + 0.5
        ? html`<p class="muted small">Calls overlap: their durations add up to ${ms(capture.summary.totals.http_ms)}; the bar counts time with at least one call in flight.</p>`
        : null
    }
  </div>`;
}

function Stat({ label, value, tone }: { label: string; value: string; tone?: string }) {
  return html`<div class=${`stat ${tone ?? ''}`}><div class="stat-value">${value}</div><div class="stat-label">${label}</div></div>`;
}

/** Totals, time breakdown, errors, the incoming request and where the capture ran. */
export function Overview({ capture }: { capture: Capture }) {
  const totals = capture.summary.totals;
  const request = capture.sections.request;
  const hosts = Object.entries(totals?.http_by_host ?? {}).sort((a, b) => b[1] - a[1]);
  return html`<div class="overview" data-testid="overview">
    <div class="stats">
      <${Stat} label="Duration" value=${ms(capture.duration)} />
      <${Stat} label="HTTP calls" value=${String(totals?.http_calls ?? 0)} />
      <${Stat} label="Failed calls" value=${String(totals?.http_failed ?? 0)} tone=${totals?.http_failed ? 'tone-error-text' : ''} />
      <${Stat} label="Time in calls" value=${ms(totals?.http_ms ?? 0)} />
    </div>
    <${Breakdown} capture=${capture} />
    ${
      capture.summary.errors.length > 0
        ? html`<div class="card errors" data-testid="errors"><h3>Errors</h3><ul>${capture.summary.errors.map((error) => html`<li class="mono">${error}</li>`)}</ul>
          ${totals && totals.http_failed > capture.summary.errors.length ? html`<p class="muted small">and ${totals.http_failed - capture.summary.errors.length} more failed calls</p>` : null}</div>`
        : null
    }
    <div class="overview-columns">
      ${
        request
          ? html`<div class="card"><h3>Request</h3><table class="kv"><tbody>
            <tr><th>Method</th><td>${request.method}</td></tr>
            <tr><th>URL</th><td class="mono">${request.url}</td></tr>
            <tr><th>Route</th><td class="mono">${request.route ?? '–'}</td></tr>
            <tr><th>Status</th><td>${request.status}</td></tr>
            <tr><th>Remote</th><td class="mono">${request.remote_address ?? '–'}</td></tr>
            ${Object.entries(request.headers).map(([name, value]) => html`<tr><th class="mono">${name}</th><td class="mono">${String(value)}</td></tr>`)}
          </tbody></table></div>`
          : null
      }
      <div class="card"><h3>Calls by host</h3>
        ${hosts.length ? html`<table class="kv"><tbody>${hosts.map(([host, count]) => html`<tr><th class="mono">${host}</th><td>${String(count)}</td></tr>`)}</tbody></table>` : html`<p class="muted small">No calls.</p>`}
        <h3 class="spaced">Process</h3>
        <table class="kv"><tbody>
          <tr><th>Service</th><td>${capture.service ?? capture.meta.service}</td></tr>
          <tr><th>Host</th><td>${capture.meta.hostname}</td></tr>
          <tr><th>PID</th><td>${String(capture.meta.pid)}</td></tr>
          <tr><th>Node</th><td>${capture.meta.node}</td></tr>
          <tr><th>Trace</th><td class="mono">${capture.trace_id}</td></tr>
          ${capture.caused_by ? html`<tr><th>Caused by</th><td><a href=${captureHref(capture.caused_by.capture, 'http', capture.caused_by.row)} class="mono" data-testid="caused-by" title="The call in another service that this request answered">call ${String(capture.caused_by.row)} of ${capture.caused_by.capture}</a></td></tr>` : null}
          ${capture.parent_id ? html`<tr><th>Started by</th><td><a href=${`#/captures/${encodeURIComponent(capture.parent_id)}`} class="mono">${capture.parent_id}</a></td></tr>` : null}
          <tr><th>Ended by</th><td>${capture.ended_by}</td></tr>
        </tbody></table>
      </div>
    </div>
  </div>`;
}
