import { QueryError } from './QueryError';
import { shownInput } from './inputs';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `30s`, `15m`, `2h`, `1d` → seconds. */
export function parseSince(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$/.exec(text);
  if (!match) throw new QueryError(`since ${shownInput(text)} is not a duration: a number followed by s, m, h or d`, ['30s', '15m', '2h', '1d']);
  return Number(match[1]) * UNITS[match[2]!]!;
}
