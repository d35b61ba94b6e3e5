/**
 * Sets an own enumerable data property on a plain object built from untrusted keys. A plain
 * assignment is the fast path; `__proto__`, the only inherited accessor of Object.prototype, goes
 * through defineProperty so a received key can never change the object's prototype.
 */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/**
 * `{ ...base, ...fields }` for code that runs per event or per row: a new object with base's
 * properties, then fields' (a key of both keeps base's position and takes fields' value), the
 * same keys in the same order as the spread. Node 20's V8 adds every property that follows a
 * spread in an object literal (`{ ...base, a, b }`) through a slow path, about 1 µs each: a row of
 * 15 columns after a spread took 17–24 µs to build, against 0.5 µs here (docs/stream.md "Objects
 * built after a spread"). For the code's own keys only: `Object.assign` sets a `__proto__` key
 * through the prototype's setter, so objects built from received keys go through `setOwn`.
 */
export function withFields<A extends object, B extends object>(base: A, fields: B): Omit<A, keyof B> & B {
  return Object.assign({}, base, fields);
}
