import { useState } from 'preact/hooks';
import type { Finding, FindingKind } from '../../../findings/Finding';
import { html } from '../html';
import { captureHref } from '../router';

export const FINDING_LABELS: Readonly<Record<FindingKind, string>> = {
  repeated_write: 'Repeated write',
  n_plus_one: 'N+1',
  duplicate: 'Duplicate',
  sequential: 'Sequential',
  retry: 'Retry',
  slow: 'Slow',
  polling: 'Polling',
};

/** Row links shown per finding; the rest are counted. */
const ROW_LINKS = 20;
/** Whether the panel was left unfolded, kept across captures and reloads. */
const PANEL_KEY = 'probe.findings.open';

/**
 * Row → the kind of the finding the user opened, for the marks on the HTTP tab's rows. Only that finding's
 * rows: a mark on every row some finding names would stand on nearly every row and say nothing.
 */
export function findingFlags(findings: readonly Finding[], opened: number | null): Map<number, FindingKind[]> {
  const flags = new Map<number, FindingKind[]>();
  const finding = opened === null ? undefined : findings[opened];
  for (const row of finding?.rows ?? []) flags.set(row, [finding!.kind]);
  return flags;
}

/** "N+1, Duplicate ×2": the kinds found, for the folded panel's title line and the captures list. */
export function kindsText(kinds: readonly FindingKind[]): string {
  const counts = new Map<FindingKind, number>();
  for (const kind of kinds) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => `${FINDING_LABELS[kind]}${count > 1 ? ` ×${count}` : ''}`).join(', ');
}

function storedOpen(): boolean {
  try {
    return localStorage.getItem(PANEL_KEY) === '1';
  } catch {
    return false;
  }
}

/**
 * The capture's findings under its header, folded to one line by default. Opening a finding marks its rows on
 * the HTTP tab (and only those); its row links open the tab at that call.
 */
export function FindingsPanel({
  captureId,
  findings,
  opened,
  onOpen,
}: {
  captureId: string;
  findings: readonly Finding[];
  opened: number | null;
  onOpen: (index: number | null) => void;
}) {
  const [unfolded, setUnfolded] = useState(storedOpen);
  if (findings.length === 0) return null;
  const toggle = (event: Event) => {
    const open = (event.currentTarget as HTMLDetailsElement).open;
    setUnfolded(open);
    try {
      localStorage.setItem(PANEL_KEY, open ? '1' : '0');
    } catch {
      // storage refused (private window): the panel still folds, only not remembered
    }
  };
  return html`<details class="card findings" data-testid="findings" open=${unfolded || opened !== null} onToggle=${toggle}>
    <summary data-testid="findings-summary">
      <h3>Findings <span class="count">${String(findings.length)}</span></h3>
      <span class="muted small">${kindsText(findings.map((finding) => finding.kind))} · open one to mark its calls on the HTTP tab</span>
    </summary>
    <ul class="finding-list">
      ${findings.map((finding, index) => {
        const isOpen = opened === index;
        return html`<li class=${`finding ${isOpen ? 'opened' : ''}`} data-testid="finding" data-kind=${finding.kind} data-open=${isOpen ? 'true' : 'false'}>
          <button type="button" class="finding-open" data-testid="finding-open" aria-pressed=${isOpen} title=${isOpen ? 'Clear the marks' : 'Mark these calls on the HTTP tab'} onClick=${() => onOpen(isOpen ? null : index)}>
            <span class="tag tag-warn">${FINDING_LABELS[finding.kind]}</span>
            <span class="finding-message" data-testid="finding-message">${finding.message}</span>
          </button>
          <div class="finding-refs small">
            <span class="muted">rows</span>
            ${finding.rows
              .slice(0, ROW_LINKS)
              .map(
                (row) =>
                  html` <a class="mono" href=${captureHref(captureId, 'http', row)} data-testid="finding-row" onClick=${() => onOpen(index)}>${String(row)}</a>`,
              )}
            ${finding.rows.length > ROW_LINKS ? html` <span class="muted">… ${String(finding.rows.length - ROW_LINKS)} more</span>` : null}
            ${finding.lines.length ? html` <span class="muted">· code</span> ${finding.lines.map((line) => html` <span class="mono" data-testid="finding-line">${line}</span>`)}` : null}
            ${isOpen ? html` <span class="muted" data-testid="finding-marked">· ${String(finding.rows.length)} marked on the HTTP tab</span>` : null}
          </div>
        </li>`;
      })}
    </ul>
  </details>`;
}
