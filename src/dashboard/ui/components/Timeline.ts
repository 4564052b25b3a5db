import type { Capture, HttpRow } from '../../../capture/types';
import { html } from '../html';
import { ms } from '../format';
import { buildTimeline } from '../timeline';
import { KIND_LABELS, PHASES, UNMEASURED, callKind, type CallKind } from '../callKinds';

/** A call's bar in its phases' colours (where it has timing), its edge in the colour of how it ended. */
function callSegments(row: HttpRow) {
  const timing = row.timing;
  if (!timing) return null;
  const phases = PHASES.filter((p) => typeof timing[p.key] === 'number').map((p) => ({ key: p.key as string, label: p.label, value: timing[p.key] as number }));
  const measured = phases.reduce((sum, p) => sum + p.value, 0);
  const total = Math.max(row.duration ?? 0, measured, 0.001);
  if (total - measured > 0) phases.push({ key: 'other', label: UNMEASURED.label, value: total - measured });
  return phases.map(
    (p) => html`<span class=${`wf-seg wf-${p.key}`} style=${{ width: `${(p.value / total) * 100}%` }} title=${`${p.label} ${ms(p.value)}`}></span>`,
  );
}

/** What the colours mean: the phases inside a call's bar, and the edge that says how it ended. */
function Legend({ kinds }: { kinds: CallKind[] }) {
  return html`<div class="tl-legend wf-legend" data-testid="timeline-legend">
    ${PHASES.filter((p) => p.key !== 'redirect').map((p) => html`<span class="wf-item" title=${p.about}><i class=${`wf-dot wf-${p.key}`}></i>${p.label}</span>`)}
    <span class="wf-item" title=${UNMEASURED.about}><i class="wf-dot wf-other"></i>${UNMEASURED.label}</span>
    ${kinds.map((kind) => html`<span class="wf-item" data-testid=${`legend-${kind}`}><i class=${`tl-kind-dot tl-kind-${kind}`}></i>${KIND_LABELS[kind]}</span>`)}
  </div>`;
}

function ticks(duration: number): number[] {
  return [0, 0.25, 0.5, 0.75, 1].map((f) => f * duration);
}

type Place = 'after' | 'before' | 'inside';

/** Where a bar's duration label fits: after the bar, before it when the bar reaches the right edge, else inside. */
function labelPlace(start: number, end: number): Place {
  if (end < 0.86) return 'after';
  return start > 0.14 ? 'before' : 'inside';
}

function labelStyle(start: number, end: number): Record<string, string> {
  const place = labelPlace(start, end);
  if (place === 'after') return { left: `calc(${end * 100}% + 6px)` };
  if (place === 'before') return { right: `calc(${(1 - start) * 100}% + 6px)` };
  return { right: `calc(${(1 - Math.min(1, end)) * 100}% + 6px)` };
}

/** Spans as bars on one time axis; a call's bar sits under the span (or pool) that made it. */
export function Timeline({ capture, onOpenRow }: { capture: Capture; onOpenRow: (row: number) => void }) {
  const items = buildTimeline(capture);
  const rows = capture.sections.http ?? [];
  const duration = Math.max(capture.duration, ...items.map((item) => item.end), 0.001);
  const pct = (value: number) => `${Math.min(100, Math.max(0, (value / duration) * 100))}%`;
  const kinds = (['ok', 'redirect', 'client-error', 'server-error', 'no-response'] as CallKind[]).filter((kind) => rows.some((row) => callKind(row) === kind));
  return html`<div class="timeline" data-testid="timeline">
    <${Legend} kinds=${kinds} />
    <div class="tl-row tl-axis">
      <div class="tl-label"></div>
      <div class="tl-track">${ticks(duration).map((t, i) => html`<span class=${`tl-tick ${i === 4 ? 'last' : ''}`} style=${{ left: pct(t) }}>${ms(t)}</span>`)}</div>
    </div>
    ${items.map((item) => {
      const row = item.row !== null ? rows[item.row] : undefined;
      const kind = row ? callKind(row) : null;
      const tone = kind ? `call tl-kind-${kind}` : item.kind;
      const width = Math.max(0.3, ((item.end - item.start) / duration) * 100);
      const clickable = item.row !== null;
      return html`<div
        class=${`tl-row tl-${item.kind} ${clickable ? 'clickable' : ''}`}
        data-testid=${`tl-${item.kind}`}
        onClick=${clickable ? () => onOpenRow(item.row!) : undefined}
        title=${`${item.label} · ${ms(item.end - item.start)}`}
      >
        <div class="tl-label" style=${{ paddingLeft: `${8 + item.depth * 16}px` }}>
          <span class="mono">${item.label}</span>
        </div>
        <div class="tl-track">
          ${ticks(duration).map((t) => html`<span class="tl-grid" style=${{ left: pct(t) }}></span>`)}
          <span class=${`tl-bar tl-bar-${tone}`} data-kind=${kind ?? undefined} style=${{ left: pct(item.start), width: `${width}%` }}>${row ? callSegments(row) : null}</span>
          <span class=${`tl-dur ${labelPlace(item.start / duration, item.end / duration)}`} style=${labelStyle(item.start / duration, item.end / duration)}>${ms(item.end - item.start)}</span>
        </div>
      </div>`;
    })}
  </div>`;
}
