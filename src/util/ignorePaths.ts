import { setOwn } from './setOwn';
/**
 * JSON paths a project leaves out of its snapshots (`snapshots.ignore`): `$.created_at`, `$.items[*].id`,
 * `$.user["e-mail"]`, `$.*.etag`. `*` stands for any one key or index. Applied to each request and response body.
 */

export type PathStep = string | number | '*';

const STEP = /\.([A-Za-z_$][\w$-]*|\*)|\[(\d+|\*|"(?:[^"\\]|\\.)*")\]/y;

/** The steps of a path, or null when it is not one. */
export function parseIgnorePath(path: string): PathStep[] | null {
  if (!path.startsWith('$')) return null;
  const steps: PathStep[] = [];
  let at = 1;
  while (at < path.length) {
    STEP.lastIndex = at;
    const match = STEP.exec(path);
    if (!match) return null;
    const key = match[1] ?? match[2]!;
    if (key === '*') steps.push('*');
    else if (match[2] !== undefined && /^\d+$/.test(key)) steps.push(Number(key));
    else if (key.startsWith('"')) steps.push(JSON.parse(key) as string);
    else steps.push(key);
    at = STEP.lastIndex;
  }
  return steps.length ? steps : null;
}

export function validIgnorePath(path: string): boolean {
  return parseIgnorePath(path) !== null;
}

/** `value` without the fields the paths name (a copy; `value` is left as it is). */
export function withoutPaths(value: unknown, paths: readonly (readonly PathStep[])[]): unknown {
  if (paths.length === 0) return value;
  return strip(value, paths, 0);
}

function strip(value: unknown, paths: readonly (readonly PathStep[])[], depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  const here = paths.filter((path) => path.length > depth);
  if (here.length === 0) return value;
  const matches = (key: string | number) => here.filter((path) => path[depth] === '*' || path[depth] === key);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((item, index) => {
      const hit = matches(index);
      if (hit.some((path) => path.length === depth + 1)) return;
      out.push(hit.length ? strip(item, hit, depth + 1) : item);
    });
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const hit = matches(key);
    if (hit.some((path) => path.length === depth + 1)) continue;
    setOwn(out, key, hit.length ? strip(item, hit, depth + 1) : item);
  }
  return out;
}
