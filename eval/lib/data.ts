/**
 * Where the real public datasets live: `../shared/data` beside the repository root (never edited;
 * evaluation derives from them). `TRACEHOUSE_SHARED_DIR` points elsewhere when the layout differs.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectRoot } from '../../core/paths.js';

export const sharedDir = resolve(process.env.TRACEHOUSE_SHARED_DIR ?? join(projectRoot, '..', 'shared'));

/** Path of a file or folder under `../shared/data`. */
export function dataPath(...parts: string[]): string {
  return join(sharedDir, 'data', ...parts);
}

export const hasSharedData = (): boolean => existsSync(join(sharedDir, 'data'));

/** Path of a file under `eval/` in the sources (labels are kept there, not compiled). */
export function evalPath(...parts: string[]): string {
  return join(projectRoot, 'eval', ...parts);
}
