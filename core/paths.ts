import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'sql'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the project root above ${start}`);
    dir = up;
  }
}

/** The repository (or installed package) root: holds `sql/`, `schemas/` and `dist/`. */
export const projectRoot = findRoot(dirname(fileURLToPath(import.meta.url)));
/** Root of compiled JavaScript, for Piscina worker files and child processes. */
export const distRoot = join(projectRoot, 'dist');
