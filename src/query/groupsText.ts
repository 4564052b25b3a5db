import type { GroupsResult } from './groups';
import { clipString } from './clip';
import { terminalLines } from '../util/terminalText';

/** `probe rows --group-by`: one table line per group, for people (the same data as `--json`). */

const KEY_WIDTH = 80;

/** A key as one terminal-safe line: control characters shown as escapes, never sent to the terminal. */
function keyText(key: unknown): string {
  if (key === null || key === undefined) return '(none)';
  const text = typeof key === 'string' ? key : JSON.stringify(key);
  const safe = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return clipString(safe, KEY_WIDTH);
}

function ms(value: number | null): string {
  return value === null ? '-' : `${value}ms`;
}

function bytes(value: number): string {
  if (value < 1024) return `${value}B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)}KB`;
  return `${(value / 1024 / 1024).toFixed(1)}MB`;
}

function time(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(11, 23);
}

export function renderGroups(result: GroupsResult): string {
  const out: string[] = [];
  if (result.capture) out.push(`capture ${result.capture.id}  ${result.capture.type}  ${result.capture.name}  (${result.capture.status})`);
  if (result.groups.length) {
    const headers = [result.group_by.toUpperCase(), 'COUNT', 'FAILED', 'P50', 'P95', 'MAX', 'BYTES', 'FIRST (UTC)', 'LAST (UTC)', 'EXAMPLE'];
    const rows = result.groups.map((group) => [
      keyText(group.key),
      String(group.count),
      group.failed ? String(group.failed) : '',
      ms(group.p50),
      ms(group.p95),
      ms(group.max),
      bytes(group.bytes),
      time(group.first),
      time(group.last),
      `${group.example.capture_id} row ${group.example.row}`,
    ]);
    const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]!.length)));
    const line = (cells: readonly string[]) =>
      cells
        .map((text, i) => (i === cells.length - 1 ? text : text.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd();
    out.push(line(headers), ...rows.map(line));
  }
  const where = result.captures !== undefined ? `in ${result.captures} captures` : 'in the section';
  out.push(
    `${result.returned} of ${result.group_count} groups by ${result.group_by} over ${result.matched} matching ${result.section} rows (${result.total} ${where})`,
  );
  if (result.note) out.push(result.note);
  return terminalLines(out);
}
