/**
 * Sets `key` as an own, enumerable data member of `target`, whatever its name. A recorded body, header or form
 * field may be named `__proto__`: `target[key] = value` would set the object's prototype instead (the member
 * vanishes from what is stored, and the copy reads as inheriting from recorded data).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** The own member `key` of `target`, never an inherited one (`constructor`, `__proto__`). */
export function getOwn(target: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}
