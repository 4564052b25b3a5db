import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Probe's own version, from its package.json (two folders up from dist/<folder>/ and src/<folder>/). */
export function packageVersion(): string {
  try {
    const text = readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8');
    return String((JSON.parse(text) as { version?: unknown }).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
}
