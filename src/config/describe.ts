/** How a bad value is shown in a config error. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (value instanceof RegExp) return String(value);
  return typeof value === 'object' ? 'an object' : String(value);
}

/** A setting's name as the user would write it: `storage.redis.url`, `mask.inputs[2]`, `response_types['text/*']`. */
export function settingName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(String(key))) out += out ? `.${String(key)}` : String(key);
    else out += `['${String(key)}']`;
  }
  return out || 'config';
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
