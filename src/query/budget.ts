import { clip, type ClipLimits } from './clip';
import { setOwn } from '../util/setOwn';

/**
 * Keeps an agent tool's answer within `max_tokens` (estimated at 4 characters of JSON a token). What comes
 * first stays: the header and summary, then findings, then rows and fields. When the answer is too long the
 * longest lists of rows are cut from their end, then long values clipped; every cut is named in `omitted`
 * (where, how many kept, how many left out, how to ask for them), never made silently.
 */
export const DEFAULT_MAX_TOKENS = 4000;
export const MIN_MAX_TOKENS = 500;
export const MAX_MAX_TOKENS = 100_000;
export const CHARS_PER_TOKEN = 4;

export interface Omission {
  /** Where in the answer: `sections.http.rows`, `rows`, `captures`, `findings[0].rows`. */
  path: string;
  kept: number;
  left_out: number;
  /** How to get what was left out. */
  ask: string;
}

/** Says how to ask for the items left out of the list at `path`; `next` is the first one left out. */
export type AskFor = (path: string, next: unknown) => string;

/**
 * Limits for the last resort, when cutting lists was not enough (one huge row), tried in turn until the answer
 * fits: the last holds a few short values of a few keys, which fits the smallest budget (MIN_MAX_TOKENS).
 */
const TIGHT: readonly ClipLimits[] = [
  { string: 120, body: 300, base64: 0, items: 5, keys: 20, depth: 4 },
  { string: 60, body: 120, base64: 0, items: 3, keys: 8, depth: 3 },
  { string: 24, body: 24, base64: 0, items: 1, keys: 3, depth: 2 },
];
/** Lists named here are cut last: what a reader needs first. */
const KEPT_LONGEST = /^(summary|findings|compare\.(status|before|after))/;
const ROUNDS = 40;

interface ListAt {
  path: string;
  list: unknown[];
  chars: number;
  /** The object holding the list: its `returned` or `shown` count follows a cut. */
  parent: Record<string, unknown> | null;
}

export function fitTokens<T extends object>(result: T, maxTokens: number, askFor: AskFor): T & { omitted?: Omission[]; note?: string } {
  const budget = maxTokens * CHARS_PER_TOKEN;
  const whole = JSON.stringify(result).length;
  if (whole <= budget) return result;
  const answer = structuredClone(result) as T & { omitted?: Omission[]; note?: string };
  const omitted = new Map<string, Omission>();
  const needed = Math.ceil(whole / CHARS_PER_TOKEN);
  const sizeNow = () => JSON.stringify(answer).length + JSON.stringify([...omitted.values()]).length + 300;
  for (let round = 0; round < ROUNDS; round++) {
    const over = sizeNow() - budget;
    if (over <= 0) break;
    const lists = listsOf(answer).filter((item) => item.list.length > 0);
    if (lists.length === 0) break;
    lists.sort((a, b) => Number(KEPT_LONGEST.test(a.path)) - Number(KEPT_LONGEST.test(b.path)) || b.chars - a.chars);
    const target = lists[0]!;
    let removed = 0;
    let cut = target.list.length;
    while (cut > 0 && removed < over) removed += (JSON.stringify(target.list[--cut]) ?? '').length + 1;
    const next = target.list[cut];
    const leftOut = target.list.length - cut;
    for (const key of ['returned', 'shown']) if (target.parent?.[key] === target.list.length) target.parent[key] = cut;
    target.list.length = cut;
    const earlier = omitted.get(target.path);
    omitted.set(target.path, {
      path: target.path,
      kept: cut,
      left_out: leftOut + (earlier?.left_out ?? 0),
      ask: earlier && cut > 0 ? earlier.ask : `${askFor(target.path, next)}; or max_tokens ${needed}`,
    });
  }
  let clipped = false;
  for (const limits of TIGHT) {
    if (sizeNow() <= budget) break;
    // Every top-level field stays (the header an agent reads first), each clipped within.
    for (const [key, value] of Object.entries(answer)) if (key !== 'omitted') setOwn(answer, key, clip(value, limits, key, 1));
    clipped = true;
  }
  const cuts = [...omitted.values()];
  const told = `Cut to fit max_tokens ${maxTokens} (the whole answer is about ${needed} tokens): ${cuts.map((cut) => `${cut.path} keeps ${cut.kept}, leaves out ${cut.left_out}`).join('; ')}${clipped ? `${cuts.length ? '; ' : ''}long values clipped with a marker` : ''}. See omitted for how to ask for the rest.`;
  answer.omitted = cuts;
  answer.note = answer.note ? `${told} ${answer.note}` : told;
  return answer;
}

/** Every array of objects or values in the answer, with its path and size. */
function listsOf(value: unknown, path = '', out: ListAt[] = [], parent: Record<string, unknown> | null = null): ListAt[] {
  if (Array.isArray(value)) {
    if (path !== 'omitted') out.push({ path, list: value, chars: JSON.stringify(value).length, parent });
    value.forEach((item, index) => {
      if (item !== null && typeof item === 'object') listsOf(item, `${path}[${index}]`, out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value))
      if (item !== null && typeof item === 'object') listsOf(item, path ? `${path}.${key}` : key, out, value as Record<string, unknown>);
  }
  return out;
}
