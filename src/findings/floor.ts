import type { Finding, FindingKind } from './Finding';

/**
 * The floor under which a finding whose only cost is time is not shown by default: it must cost at least
 * FLOOR_MS and at least FLOOR_SHARE of the unit's duration (2 ms saved in a 300 ms request is not worth a
 * change). Findings about behaviour (a write repeated, a retry, an N+1's extra calls) are shown whatever their time.
 */
export const FINDING_FLOOR = Object.freeze({ ms: 20, share: 0.05 });

const TIME_ONLY: ReadonlySet<FindingKind> = new Set(['sequential', 'duplicate', 'slow']);
/** Kinds that name a pattern without advice (polling): nothing to save, so listed only when every finding is asked for. */
const NAMED_ONLY: ReadonlySet<FindingKind> = new Set(['polling']);

/** Marks the findings under the floor and orders them: a repeated write first, then by time, calls, bytes, first row. */
export function weighFindings(findings: Finding[], unitMs: number, position: (row: number) => number): Finding[] {
  const floor = Math.max(FINDING_FLOOR.ms, FINDING_FLOOR.share * (Number.isFinite(unitMs) ? unitMs : 0));
  for (const finding of findings) {
    if ((TIME_ONLY.has(finding.kind) && finding.cost.ms < floor) || NAMED_ONLY.has(finding.kind)) finding.below_floor = true;
  }
  return findings.sort(
    (a, b) =>
      Number(b.kind === 'repeated_write') - Number(a.kind === 'repeated_write') ||
      b.cost.ms - a.cost.ms ||
      b.cost.calls - a.cost.calls ||
      b.cost.bytes - a.cost.bytes ||
      position(a.rows[0]!) - position(b.rows[0]!),
  );
}

/** The findings shown by default, and how many were left under the floor. */
export function shownFindings(findings: readonly Finding[]): { shown: Finding[]; hidden: number } {
  const shown = findings.filter((finding) => !finding.below_floor);
  return { shown, hidden: findings.length - shown.length };
}
