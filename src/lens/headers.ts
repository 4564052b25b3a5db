/** The request headers of a call that is only counted (past its unit's row cap): none are copied. */
export const NONE_KEPT: Record<string, string> = Object.freeze({});

/**
 * undici 6 gives request headers as one `name: value\r\n` string, undici 7 as a flat [name, value, …] array.
 * Read on every undici request: one pass, no intermediate arrays.
 */
export function undiciRequestHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof headers === 'string') {
    for (let at = 0; at < headers.length;) {
      let end = headers.indexOf('\r\n', at);
      if (end < 0) end = headers.length;
      const colon = headers.indexOf(':', at);
      if (colon > at && colon < end) addHeader(out, headers.slice(at, colon), headers.slice(colon + 1, end).trim());
      at = end + 2;
    }
  } else if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const value = headers[i + 1];
      addHeader(out, String(headers[i]), Array.isArray(value) ? value.join(', ') : String(value));
    }
  }
  return out;
}

function addHeader(out: Record<string, string>, name: string, value: string): void {
  const key = name.trim().toLowerCase();
  if (!key) return;
  const prev = own(out, key);
  out[key] = prev === undefined ? value : `${prev}, ${value}`;
}

/** Response headers from undici's channels: a flat array of Buffers (repeated names joined with `, `). */
export function undiciResponseHeaders(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(raw)) return out;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = text(raw[i]).toLowerCase();
    const value = text(raw[i + 1]);
    const prev = own(out, name);
    out[name] = prev === undefined ? value : `${prev}, ${value}`;
  }
  return out;
}

/** `String(chunk)` without the generic conversion's lookups: a Buffer's own toString is what String() ends in. */
function text(chunk: unknown): string {
  return typeof chunk === 'string' ? chunk : typeof chunk === 'object' && chunk !== null ? (chunk as object).toString() : String(chunk);
}

/** A header set before under this name (not a property every object inherits: `constructor`, `toString`). */
function own(out: Record<string, string>, key: string): string | undefined {
  const value = out[key];
  return typeof value === 'string' && Object.hasOwn(out, key) ? value : undefined;
}

export function fetchHeaders(headers: { forEach(cb: (value: string, name: string) => void): void }): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}
