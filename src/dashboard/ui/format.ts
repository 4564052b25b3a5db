/** Display helpers. Pure. */

export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (value >= 60_000) return `${(value / 60_000).toFixed(1)} min`;
  if (value >= 1000) return `${(value / 1000).toFixed(value >= 10_000 ? 1 : 2)} s`;
  if (value >= 100) return `${Math.round(value)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

export function bytes(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KB`;
  return `${(value / 1024 / 1024).toFixed(1)} MB`;
}

export function clockTime(epochSeconds: number): string {
  const date = new Date(epochSeconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

export function fullTime(epochSeconds: number): string {
  const date = new Date(epochSeconds * 1000);
  return `${date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' })} ${clockTime(epochSeconds)}`;
}

export function ago(epochSeconds: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round(now / 1000 - epochSeconds));
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

export type Tone = 'ok' | 'redirect' | 'warn' | 'error' | 'muted';

/** Colour of an HTTP status; null (no response) is an error. */
export function statusTone(status: number | null): Tone {
  if (status === null) return 'error';
  if (status >= 500) return 'error';
  if (status >= 400) return 'warn';
  if (status >= 300) return 'redirect';
  return 'ok';
}

/** Colour of a capture status: an HTTP code for requests, `done`/`failed` for jobs, an exit code for commands, `passed`/`failed` for tests. */
export function captureStatusTone(type: string, status: string): Tone {
  if (type === 'request') return /^\d+$/.test(status) ? statusTone(Number(status)) : 'muted';
  if (type === 'job') return status === 'done' ? 'ok' : status === 'failed' ? 'error' : 'muted';
  if (type === 'test') return status === 'passed' ? 'ok' : status === 'failed' ? 'error' : 'muted';
  return status === '0' ? 'ok' : 'error';
}

/** JSON text pretty-printed when it parses; other text unchanged. */
export function prettyBody(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** `https://api.example.com:8443/v1/users?x=1` → its parts for display; falls back to the whole text. */
export function splitUrl(url: string): { origin: string; rest: string } {
  const match = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(.*)$/i.exec(url);
  return match ? { origin: match[1]!, rest: match[2] || '/' } : { origin: '', rest: url };
}
