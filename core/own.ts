/**
 * Sets an own enumerable data property on a plain object built from untrusted keys. A plain
 * assignment is the fast path; `__proto__`, the only inherited accessor of Object.prototype, goes
 * through defineProperty so a received key can never change the object's prototype.
 */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}
