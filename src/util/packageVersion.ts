import path from 'node:path';
import { MAX_MANIFEST_BYTES, readSafeText } from './safeRead';

/** Probe's own version, from its package.json (two folders up from dist/<folder>/ and src/<folder>/). */
export function packageVersion(): string {
  try {
    const text = readSafeText(path.join(__dirname, '..', '..', 'package.json'), { maxBytes: MAX_MANIFEST_BYTES, follow: true });
    return String((JSON.parse(text) as { version?: unknown }).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
}
