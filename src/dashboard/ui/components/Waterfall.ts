import type { HttpRow } from '../../../capture/types';
import { html } from '../html';
import { ms } from '../format';
import { PHASES, UNMEASURED, noTimingReason } from '../callKinds';

/** The phases of one real call as a bar in call order, with remote address, protocol and redirects. */
export function Waterfall({ row }: { row: HttpRow }) {
  const timing = row.timing;
  if (!timing) return html`<p class="muted small" data-testid="no-timing">${noTimingReason(row)}</p>`;
  const phases = PHASES.filter((p) => typeof timing[p.key] === 'number').map((p) => ({ ...p, value: timing[p.key] as number }));
  const measured = phases.reduce((sum, p) => sum + p.value, 0);
  const total = Math.max(row.duration ?? 0, measured, 0.001);
  const rest = Math.max(0, total - measured);
  return html`<div class="waterfall" data-testid="waterfall">
    <div class="wf-bar" role="img" aria-label="timing">
      ${phases.map(
        (p) =>
          html`<span class=${`wf-seg wf-${p.key}`} style=${{ width: `${(p.value / total) * 100}%` }} title=${`${p.label} ${ms(p.value)}: ${p.about}`}></span>`,
      )}
      ${rest / total > 0.005 ? html`<span class="wf-seg wf-other" style=${{ width: `${(rest / total) * 100}%` }} title=${`${UNMEASURED.label} ${ms(rest)}: ${UNMEASURED.about}`}></span>` : null}
    </div>
    <div class="wf-legend">
      ${phases.map((p) => html`<span class="wf-item" title=${p.about}><i class=${`wf-dot wf-${p.key}`}></i>${p.label} <b>${ms(p.value)}</b></span>`)}
      ${rest / total > 0.005 ? html`<span class="wf-item" data-testid="wf-unmeasured" title=${UNMEASURED.about}><i class="wf-dot wf-other"></i>${UNMEASURED.label} <b>${ms(rest)}</b></span>` : null}
    </div>
    <dl class="facts facts-inline">
      <div><dt>Remote</dt><dd class="mono">${timing.remote ?? '–'}</dd></div>
      <div><dt>Protocol</dt><dd>${timing.protocol ?? '–'}</dd></div>
      <div><dt>Redirects</dt><dd>${String(timing.redirects ?? 0)}</dd></div>
    </dl>
  </div>`;
}
