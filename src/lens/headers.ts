/** undici 6 gives request headers as one `name: value\r\n` string, undici 7 as a flat [name, value, …] array. */
export function undiciRequestHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: string, value: string) => {
    const key = name.trim().toLowerCase();
    if (!key) return;
    out[key] = key in out ? `${out[key]}, ${value}` : value;
  };
  if (typeof headers === 'string') {
    for (const line of headers.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) add(line.slice(0, colon), line.slice(colon + 1).trim());
    }
  } else if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const value = headers[i + 1];
      add(String(headers[i]), Array.isArray(value) ? value.join(', ') : String(value));
    }
  }
  return out;
}

/** Response headers from undici's channels: a flat array of Buffers. */
export function undiciResponseHeaders(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(raw)) return out;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = String(raw[i]).toLowerCase();
    const value = String(raw[i + 1]);
    out[name] = name in out ? (name === 'set-cookie' ? `${out[name]}, ${value}` : `${out[name]}, ${value}`) : value;
  }
  return out;
}

export function fetchHeaders(headers: { forEach(cb: (value: string, name: string) => void): void }): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}
