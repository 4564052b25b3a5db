import type { CallChange, CallRef, DiffResult, DiffSide } from './Diff';
import type { FieldChange } from './jsonChanges';
import type { Finding } from '../findings/Finding';
import { terminalLines, terminalText } from '../util/terminalText';

/** `probe diff`'s text and the findings' lines, for people (the same data as `--json`). */

function inline(value: unknown): string {
  return terminalText(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
}

function sideText(side: DiffSide): string {
  const what = side.baseline !== undefined ? `baseline ${inline(side.baseline)} = ${side.id}` : side.id;
  return `${what} (${inline(side.name)}, ${inline(side.status)}, ${side.calls} call${side.calls === 1 ? '' : 's'})`;
}

export function callText(call: CallRef): string {
  return `${call.method} ${inline(call.url)}  ${call.status ?? 'no response'}${call.line ? `  ${inline(call.line)}` : ''}  (row ${call.row})`;
}

function fieldLines(label: string, changes: FieldChange[] | undefined): string[] {
  return (changes ?? []).map((change) => {
    const before = 'before' in change ? inline(change.before) : '(absent)';
    const after = 'after' in change ? inline(change.after) : '(absent)';
    return `    ${label} ${inline(change.path)}: ${before} → ${after}`;
  });
}

export function changeLines(change: CallChange): string[] {
  const out = [`~ changed ${inline(change.endpoint)}${change.line ? `  ${inline(change.line)}` : ''}  (row ${change.before_row} → ${change.after_row})`];
  if (change.url) out.push(`    url: ${inline(change.url.before)} → ${inline(change.url.after)}`);
  if (change.status) out.push(`    status: ${change.status.before ?? 'no response'} → ${change.status.after ?? 'no response'}`);
  if (change.grpc_status) out.push(`    gRPC status: ${inline(change.grpc_status.before ?? 'none')} → ${inline(change.grpc_status.after ?? 'none')}`);
  if (change.exception) out.push(`    failure: ${inline(change.exception.before ?? 'none')} → ${inline(change.exception.after ?? 'none')}`);
  if (change.duration) out.push(`    duration: ${change.duration.before} ms → ${change.duration.after} ms`);
  out.push(
    ...fieldLines('request header', change.request_headers),
    ...fieldLines('request', change.request_payload),
    ...fieldLines('response', change.response),
  );
  return out;
}

/** `probe diff`'s lines (each escaped whole when printed: see terminalLines). */
export function diffLines(result: DiffResult): string[] {
  const out = [sideText(result.before), `  → ${sideText(result.after)}`];
  out.push(`durations compared with a threshold of ${result.threshold.ms} ms and ${result.threshold.percent} %`);
  out.push('');
  if (result.status) out.push(`status: ${inline(result.status.before)} → ${inline(result.status.after)}`);
  for (const call of result.removed) out.push(`- removed ${callText(call)}`);
  for (const call of result.added) out.push(`+ added   ${callText(call)}`);
  for (const repeat of result.repeated) out.push(`= ${inline(repeat.endpoint)}: ${repeat.before} calls before, ${repeat.after} after`);
  for (const change of result.changed) out.push(...changeLines(change));
  if (out[out.length - 1] !== '') out.push('');
  out.push(
    `${result.matched} calls aligned, ${result.added.length} added, ${result.removed.length} removed, ${result.changed.length} changed: ${result.same ? 'same' : 'different'}`,
  );
  return out;
}

export function renderDiff(result: DiffResult): string {
  return terminalLines(diffLines(result));
}

/** One finding as lines: what, then its rows and code lines. */
export function findingLines(finding: Finding): string[] {
  const rows = finding.rows.length > 12 ? `${finding.rows.slice(0, 12).join(', ')}, … (${finding.rows.length} rows)` : finding.rows.join(', ');
  return [
    `  ${inline(finding.message)}`,
    `    rows ${rows}${finding.lines.length ? `; code ${finding.lines.map(inline).join(', ')}` : ''}${costText(finding)}`,
  ];
}

/** What a finding costs, as `probe show` states it (`cost` is missing in findings made by an older reader). */
function costText(finding: Finding): string {
  const cost = finding.cost;
  if (!cost) return '';
  const parts = [`${cost.ms} ms`];
  if (cost.calls) parts.push(`${cost.calls} call${cost.calls === 1 ? '' : 's'}`);
  if (cost.bytes) parts.push(`${cost.bytes} bytes`);
  return `; costs ${parts.join(', ')}${finding.below_floor ? ' (under the floor)' : ''}`;
}
