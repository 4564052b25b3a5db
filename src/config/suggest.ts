import { ProbeConfigError } from './ProbeConfigError';
import { settingName } from './describe';

/** Edit distance between two keys (insertions, deletions, substitutions). */
function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The valid key a typo most likely meant, or null when none is close: within 2 edits, or a third of the
 * key's length for longer keys (`drvier` → `driver`, `urll` → `url`; `storage_driver` suggests nothing).
 */
export function closestKey(key: string, candidates: readonly string[]): string | null {
  const lower = key.toLowerCase();
  const limit = Math.max(2, Math.floor(key.length / 3));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = levenshtein(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : null;
}

/** `storage.drvier: unknown setting (did you mean storage.driver?)`, or the valid keys when none is close. */
export function unknownSetting(at: readonly PropertyKey[], known: readonly string[], otherwise?: string): ProbeConfigError {
  const key = String(at[at.length - 1]);
  const near = closestKey(key, known);
  const setting = settingName(at);
  if (near) return new ProbeConfigError(setting, `unknown setting (did you mean ${settingName([...at.slice(0, -1), near])}?)`);
  return new ProbeConfigError(setting, `unknown setting (valid here: ${known.join(', ')}${otherwise ? `, ${otherwise}` : ''})`);
}
