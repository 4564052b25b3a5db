import { useEffect, useState } from 'preact/hooks';
import type { Capture } from '../../../capture/types';
import { html } from '../html';
import { api } from '../api';
import { fullTime, ms } from '../format';
import { captureHref, type Tab } from '../router';
import { CaptureStatus, TypeBadge } from './Badges';
import { HttpTab } from './HttpTab';
import { Overview } from './Overview';
import { Timeline } from './Timeline';
import type { Finding } from '../../../findings/Finding';
import { FindingsPanel, findingFlags } from './Findings';
import { ComparePanel } from './ComparePanel';
import { SnapshotPanel } from './SnapshotPanel';

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; capture: Capture };

export function CapturePage({ id, tab, row }: { id: string; tab: Tab; row: number | null }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [findings, setFindings] = useState<Finding[]>([]);
  /** The finding whose rows are marked on the HTTP tab (index in `findings`), or none. */
  const [opened, setOpened] = useState<number | null>(null);
  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    setFindings([]);
    setOpened(null);
    // Findings are read apart: the capture shows at once, the marks follow.
    api.findings(id).then(
      (found) => live && setFindings(found),
      () => undefined,
    );
    api.capture(id).then(
      (capture) => live && setState({ kind: 'ready', capture }),
      (error: Error) => live && setState({ kind: 'error', message: error.message }),
    );
    return () => {
      live = false;
    };
  }, [id]);

  if (state.kind === 'loading') return html`<div class="empty">Loading capture…</div>`;
  if (state.kind === 'error')
    return html`<div class="empty" data-testid="capture-error"><p>Cannot show this capture: ${state.message}.</p><p class="muted">It may have been removed by the store's limit.</p><p><a href="#/">Back to captures</a></p></div>`;

  const { capture } = state;
  const rows = capture.sections.http ?? [];
  const tabs: Array<{ value: Tab; label: string; count?: number }> = [
    { value: 'overview', label: 'Overview' },
    { value: 'timeline', label: 'Timeline' },
    { value: 'http', label: 'HTTP', count: rows.length },
    { value: 'compare', label: 'Compare with…' },
  ];
  return html`<div class="capture-page">
    <a class="back" href="#/">← Captures</a>
    <header class="capture-header" data-testid="capture-header">
      <div class="title-line">
        <${TypeBadge} type=${capture.type} />
        <h1 class="mono" data-testid="capture-name">${capture.name}</h1>
        <${CaptureStatus} type=${capture.type} status=${capture.status} />
        ${capture.label ? html`<span class="tag">${capture.label}</span>` : null}
        ${capture.tags.map((tag) => html`<span class="tag tag-muted">${tag}</span>`)}
      </div>
      <div class="sub-line muted">
        <span><b>${ms(capture.duration)}</b></span>
        <span>${fullTime(capture.started_at)}</span>
        <span class="mono small">${capture.id}</span>
        ${findings.length ? html`<span class="tag tag-warn" data-testid="findings-badge">${String(findings.length)} finding${findings.length === 1 ? '' : 's'}</span>` : null}
      </div>
    </header>
    <${FindingsPanel} captureId=${capture.id} findings=${findings} opened=${opened} onOpen=${setOpened} />
    ${capture.type === 'test' ? html`<${SnapshotPanel} key=${capture.id} captureId=${capture.id} />` : null}
    <nav class="tabs" role="tablist">
      ${tabs.map(
        (
          t,
        ) => html`<a role="tab" aria-selected=${t.value === tab} class=${t.value === tab ? 'active' : ''} data-testid=${`tab-${t.value}`} href=${captureHref(capture.id, t.value)}>
          ${t.label}${t.count !== undefined ? html`<span class="count">${String(t.count)}</span>` : null}
        </a>`,
      )}
    </nav>
    <div class="tab-body">
      ${tab === 'overview' ? html`<${Overview} capture=${capture} />` : null}
      ${tab === 'timeline' ? html`<${Timeline} capture=${capture} onOpenRow=${(index: number) => (location.hash = captureHref(capture.id, 'http', index))} />` : null}
      ${tab === 'http' ? html`<${HttpTab} key=${`${capture.id}:${row ?? ''}`} captureId=${capture.id} rows=${rows} dropped=${capture.summary.dropped_rows ?? 0} focus=${row} flags=${findingFlags(findings, opened)} />` : null}
      ${tab === 'compare' ? html`<${ComparePanel} capture=${capture} />` : null}
    </div>
  </div>`;
}
