import type { IndexRow } from '../capture/types';
import type { ListResult } from './list';
import type { BaselineEntry } from '../baselines/types';
import type { RowsResult } from './rows';
import type { ShowResult, ShownRow, ShownRows } from './show';
import { clipString } from './clip';
import { getPath } from './paths';
import { terminalLines, terminalText } from '../util/terminalText';
import { exitStatusText } from './exitStatus';
import { diffLines, findingLines } from '../diff/diffText';
import { FINDING_FLOOR } from '../findings/floor';
import { WIDEN_ANY, WIDEN_SINCE } from './unread';
import { grpcStatusText } from '../builder/grpcStatusText';

/** Readable renderings of query results for the CLI (the same data as `--json`, for people). */

const CELL = 80;

/** Recorded text inside a line of ours: a newline in it would fake a line (the CLI's edge escapes the rest). */
function inline(value: unknown): string {
  return terminalText(String(value));
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return clipString(terminalText(text.replace(/\s+/g, ' ')), CELL);
}

/** Columns padded to their widest cell; the last column is not padded. */
function renderTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((text, i) => (i === cells.length - 1 ? text : text.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers.map((header) => inline(header.toUpperCase()))), ...rows.map(line)];
}

function timeText(epochSeconds: number | undefined): string {
  if (typeof epochSeconds !== 'number' || !Number.isFinite(epochSeconds)) return '-';
  return new Date(epochSeconds * 1000).toISOString().replace('T', ' ').slice(0, 19);
}

function ms(value: unknown): string {
  return typeof value === 'number' ? `${Math.round(value * 10) / 10}ms` : '-';
}

/** A capture's status for people: a command's as an exit code, any other as recorded. */
function statusText(type: string | undefined, status: unknown): string {
  const text = inline(status);
  return type === 'command' ? exitStatusText(text) : text;
}

/** Row fields that hold milliseconds: shown with their unit, as every other duration the CLI prints. */
const MS_FIELDS = new Set(['duration', 'time', 'timing.dns', 'timing.connect', 'timing.tls', 'timing.wait', 'timing.download', 'timing.redirect']);

function fieldCell(field: string, value: unknown): string {
  return MS_FIELDS.has(field) && typeof value === 'number' ? ms(value) : cell(value);
}

/** A row's cell; a gRPC call's status is its HTTP status with its gRPC one (`200 gRPC 5 NOT_FOUND`), when the row has both. */
function rowCell(row: Record<string, unknown>, column: string): string {
  const value = valueOf(row, column);
  const grpc = row.grpc_status as { code?: unknown; name?: unknown } | null | undefined;
  if (column === 'status' && grpc && typeof grpc.code === 'number' && typeof grpc.name === 'string')
    return cell(`${String(value)} ${grpcStatusText({ code: grpc.code, name: grpc.name })}`);
  return fieldCell(column, value);
}

/**
 * A query's note as the CLI says it: the notes are written once for the agent tools and name them; here each
 * names the command and flags that do the same.
 */
export function cliNote(note: string): string {
  return note
    .replace(WIDEN_ANY, "give the id '*' (probe rows '*') to read every stored capture, or --since 1h for the last hour")
    .replace(WIDEN_SINCE, "give a longer --since, or the id '*' for every stored capture")
    .replace('add "id": "*" to read them', "give the id '*' to read them")
    .replace('probe-show with section and row for one whole row', 'probe show <id> --section <name> --row <n> for one whole row')
    .replace(/probe-rows with id (\S+) and a section, filtered and sorted/, 'probe rows $1 --section <name> with --where and --sort')
    .replace(/\bprobe-(list|show|rows)\b/g, 'probe $1');
}

