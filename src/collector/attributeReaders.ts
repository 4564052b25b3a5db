import type { AttributeValue, Attributes } from './model';

/** The first of `keys` holding a non-empty string. */
export function str(attributes: Attributes, ...keys: string[]): string | null {
  for (const key of keys) {
    const value = attributes[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/**
 * The first of `keys` holding a finite number (numeric strings count: int64 values may arrive as strings; so
 * does a one-element string array, the shape of a recorded header such as `content-length`).
 */
export function num(attributes: Attributes, ...keys: string[]): number | null {
  for (const key of keys) {
    const raw = attributes[key];
    const value = Array.isArray(raw) && raw.length === 1 ? raw[0] : raw;
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n === 'number' && Number.isFinite(n)) return n;
  }
  return null;
}

export function bool(attributes: Attributes, key: string): boolean | null {
  const value = attributes[key];
  return typeof value === 'boolean' ? value : null;
}

export function strings(attributes: Attributes, key: string): string[] | null {
  const value = attributes[key];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return null;
  return value.filter((item): item is string => typeof item === 'string');
}

/**
 * Headers recorded as `<prefix><name>` attributes (`http.request.header.content-type: ["application/json"]`,
 * a string array per the conventions; a plain string is accepted).
 */
export function headers(attributes: Attributes, prefix: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(prefix) || key.length === prefix.length) continue;
    const name = key.slice(prefix.length).toLowerCase().replace(/_/g, '-');
    const values = Array.isArray(value)
      ? value.map(scalarText).filter((v): v is string => v !== null)
      : [scalarText(value)].filter((v): v is string => v !== null);
    if (values.length === 0) continue;
    out[name] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

function scalarText(value: AttributeValue): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}
