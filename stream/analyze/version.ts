let lastVersion = 0;
/** Wall-clock based (µs), strictly increasing within the process: the version of rows analyzers write. */
export function nextVersion(now = Date.now()): number {
  lastVersion = Math.max(now * 1000, lastVersion + 1);
  return lastVersion;
}