export function renderList(result: ListResult & { baselines?: BaselineEntry[] }): string {
  const withFindings = result.captures.some((row) => 'findings' in row);
  // A store several services share: each row says whose it is.
  const withService = new Set(result.captures.map((row) => row.service)).size > 1;
  const rows = result.captures.map((row: IndexRow & { findings?: number }) => [
    row.id,
    ...(withService ? [cell(row.service ?? '')] : []),
    row.type,
    statusText(row.type, row.status),
    ms(row.duration),
    String(row.counts?.http ?? 0),
    row.errors ? String(row.errors) : '',
    ...(withFindings ? [row.findings ? String(row.findings) : ''] : []),
    timeText(row.started_at),
    cell(row.name),
  ]);
  const headers = [
    'id',
    ...(withService ? ['service'] : []),
    'type',
    'status',
    'duration',
    'http',
    'errors',
    ...(withFindings ? ['findings'] : []),
    'started (utc)',
    'name',
  ];
  const out: string[] = rows.length ? renderTable(headers, rows) : [];
  if (result.groups?.length) {
    const groups = result.groups.map((group) => [
      cell(group.route ?? '(no route)'),
      String(group.captures),
      group.with_errors ? String(group.with_errors) : '',
      ms(group.avg_duration),
      ms(group.max_duration),
      group.latest_id,
    ]);
    out.unshift(...renderTable(['route', 'captures', 'errors', 'avg', 'max', 'latest'], groups), '');
  }
  out.push(`${result.returned} of ${result.matched} matching captures (${result.total} stored)`);
  if (result.baselines?.length) {
    const baselines = result.baselines.map((entry) => [
      entry.name,
      entry.id,
      entry.type,
      String(entry.calls),
      timeText(entry.saved_at),
      cell(entry.capture_name),
    ]);
    out.push('', ...renderTable(['baseline', 'id', 'type', 'http', 'saved (utc)', 'name'], baselines));
  }
  if (result.note) out.push(cliNote(result.note));
  return terminalLines(out);
}

/** Columns shown when no fields are listed: the ones a person scans first. */
const DEFAULT_COLUMNS: Record<string, string[]> = {
  http: ['method', 'status', 'duration', 'url', 'exception.message'],
};

function columnsOf(section: string, rows: ReadonlyArray<Record<string, unknown>>, fields: readonly string[] | undefined): string[] {
  if (fields?.length) return fields.filter((field) => !LEADING.includes(field));
  if (DEFAULT_COLUMNS[section]) return DEFAULT_COLUMNS[section]!;
  const first = rows[0] ?? {};
  return Object.keys(first).filter((key) => !LEADING.includes(key) && (first[key] === null || typeof first[key] !== 'object'));
}

/** Picked fields are stored under their dotted names; whole rows hold nested objects. */
function valueOf(row: Record<string, unknown>, field: string): unknown {
  return field in row ? row[field] : getPath(row, field);
}

/** Where a row is: shown first, whatever the fields (across captures, which capture it belongs to). */
const LEADING = ['capture_id', 'capture_name', 'row'];

function rowsTable(section: string, rows: ReadonlyArray<Record<string, unknown>>, fields?: readonly string[]): string[] {
  const columns = columnsOf(section, rows, fields);
  const across = rows.some((row) => 'capture_id' in row);
  const leading = across ? ['capture_id', 'capture_name', 'row'] : ['row'];
  return renderTable(
    [...leading.map((column) => (column === 'capture_id' ? 'capture' : column === 'capture_name' ? 'name' : column)), ...columns],
    rows.map((row) => [...leading.map((column) => cell(row[column])), ...columns.map((column) => rowCell(row, column))]),
  );
}

export function renderRows(result: RowsResult, fields?: readonly string[]): string {
  const out: string[] = [];
  if (result.capture) out.push(`capture ${result.capture.id}  ${result.capture.type}  ${inline(result.capture.name)}  (${inline(result.capture.status)})`);
  if (result.rows.length) out.push(...rowsTable(result.section, result.rows, fields));
  const where = result.captures !== undefined ? `in ${result.captures} captures, newest first` : 'in the section';
  out.push(`${result.returned} of ${result.matched} matching ${result.section} rows (${result.total} ${where})`);
  if (result.note) out.push(cliNote(result.note));
  return terminalLines(out);
}

