import type { Masker } from '../mask/Masker';
import { bodyKind } from '../mask/Masker';
import { getOwn, setOwn } from '../util/setOwn';

/** A JSON object/array or form body as masked fields; null for empty bodies and anything else. */
export function payloadOf(text: string, contentType: string | null, masker: Masker): Record<string, unknown> | unknown[] | null {
  if (!text) return null;
  const kind = bodyKind(contentType, text);
  if (kind === 'json') {
    try {
      const value = JSON.parse(text) as unknown;
      return value !== null && typeof value === 'object' ? (masker.maskValue(value) as Record<string, unknown> | unknown[]) : null;
    } catch {
      return null;
    }
  }
  if (kind === 'form') {
    const fields: Record<string, unknown> = {};
    for (const [name, value] of new URLSearchParams(text)) {
      const masked = masker.isSecretName(name) ? '********' : masker.text(value);
      const existing = getOwn(fields, name);
      setOwn(fields, name, existing === undefined ? masked : Array.isArray(existing) ? [...existing, masked] : [existing, masked]);
    }
    return fields;
  }
  return null;
}
