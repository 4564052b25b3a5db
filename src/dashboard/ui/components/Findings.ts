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
};

/** Row links shown per finding; the rest are counted. */
const ROW_LINKS = 20;

/** Row → the kinds of the findings that name it (for the marks on the HTTP tab's rows). */
export function findingFlags(findings: readonly Finding[]): Map<number, FindingKind[]> {
  const flags = new Map<number, FindingKind[]>();
  for (const finding of findings) {
    for (const row of finding.rows) {
      const kinds = flags.get(row) ?? [];
      if (!kinds.includes(finding.kind)) kinds.push(finding.kind);
      flags.set(row, kinds);
    }
  }
  return flags;
}

/** The capture's findings under its header: what each is, its rows (links to the HTTP tab) and code lines. */
export function FindingsPanel({ captureId, findings }: { captureId: string; findings: readonly Finding[] }) {
  if (findings.length === 0) return null;
  return html`<section class="card findings" data-testid="findings">
    <h3>Findings <span class="count">${String(findings.length)}</span> <span class="muted small">wasteful calls, read from this capture</span></h3>
    <ul class="finding-list">
      ${findings.map(
        (finding) => html`<li class="finding" data-testid="finding" data-kind=${finding.kind}>
          <span class="tag tag-warn">${FINDING_LABELS[finding.kind]}</span>
          <span class="finding-message" data-testid="finding-message">${finding.message}</span>
          <div class="finding-refs small">
            <span class="muted">rows</span>
            ${finding.rows.slice(0, ROW_LINKS).map((row) => html` <a class="mono" href=${captureHref(captureId, 'http', row)} data-testid="finding-row">${String(row)}</a>`)}
            ${finding.rows.length > ROW_LINKS ? html` <span class="muted">… ${String(finding.rows.length - ROW_LINKS)} more</span>` : null}
            ${finding.lines.length ? html` <span class="muted">· code</span> ${finding.lines.map((line) => html` <span class="mono" data-testid="finding-line">${line}</span>`)}` : null}
          </div>
        </li>`,
      )}
    </ul>
  </section>`;
}