export function renderShow(result: ShowResult | ShownRow): string {
  if (!result.id) return result.note ? cliNote(result.note) : 'no capture';
  if ('data' in result) return renderRow(result);
  const out: string[] = [];
  const status = result.type === 'command' ? statusText(result.type, result.status) : `status ${inline(result.status)}`;
  out.push(`${result.id}  ${result.type}  ${inline(result.name)}  ${status}  ${ms(result.duration)}`);
  const details = [`started ${timeText(result.started_at)} utc`, `ended by ${result.ended_by}`];
  if (result.label) details.push(`label ${inline(result.label)}`);
  if (result.tags?.length) details.push(`tags ${inline(result.tags.join(', '))}`);
  if (result.parent_id) details.push(`parent ${result.parent_id}`);
  if (result.job_id) details.push(`job id ${inline(result.job_id)}`);
  out.push(details.join('  '));
  const totals = result.summary?.totals;
  if (totals) {
    const hosts = Object.entries(totals.http_by_host)
      .map(([host, calls]) => `${inline(host)} ${calls}`)
      .join(', ');
    out.push(`http: ${totals.http_calls} calls, ${totals.http_failed} failed, ${ms(totals.http_ms)} total (${hosts})`);
  }
  if (result.summary?.errors.length) out.push('errors:', ...result.summary.errors.map((error) => `  ${inline(error)}`));
  if (result.findings?.length) out.push(`findings (${result.findings.length}):`, ...result.findings.flatMap(findingLines));
  if (result.findings_below_floor)
    out.push(
      `${result.findings_below_floor} more finding${result.findings_below_floor === 1 ? '' : 's'} under the floor (${FINDING_FLOOR.ms} ms and ${FINDING_FLOOR.share * 100} % of the capture): probe show --all`,
    );
  if (result.compare)
    out.push(
      '',
      `compared with ${result.compare.before.baseline !== undefined ? 'baseline ' : ''}${inline(result.compare.before.baseline ?? result.compare.before.id)}:`,
      ...indent(diffLines(result.compare)),
    );
  for (const [name, section] of Object.entries(result.sections ?? {})) {
    out.push('');
    if (isShownRows(section)) {
      const cut = section.failed ? `, ${section.shown} shown: the ${section.failed} failed first` : `, first ${section.shown}`;
      out.push(`${inline(name)}: ${section.total} rows${section.shown < section.total ? cut : ''}`);
      if (section.rows.length) out.push(...indent(rowsTable(name, section.rows)));
    } else if (section !== null && typeof section === 'object') {
      out.push(`${inline(name)}:`);
      for (const [key, value] of Object.entries(section)) out.push(`  ${inline(key)}: ${cell(value)}`);
    } else out.push(`${inline(name)}: ${cell(section)}`);
  }
  return terminalLines(out);
}

function isShownRows(value: unknown): value is ShownRows {
  return value !== null && typeof value === 'object' && Array.isArray((value as ShownRows).rows) && typeof (value as ShownRows).total === 'number';
}

function indent(lines: string[]): string[] {
  return lines.map((line) => `  ${line}`);
}

/** One row whole: where it is, then the row as indented JSON (bodies clipped with their marker). */
function renderRow(result: ShownRow): string {
  const out: string[] = [];
  if (result.capture) out.push(`capture ${result.capture.id}  ${result.capture.type}  ${inline(result.capture.name)}  (${inline(result.capture.status)})`);
  out.push(`${result.section} row ${result.row} of ${result.total} (numbered from 0)`);
  // Indented JSON breaks lines only between tokens: a line break inside a string is written `\n`.
  out.push(...JSON.stringify(result.data, null, 2).split('\n'));
  return terminalLines(out);
}
