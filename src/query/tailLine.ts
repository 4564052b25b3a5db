import type { Capture, HttpRow } from '../capture/types';
import { grpcStatusText } from '../builder/grpcStatusText';

/** One stored row as `probe tail` prints it: a line for people, or a JSON line for programs. */

/** Control characters (an app-supplied URL or name may hold them) shown as escapes, never sent to the terminal. */
function safe(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** When the call started, epoch seconds. */
export function rowStart(capture: Capture, row: HttpRow): number {
  return capture.started_at + (typeof row.time === 'number' ? row.time : 0) / 1000;
}

/** `12:04:05.120  GET /orders/42  POST  502  800ms  https://payments.test/charge  src/payments.js:27` (UTC time). */
export function tailText(capture: Capture, row: HttpRow): string {
  const time = new Date(rowStart(capture, row) * 1000).toISOString().slice(11, 23);
  const status =
    row.status === null
      ? `failed${row.exception?.message ? ` (${row.exception.message})` : ''}`
      : `${row.status}${row.grpc_status ? ` ${grpcStatusText(row.grpc_status)}` : ''}`;
  const duration = typeof row.duration === 'number' ? `${Math.round(row.duration * 10) / 10}ms` : '-';
  const code = row.origin ? `${row.origin.file}:${row.origin.line}` : '-';
  return [time, capture.name, row.method, status, duration, row.url, code].map((part) => safe(String(part))).join('  ');
}

/** The row whole, after where it came from and when it started (ISO). */
export function tailJson(capture: Capture, row: HttpRow, index: number): string {
  return JSON.stringify({
    at: new Date(rowStart(capture, row) * 1000).toISOString(),
    capture_id: capture.id,
    capture_name: capture.name,
    capture_type: capture.type,
    row: index,
    ...row,
  });
}
