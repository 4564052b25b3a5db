import { Component } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { HttpRow } from '../../../capture/types';
import { html } from '../html';
import { bytes, ms, splitUrl } from '../format';
import { filterRows, groupRows, type GroupBy, type RowGroup } from '../groups';
import { GrpcStatusBadge, MethodBadge, StatusBadge } from './Badges';
import { CodeLine, HttpRowDetail } from './HttpRowDetail';
import { sortRows, type SortKey, type SortState } from '../sortRows';
import { MOCK_FILES, type MockFormat } from '../../../export/mockFiles';
import type { FindingKind } from '../../../findings/Finding';
import { FINDING_LABELS } from './Findings';

const COLUMNS = 9;
/** Rows rendered per frame: a 1,000-row capture appears at once and fills in without one long freeze. */
const CHUNK = 150;
const GROUPINGS: Array<{ value: GroupBy; label: string }> = [
  { value: 'none', label: 'None' },
  { value: 'endpoint', label: 'Endpoint' },
  { value: 'host', label: 'Host' },
  { value: 'pool', label: 'Pool' },
  { value: 'status', label: 'Status' },
];

interface RowProps {
  row: HttpRow;
  index: number;
  open: boolean;
  maxDuration: number;
  onToggle: (index: number) => void;
  /** Scroll to this row when it first appears (opened from the timeline). */
  focused?: boolean;
  /** The kind of the finding opened above, when it names this row. */
  flags?: FindingKind[];
}

