import { QueryError } from './QueryError';

/** Longest string a query input may hold: a glob, a name, an id, a `where` value, a field name. */
export const MAX_INPUT_CHARS = 1000;
/** Most items a list input may hold: `where` clauses, `fields`, `has`, `sections`. */
export const MAX_INPUT_ITEMS = 100;

/** Characters of an input an error message shows; the rest is counted, never echoed. */
const SHOWN_CHARS = 60;

/** An input as an error message quotes it: JSON, cut to about 80 characters with its length when longer. */
export function shownInput(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  if (text.length <= SHOWN_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, SHOWN_CHARS))}… (${text.length} characters)`;
}

/**
 * Refuses an input beyond the bounds before any work is done, with a short error naming it (`name`,
 * `where[1].value`), so a 100,000-character glob is the caller's bad input, not a failure of the store.
 */
export function checkInputSizes(input: object, path = ''): void {
  for (const [key, value] of Object.entries(input)) {
    const name = path ? `${path}.${key}` : key;
    if (typeof value === 'string') checkText(name, value);
    else if (Array.isArray(value)) {
      if (value.length > MAX_INPUT_ITEMS) throw new QueryError(`${name} has ${value.length} items, at most ${MAX_INPUT_ITEMS}`);
      value.forEach((item, i) => {
        if (typeof item === 'string') checkText(`${name}[${i}]`, item);
        else if (item !== null && typeof item === 'object') checkInputSizes(item as object, `${name}[${i}]`);
      });
    } else if (value !== null && typeof value === 'object') checkInputSizes(value as object, name);
  }
}

function checkText(name: string, text: string): void {
  if (text.length > MAX_INPUT_CHARS) throw new QueryError(`${name} is too long: ${text.length} characters, at most ${MAX_INPUT_CHARS} (${shownInput(text)})`);
}
