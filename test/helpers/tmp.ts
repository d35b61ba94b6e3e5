import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh temporary directory, removed at process exit. The embedded engine's background threads
 * may still write parts into a data directory while the process exits (seen on a slow machine:
 * ENOTEMPTY in the middle of the removal): the removal is retried, and one that still fails is
 * reported, not thrown, since an exception in an exit handler would fail a suite whose tests passed.
 */
export function tempDir(prefix = 'th-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.on('exit', () => {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    } catch (err) {
      process.stderr.write(`could not remove ${dir}: ${(err as Error).message}\n`);
    }
  });
  return dir;
}
