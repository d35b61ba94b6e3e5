/**
 * The embedded store's spool files: a byte insert of a Native block or a large JSON body is written
 * to a file under `DATA_DIR/insert-spool` and read by the engine with `file()` (docs/stream.md "The
 * insert").
 */
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { isPartList, partsAfter, type ByteParts } from './bytes.js';

/**
 * Writes `body` as a new file in as few writes as the kernel takes (one, as a rule): `writeFile`
 * writes 512 KiB at a time, each piece a round trip through the event loop (10 MB: 4 ms against
 * 2 ms on an idle process, and each piece waits its turn on a busy one). Parts go in one gathering
 * write (`writev`) straight from the memory they were made in: a block of the sink's chunks is never
 * copied into a buffer of its own (a fresh 27 MB buffer cost 80–130 ms to fill on a 2-core machine,
 * most of it the kernel mapping its pages; docs/stream.md "Native inserts").
 */
export async function writeWhole(path: string, body: ByteParts): Promise<void> {
  const fh = await open(path, 'w');
  try {
    let left = isPartList(body) ? body : [body];
    while (left.length) {
      const { bytesWritten } = await fh.writev(left as Uint8Array[]);
      if (bytesWritten === 0) throw new Error(`${path}: nothing written`);
      left = partsAfter(left, bytesWritten);
    }
  } finally {
    await fh.close();
  }
}

/** Spool files older than an hour are left by a process killed mid-insert (an insert takes seconds). */
export function clearStaleSpool(dir: string): void {
  const cutoff = Date.now() - 3600_000;
  for (const f of readdirSync(dir)) {
    try {
      const p = join(dir, f);
      if (statSync(p).mtimeMs < cutoff) unlinkSync(p);
    } catch {
      // removed meanwhile
    }
  }
}
