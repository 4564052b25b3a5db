import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import type { IndexRow } from '../../../capture/types';
import { html } from '../html';
import { ago, fullTime, ms } from '../format';
import { captureHref } from '../router';
import { CaptureStatus, TypeBadge } from './Badges';
import { samplingNote, samplingOf } from '../../../query/sampling';
import { groupByRoute } from '../../../query/routeGroups';
import type { FindingCount } from '../../findingCount';
import { kindsText } from './Findings';

export interface ListFilters {
  type: 'all' | 'request' | 'job' | 'command' | 'test';
  errorsOnly: boolean;
  text: string;
  /** Captures under one header per route template (the framework's, as in `probe list --group-by route`). */
  byRoute: boolean;
  /** Only captures with findings (as `probe list --findings`). */
  findingsOnly?: boolean;
}

const TYPES: Array<{ value: ListFilters['type']; label: string }> = [
  { value: 'all', label: 'All' },
  { value: 'request', label: 'Requests' },
  { value: 'job', label: 'Jobs' },
  { value: 'command', label: 'Commands' },
  { value: 'test', label: 'Tests' },
];

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * `calls`: captures whose calls match the text (method, URL, host, status), with how many of their calls do.
 * `findings`: each counted capture's findings (a capture not counted yet is not shown under `findingsOnly`).
 */
export function filterIndex(
  rows: IndexRow[],
  filters: ListFilters,
  calls?: ReadonlyMap<string, number>,
  findings?: Readonly<Record<string, FindingCount>>,
): IndexRow[] {
  const needle = filters.text.trim().toLowerCase();
  return rows.filter((row) => {
    if (filters.type !== 'all' && row.type !== filters.type) return false;
    if (filters.errorsOnly && !row.has_errors) return false;
    if (filters.findingsOnly && !(findings?.[row.id]?.count ?? 0)) return false;
    if (needle) {
      const hay = `${row.name} ${row.service ?? ''} ${row.route ?? ''} ${row.status} ${row.label ?? ''} ${row.tags.join(' ')} ${row.id}`.toLowerCase();
      if (!hay.includes(needle) && !calls?.has(row.id)) return false;
    }
    return true;
  });
}

/** A capture's findings in the list: the count as a mark, 0 muted, blank while not counted or without calls. */
function findingsCell(findings: Readonly<Record<string, FindingCount>> | null, row: IndexRow) {
  const counted = findings?.[row.id];
  if (!counted) return findings && (row.counts.http ?? 0) === 0 ? html`<span class="muted">–</span>` : '';
  return counted.count ? html`<span class="tag tag-warn">${String(counted.count)}</span>` : html`<span class="muted">0</span>`;
}