/** One call. A class with shouldComponentUpdate so unfolding one row of 1,000 re-renders only that row. */
class CallRow extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    return (
      next.row !== this.props.row ||
      next.open !== this.props.open ||
      next.maxDuration !== this.props.maxDuration ||
      (next.flags ?? []).join() !== (this.props.flags ?? []).join()
    );
  }

  override componentDidMount(): void {
    if (this.props.focused) (this.base as HTMLElement | undefined)?.scrollIntoView?.({ block: 'center' });
  }

  override render({ row, index, open, maxDuration, onToggle, flags }: RowProps) {
    const { origin, rest } = splitUrl(row.url);
    const share = maxDuration > 0 && row.duration !== null ? Math.max(1, (row.duration / maxDuration) * 100) : 0;
    return html`
      <tr class=${`call ${open ? 'open' : ''} ${row.failed ? 'is-failed' : ''}`} data-testid="http-row" data-row=${String(index)} onClick=${() => onToggle(index)}>
        <td class="num muted" data-testid="row-number" title="Row index, as in probe rows and probe-show">${String(index)}</td>
        <td><${MethodBadge} method=${row.method} /></td>
        <td><${StatusBadge} status=${row.status} />${row.grpc_status ? html` <${GrpcStatusBadge} status=${row.grpc_status} />` : null}${row.fake ? html` <span class="tag tag-fake">fake</span>` : null}${row.cache ? html` <span class="tag tag-fake">cache</span>` : null}${(flags ?? []).map((kind) => html` <span class="tag tag-warn" data-testid="row-finding" data-kind=${kind} title="The finding opened above names this call">${FINDING_LABELS[kind]}</span>`)}</td>
        <td class="url mono" title=${row.url}><span class="url-origin">${origin}</span><span class="url-path">${rest}</span></td>
        <td class="num">${bytes(row.request_bytes)}</td>
        <td class="num">${bytes(row.response_bytes)}</td>
        <td class="num">${row.pool === null ? '' : html`<span class="tag tag-pool">#${row.pool}</span>`}</td>
        <td class="num duration"><span class="dur-bar" style=${{ width: `${share}%` }}></span><span class="dur-text">${ms(row.duration)}</span></td>
        <td class="origin mono muted" title=${row.origin?.chain.join('\n') ?? ''}>${row.origin ? html`<${CodeLine} origin=${row.origin} />` : ''}</td>
      </tr>
      ${open ? html`<tr class="detail"><td colspan=${COLUMNS}><${HttpRowDetail} row=${row} index=${index} /></td></tr>` : null}
    `;
  }
}

function GroupHeader({ group, by, folded, onFold }: { group: RowGroup; by: GroupBy; folded: boolean; onFold: () => void }) {
  return html`<tr class="group" data-testid="group-row" onClick=${onFold}>
    <td colspan=${COLUMNS}>
      <span class="fold">${folded ? '▸' : '▾'}</span>
      <span class="group-key mono" data-testid="group-key">${by === 'status' && group.key !== 'failed' ? html`<${StatusBadge} status=${Number(group.key)} />` : group.key === 'failed' ? html`<${StatusBadge} status=${null} />` : group.key}</span>
      <span class="group-stats">
        <span><b data-testid="group-count">${String(group.count)}</b> ${group.count === 1 ? 'call' : 'calls'}</span>
        <span class=${group.failed ? 'tone-error-text' : ''}><b>${String(group.failed)}</b> failed</span>
        <span>total <b>${ms(group.total)}</b></span>
        <span>avg <b>${ms(group.avg)}</b></span>
        <span title="Median and 95th percentile of the durations">p50 <b>${ms(group.p50)}</b> p95 <b>${ms(group.p95)}</b></span>
        <span>max <b>${ms(group.max)}</b></span>
      </span>
    </td>
  </tr>`;
}

export interface HttpTabProps {
  /** The capture's id, for its HAR download. */
  captureId: string;
  rows: HttpRow[];
  dropped: number;
  /** Row to unfold on arrival (from the timeline). */
  focus: number | null;
  /** Row → the kind of the finding opened above, for the rows it names. */
  flags?: ReadonlyMap<number, FindingKind[]>;
}

/** The HTTP tab: every call, grouped or not, each unfolding to its detail. */
export function HttpTab({ captureId, rows, dropped, focus, flags }: HttpTabProps) {
  const [by, setBy] = useState<GroupBy>('none');
  const [text, setText] = useState('');
  const [failedOnly, setFailedOnly] = useState(false);
  const [open, setOpen] = useState<Set<number>>(() => new Set(focus === null ? [] : [focus]));
  const [folded, setFolded] = useState<Set<string>>(new Set());

  const [sort, setSort] = useState<SortState | null>(null);
  const visible = useMemo(() => sortRows(rows, filterRows(rows, text, failedOnly), sort), [rows, text, failedOnly, sort]);
  const groups = useMemo(() => (by === 'none' ? null : groupRows(rows, visible, by)), [rows, visible, by]);
  const maxDuration = useMemo(() => rows.reduce((max, row) => Math.max(max, row.duration ?? 0), 0), [rows]);
  const failedCount = useMemo(() => rows.filter((row) => row.failed).length, [rows]);

  const toggle = (index: number) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(index)) next.delete(index);
      else next.add(index);
      return next;
    });
  const fold = (key: string) =>
    setFolded((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const renderRow = (index: number) =>
    html`<${CallRow} key=${index} row=${rows[index]!} index=${index} open=${open.has(index)} maxDuration=${maxDuration} onToggle=${toggle} focused=${index === focus} flags=${flags?.get(index)} />`;

  // One flat keyed list (headers and rows side by side), so regrouping moves row nodes instead of re-creating them.
  const items = groups
    ? groups.flatMap((group) => [
        html`<${GroupHeader} key=${`g:${group.key}`} group=${group} by=${by} folded=${folded.has(group.key)} onFold=${() => fold(group.key)} />`,
        ...(folded.has(group.key) ? [] : group.rows.map(renderRow)),
      ])
    : visible.map(renderRow);

  const viewKey = `${by}\u0000${text}\u0000${failedOnly}\u0000${sort ? `${sort.key}:${sort.dir}` : ''}`;
  // A header click sorts by that column; a second click reverses it; a third goes back to call order.
  const sortBy = (key: SortKey) =>
    setSort((current) =>
      current?.key !== key
        ? { key, dir: key === 'duration' || key === 'sent' || key === 'received' ? 'desc' : 'asc' }
        : current.dir === (key === 'duration' || key === 'sent' || key === 'received' ? 'desc' : 'asc')
          ? { key, dir: current.dir === 'asc' ? 'desc' : 'asc' }
          : null,
    );
  const header = (key: SortKey, label: string, numeric = false, title?: string) =>
    html`<th class=${`sortable ${numeric ? 'num' : ''}`} data-testid=${`sort-${key}`} title=${title ?? `Sort by ${label.toLowerCase()}`} aria-sort=${sort?.key === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'} onClick=${() => sortBy(key)}>${label}${sort?.key === key ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}</th>`;
  const [progress, setProgress] = useState({ key: viewKey, limit: CHUNK });
  const limit = progress.key === viewKey ? progress.limit : CHUNK;
  useEffect(() => {
    if (limit >= items.length) return;
    const frame = requestAnimationFrame(() => setProgress({ key: viewKey, limit: limit + CHUNK }));
    return () => cancelAnimationFrame(frame);
  }, [viewKey, limit, items.length]);

  if (rows.length === 0) return html`<div class="empty">No outgoing HTTP calls in this capture.</div>`;

  return html`<div class="http-tab" data-testid="http-tab">
    <div class="toolbar">
      <div class="segmented" role="group" aria-label="Group by">
        <span class="seg-label">Group by</span>
        ${GROUPINGS.map(
          (g) =>
            html`<button type="button" class=${by === g.value ? 'active' : ''} data-testid=${`group-${g.value}`} onClick=${() => setBy(g.value)}>${g.label}</button>`,
        )}
      </div>
      <label class="check"><input type="checkbox" checked=${failedOnly} onChange=${(e: Event) => setFailedOnly((e.target as HTMLInputElement).checked)} /> Failed only (${String(failedCount)})</label>
      <input class="search" type="search" placeholder="Filter calls…" value=${text} data-testid="http-filter" onInput=${(e: Event) => setText((e.target as HTMLInputElement).value)} />
      <a class="btn btn-small har" href=${`/api/captures/${encodeURIComponent(captureId)}/har`} download=${`probe-${captureId}.har`} data-testid="download-har" title="Every call of this capture as HAR 1.2, for DevTools and HAR viewers">Download HAR</a>
      <span class="mock-downloads" title="Every call of this capture as mocks that replay it offline (as probe export --msw, --nock, --undici-snapshot)">
        <span class="seg-label">Mocks</span>
        ${(Object.keys(MOCK_FILES) as MockFormat[]).map(
          (format) =>
            html`<a class="btn btn-small mock" href=${`/api/captures/${encodeURIComponent(captureId)}/mocks/${format}`} download=${`probe-${captureId}${MOCK_FILES[format].suffix}`} data-testid=${`download-${format}`}>${MOCK_FILES[format].label}</a>`,
        )}
      </span>
      <span class="muted small">${visible.length === rows.length ? `${rows.length} calls` : `${visible.length} of ${rows.length} calls`}${dropped ? ` · ${dropped} more not kept (max_rows)` : ''}</span>
    </div>
    <table class="calls">
      <colgroup>
        <col class="c-num" /><col class="c-method" /><col class="c-status" /><col /><col class="c-bytes" /><col class="c-bytes" /><col class="c-pool" /><col class="c-dur" /><col class="c-code" />
      </colgroup>
      <thead><tr>
        ${header('row', 'Row', true, 'Row index, as in probe rows and probe show')}${header('method', 'Method')}${header('status', 'Status')}${header('url', 'URL')}${header('sent', 'Sent', true)}${header('received', 'Received', true)}${header('pool', 'Pool', true)}${header('duration', 'Duration', true)}${header('code', 'Code')}
      </tr></thead>
      <tbody>
        ${items.length > limit ? items.slice(0, limit) : items}
      </tbody>
    </table>
  </div>`;
}
