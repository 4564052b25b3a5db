import type { HttpRow } from '../../../capture/types';
import { html } from '../html';
import { ms, statusTone } from '../format';

export type CallMark = 'added' | 'removed' | 'changed';

/**
 * A capture's calls as bars on its own time axis, one line each in start order; calls the diff names are
 * marked (added, removed, changed). Two of these side by side make the "Compare with…" view.
 */
export function CallWaterfall({
  rows,
  duration,
  marks,
  testid,
}: {
  rows: readonly HttpRow[];
  duration: number;
  marks: ReadonlyMap<number, CallMark>;
  testid: string;
}) {
  const order = rows.map((_, index) => index).sort((a, b) => rows[a]!.time - rows[b]!.time || a - b);
  const span = Math.max(duration, ...rows.map((row) => row.time + (row.duration ?? 0)), 0.001);
  const pct = (value: number) => `${Math.min(100, Math.max(0, (value / span) * 100))}%`;
  return html`<div class="call-waterfall" data-testid=${testid}>
    ${order.map((index) => {
      const row = rows[index]!;
      const mark = marks.get(index);
      return html`<div class=${`cw-row ${mark ? `cw-${mark}` : ''}`} data-testid="cw-row" data-row=${String(index)} data-mark=${mark ?? ''} title=${`${row.method} ${row.url} · ${ms(row.duration)}`}>
        <span class="cw-label mono">${mark === 'added' ? '+ ' : mark === 'removed' ? '− ' : mark === 'changed' ? '~ ' : ''}${row.endpoint}</span>
        <span class="cw-track"><span class=${`cw-bar tl-bar-${statusTone(row.status)}`} style=${{ left: pct(row.time), width: `max(2px, ${pct(row.duration ?? 0)})` }}></span></span>
      </div>`;
    })}
  </div>`;
}
