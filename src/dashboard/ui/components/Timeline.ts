import type { Capture } from '../../../capture/types';
import { html } from '../html';
import { ms, statusTone } from '../format';
import { buildTimeline } from '../timeline';

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
  return html`<div class="timeline" data-testid="timeline">
    <div class="tl-row tl-axis">
      <div class="tl-label"></div>
      <div class="tl-track">${ticks(duration).map((t, i) => html`<span class=${`tl-tick ${i === 4 ? 'last' : ''}`} style=${{ left: pct(t) }}>${ms(t)}</span>`)}</div>
    </div>
    ${items.map((item) => {
      const row = item.row !== null ? rows[item.row] : undefined;
      const tone = row ? statusTone(row.status) : item.kind;
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
          <span class=${`tl-bar tl-bar-${tone}`} style=${{ left: pct(item.start), width: `${width}%` }}></span>
          <span class=${`tl-dur ${labelPlace(item.start / duration, item.end / duration)}`} style=${labelStyle(item.start / duration, item.end / duration)}>${ms(item.end - item.start)}</span>
        </div>
      </div>`;
    })}
  </div>`;
}
