import { useEffect, useState } from 'preact/hooks';
import type { Capture } from '../../../capture/types';
import type { DiffResult } from '../../../diff/Diff';
import type { FieldChange } from '../../../diff/jsonChanges';
import type { BaselineEntry } from '../../../baselines/types';
import { html } from '../html';
import { api } from '../api';
import { CallWaterfall, type CallMark } from './CallWaterfall';

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; diff: DiffResult; before: Capture };

function value(change: FieldChange, side: 'before' | 'after'): string {
  return side in change ? JSON.stringify(change[side]) : '(absent)';
}

function FieldLines({ label, changes }: { label: string; changes: FieldChange[] | undefined }) {
  return (changes ?? []).map(
    (change) => html`<div class="mono small" data-testid="diff-field">${label} ${change.path}: ${value(change, 'before')} → ${value(change, 'after')}</div>`,
  );
}

/** `durations`: false where no duration is compared (a test's snapshot keeps none). */
export function Diff({ diff, durations = true }: { diff: DiffResult; durations?: boolean }) {
  return html`<div class="card diff" data-testid="diff">
    <p data-testid="diff-summary"><b>${diff.same ? 'Same' : 'Different'}</b> · ${String(diff.matched)} calls aligned, ${String(diff.added.length)} added, ${String(diff.removed.length)} removed, ${String(diff.changed.length)} changed ${durations ? html`<span class="muted small">(durations from ${String(diff.threshold.ms)} ms and ${String(diff.threshold.percent)} %)</span>` : null}</p>
    ${diff.status ? html`<p>Status ${diff.status.before} → ${diff.status.after}</p>` : null}
    <ul class="diff-list">
      ${diff.removed.map((call) => html`<li class="diff-removed" data-testid="diff-removed">− ${call.method} <span class="mono">${call.url}</span> ${String(call.status ?? 'no response')} <span class="mono muted">${call.line ?? ''}</span></li>`)}
      ${diff.added.map((call) => html`<li class="diff-added" data-testid="diff-added">+ ${call.method} <span class="mono">${call.url}</span> ${String(call.status ?? 'no response')} <span class="mono muted">${call.line ?? ''}</span></li>`)}
      ${diff.repeated.map((repeat) => html`<li data-testid="diff-repeated">= <span class="mono">${repeat.endpoint}</span>: ${String(repeat.before)} calls before, ${String(repeat.after)} after</li>`)}
      ${diff.changed.map(
        (
          change,
        ) => html`<li class="diff-changed" data-testid="diff-changed">~ <span class="mono">${change.endpoint}</span> <span class="mono muted">${change.line ?? ''}</span>
          ${change.status ? html`<div class="small" data-testid="diff-status">status ${String(change.status.before ?? 'no response')} → ${String(change.status.after ?? 'no response')}</div>` : null}
          ${change.exception ? html`<div class="small">failure ${change.exception.before ?? 'none'} → ${change.exception.after ?? 'none'}</div>` : null}
          ${change.duration ? html`<div class="small">duration ${String(change.duration.before)} ms → ${String(change.duration.after)} ms</div>` : null}
          ${change.url ? html`<div class="mono small">url ${change.url.before} → ${change.url.after}</div>` : null}
          <${FieldLines} label="request header" changes=${change.request_headers} />
          <${FieldLines} label="request" changes=${change.request_payload} />
          <${FieldLines} label="response" changes=${change.response} />
        </li>`,
      )}
    </ul>
  </div>`;
}

/** "Compare with…": the previous run of the same name or a baseline; the diff, then both captures' calls side by side. */
export function ComparePanel({ capture }: { capture: Capture }) {
  const [to, setTo] = useState('previous');
  const [baselines, setBaselines] = useState<BaselineEntry[]>([]);
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    api.baselines().then(setBaselines, () => undefined);
  }, []);
  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    api.compare(capture.id, to).then(
      (result) => live && setState({ kind: 'ready', ...result }),
      (error: Error) => live && setState({ kind: 'error', message: error.message }),
    );
    return () => {
      live = false;
    };
  }, [capture.id, to]);

  let body;
  if (state.kind === 'loading') body = html`<div class="empty">Comparing…</div>`;
  else if (state.kind === 'error') body = html`<div class="empty" data-testid="compare-error">${state.message}</div>`;
  else {
    const { diff, before } = state;
    const beforeMarks = new Map<number, CallMark>([
      ...diff.removed.map((call) => [call.row, 'removed'] as const),
      ...diff.changed.map((change) => [change.before_row, 'changed'] as const),
    ]);
    const afterMarks = new Map<number, CallMark>([
      ...diff.added.map((call) => [call.row, 'added'] as const),
      ...diff.changed.map((change) => [change.after_row, 'changed'] as const),
    ]);
    // A baseline of another unit diffs two different things: said above the diff, not left to look like a regression.
    const otherName = diff.before.baseline !== undefined && before.name !== capture.name;
    body = html`${otherName ? html`<p class="tone-error-text small" data-testid="compare-other-name">Baseline ${diff.before.baseline} was saved from ${before.name}, not ${capture.name}: this diff compares two different units.</p>` : null}
      <${Diff} diff=${diff} />
      <div class="compare-columns">
        <div><h3 class="small">Before: ${diff.before.baseline !== undefined ? `baseline ${diff.before.baseline}` : before.id}</h3><${CallWaterfall} rows=${before.sections.http ?? []} duration=${before.duration} marks=${beforeMarks} testid="waterfall-before" /></div>
        <div><h3 class="small">After: ${capture.id}</h3><${CallWaterfall} rows=${capture.sections.http ?? []} duration=${capture.duration} marks=${afterMarks} testid="waterfall-after" /></div>
      </div>`;
  }
  return html`<div class="compare" data-testid="compare">
    <label class="check">Compare with
      <select data-testid="compare-to" value=${to} onChange=${(e: Event) => setTo((e.target as HTMLSelectElement).value)}>
        <option value="previous">Previous run of ${capture.name}</option>
        ${baselines.map((entry) => html`<option value=${`baseline:${entry.name}`}>Baseline ${entry.name} (${entry.capture_name})</option>`)}
      </select>
    </label>
    ${body}
  </div>`;
}