/** Captures, newest first, updating live; ids that arrived since the first render flash once. */
export function CaptureList({
  rows,
  loaded,
  filters,
  onFilters,
}: {
  rows: IndexRow[];
  loaded: boolean;
  filters: ListFilters;
  onFilters: (f: ListFilters) => void;
}) {
  // The text also searches every capture's calls on the server ("which captures called this host?").
  const [calls, setCalls] = useState<{ text: string; found: Map<string, number> } | null>(null);
  const text = filters.text.trim();
  useEffect(() => {
    if (!text) return;
    let stale = false;
    const timer = setTimeout(() => {
      api.calls(text).then(
        (answer) => {
          if (!stale) setCalls({ text, found: new Map(answer.matches.map((match) => [match.id, match.rows.length])) });
        },
        () => undefined,
      );
    }, 200);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [text, rows]);
  const found = calls && calls.text === text ? calls.found : undefined;
  // Findings are counted on the server as captures arrive; the column fills in after the rows.
  const [findings, setFindings] = useState<Record<string, FindingCount> | null>(null);
  useEffect(() => {
    if (!loaded) return;
    let stale = false;
    const timer = setTimeout(() => {
      api.findingCounts().then(
        (counts) => !stale && setFindings(counts),
        () => undefined,
      );
    }, 150);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [rows, loaded]);
  const shown = useMemo(() => filterIndex(rows, filters, text ? found : undefined, findings ?? undefined), [rows, filters, found, text, findings]);
  const sampling = useMemo(() => samplingOf(rows), [rows]);
  // A store several services share: each row names its service (the text filter finds them by it too).
  const manyServices = useMemo(() => new Set(rows.map((row) => row.service)).size > 1, [rows]);
  const known = useRef<Set<string> | null>(null);
  const fresh = new Set<string>();
  if (known.current) for (const row of rows) if (!known.current.has(row.id)) fresh.add(row.id);
  useEffect(() => {
    if (loaded) known.current = new Set(rows.map((row) => row.id));
  }, [rows, loaded]);

  const renderRow = (
    row: IndexRow,
  ) => html`<tr key=${row.id} class=${`capture-row ${fresh.has(row.id) ? 'fresh' : ''}`} data-testid="capture-row" data-id=${row.id} onClick=${() => (location.hash = captureHref(row.id))}>
      <td><${TypeBadge} type=${row.type} /></td>
      <td class="name"><a href=${captureHref(row.id)} class="mono">${row.name}</a>
        ${row.route ? html` <span class="muted small mono" data-testid="capture-route">${row.route}</span>` : null}
        ${manyServices && row.service ? html` <span class="tag tag-muted" data-testid="capture-service">${row.service}</span>` : null}
        ${row.label ? html` <span class="tag">${row.label}</span>` : null}
        ${row.tags.map((tag) => html` <span class="tag tag-muted">${tag}</span>`)}
        ${text && found?.has(row.id) ? html`<span class="tag call-matches" data-testid="call-matches" title="Calls of this capture whose method, URL, host or status match the filter">${plural(found.get(row.id)!, 'call')} match</span>` : null}
      </td>
      <td><${CaptureStatus} type=${row.type} status=${row.status} /></td>
      <td class="num">${String(row.counts.http ?? 0)}</td>
      <td class="num">${row.errors ? html`<span class="tone-error-text">${String(row.errors)}</span>` : html`<span class="muted">0</span>`}</td>
      <td class="num findings-cell" data-testid="capture-findings" data-count=${findings?.[row.id] ? String(findings[row.id]!.count) : ''} title=${findings?.[row.id]?.count ? kindsText(findings[row.id]!.kinds) : ''}>${findingsCell(findings, row)}</td>
      <td class="num">${ms(row.duration)}</td>
      <td class="num muted" title=${fullTime(row.started_at)}>${ago(row.started_at)}</td>
    </tr>`;

  return html`<div class="list-page">
    <div class="toolbar">
      <div class="segmented" role="group" aria-label="Type">
        ${TYPES.map(
          (t) =>
            html`<button type="button" class=${filters.type === t.value ? 'active' : ''} data-testid=${`type-${t.value}`} onClick=${() => onFilters({ ...filters, type: t.value })}>${t.label}</button>`,
        )}
      </div>
      <label class="check"><input type="checkbox" data-testid="errors-only" checked=${filters.errorsOnly} onChange=${(e: Event) => onFilters({ ...filters, errorsOnly: (e.target as HTMLInputElement).checked })} /> With errors</label>
      <label class="check"><input type="checkbox" data-testid="findings-only" checked=${filters.findingsOnly ?? false} onChange=${(e: Event) => onFilters({ ...filters, findingsOnly: (e.target as HTMLInputElement).checked })} /> With findings</label>
      <label class="check"><input type="checkbox" data-testid="by-route" checked=${filters.byRoute} onChange=${(e: Event) => onFilters({ ...filters, byRoute: (e.target as HTMLInputElement).checked })} /> By route</label>
      <input class="search" type="search" placeholder="Filter by name, route, status, label, tag, or a call's URL, host…" value=${filters.text} data-testid="list-filter" onInput=${(e: Event) => onFilters({ ...filters, text: (e.target as HTMLInputElement).value })} />
      <span class="muted small" data-testid="list-count">${shown.length === rows.length ? plural(rows.length, 'capture') : `${shown.length} of ${plural(rows.length, 'capture')}`}</span>
    </div>
    ${sampling ? html`<p class="muted small sampling-note" data-testid="sampling-note">${samplingNote(sampling)}</p>` : null}
    ${
      !loaded
        ? html`<div class="empty">Loading…</div>`
        : rows.length === 0
          ? html`<div class="empty" data-testid="list-empty"><p>No captures yet.</p><p class="muted">Run your app with <code>NODE_OPTIONS="--require probe/register"</code>; captures appear here as they are written.</p></div>`
          : html`<table class="captures" data-testid="captures">
            <colgroup><col class="c-type" /><col /><col class="c-status" /><col class="c-count" /><col class="c-count" /><col class="c-count" /><col class="c-dur" /><col class="c-when" /></colgroup>
            <thead><tr><th>Type</th><th>Name</th><th>Status</th><th class="num">HTTP</th><th class="num">Errors</th><th class="num" title="Wasteful calls found in the capture: N+1, duplicates, sequential calls, retries, slow calls">Findings</th><th class="num">Duration</th><th class="num">When</th></tr></thead>
            <tbody>
              ${
                filters.byRoute
                  ? groupByRoute(shown).flatMap((group) => [
                      html`<tr key=${`g:${group.route}`} class="group" data-testid="route-group">
                      <td colspan="8"><span class="group-key mono" data-testid="route-group-key">${group.route ?? '(no route)'}</span>
                        <span class="group-stats"><span><b>${String(group.captures)}</b> ${group.captures === 1 ? 'capture' : 'captures'}</span><span class=${group.with_errors ? 'tone-error-text' : ''}><b>${String(group.with_errors)}</b> with errors</span><span>avg <b>${ms(group.avg_duration)}</b></span><span>max <b>${ms(group.max_duration)}</b></span></span>
                      </td>
                    </tr>`,
                      ...shown.filter((row) => (row.route ?? null) === group.route).map(renderRow),
                    ])
                  : shown.map(renderRow)
              }
            </tbody>
          </table>`
    }
  </div>`;
}
