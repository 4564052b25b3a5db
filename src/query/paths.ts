/** Dotted field names (`exception.message`, `timing.wait`, `request_headers.content-type`) over plain records. */

const MISSING = undefined;

/** The value at a dotted path; array elements by number (`origin.chain.0`). Missing → undefined. */
export function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return MISSING;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * Dotted names of the fields seen in these rows: every top-level key, and the keys of nested objects one
 * level down (`timing.wait`, `exception.message`), which is what agents filter on.
 */
export function fieldsOf(rows: readonly unknown[], known: readonly string[] = []): string[] {
  const seen = new Set<string>(known);
  for (const row of rows) {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) continue;
    for (const [key, value] of Object.entries(row)) {
      seen.add(key);
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && !isMapField(key)) {
        for (const sub of Object.keys(value)) seen.add(`${key}.${sub}`);
      }
    }
  }
  return [...seen];
}

/** Fields whose keys are data (header names, payload fields), not a fixed shape: listed once, not per key. */
function isMapField(key: string): boolean {
  return /headers$|payload$|formats$|^response_capture$|^meta$/.test(key);
}

/** The first segment of a dotted name: `exception.message` → `exception`. */
export function rootOf(field: string): string {
  const dot = field.indexOf('.');
  return dot === -1 ? field : field.slice(0, dot);
}
