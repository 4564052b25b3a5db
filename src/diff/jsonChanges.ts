/**
 * Field changes between two JSON values by path (`$.user.name`, `$.items[2]`): each leaf (and each empty
 * object or array) is compared by its JSON text. Stored values are compared as stored, so a masked secret is
 * `********` on both sides and never shows. Bounded: at most MAX_LEAVES leaves per side are read.
 */
export const MAX_LEAVES = 5000;
/** Characters of a value a change shows. */
const SHOWN = 200;

export interface FieldChange {
  path: string;
  /** Absent: the field was added. */
  before?: unknown;
  /** Absent: the field was removed. */
  after?: unknown;
}

export function jsonChanges(before: unknown, after: unknown, root = '$'): FieldChange[] {
  const left = leavesOf(before, root);
  const right = leavesOf(after, root);
  const out: FieldChange[] = [];
  for (const [path, value] of left) {
    if (!right.has(path)) out.push({ path, before: shown(value) });
    else if (right.get(path)!.text !== value.text) out.push({ path, before: shown(value), after: shown(right.get(path)!) });
  }
  for (const [path, value] of right) if (!left.has(path)) out.push({ path, after: shown(value) });
  return out;
}

interface Leaf {
  value: unknown;
  text: string;
}

function shown(leaf: Leaf): unknown {
  if (typeof leaf.value === 'string' && leaf.value.length > SHOWN) return `${leaf.value.slice(0, SHOWN)}… [clipped: ${leaf.value.length - SHOWN} more chars]`;
  return leaf.value;
}

const PLAIN_KEY = /^[A-Za-z_$][\w$]*$/;

function leavesOf(value: unknown, root: string): Map<string, Leaf> {
  const out = new Map<string, Leaf>();
  if (value === undefined) return out;
  const queue: Array<[string, unknown]> = [[root, value]];
  for (let i = 0; i < queue.length && out.size < MAX_LEAVES; i++) {
    const [path, item] = queue[i]!;
    if (item !== null && typeof item === 'object') {
      const entries = Array.isArray(item)
        ? item.map((child, index) => [`${path}[${index}]`, child] as [string, unknown])
        : Object.entries(item).map(([key, child]) => [childPath(path, key), child] as [string, unknown]);
      if (entries.length === 0) out.set(path, { value: item, text: JSON.stringify(item) });
      else if (queue.length < MAX_LEAVES * 2) queue.push(...entries.slice(0, MAX_LEAVES));
    } else out.set(path, { value: item, text: JSON.stringify(item) ?? 'undefined' });
  }
  return out;
}

function childPath(path: string, key: string): string {
  return PLAIN_KEY.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
