#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (also run by `npm ci` through `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write('tracehouse: dist/ is missing. Run `npm run build` (or `npm ci`, which builds) first.\n');
  process.exit(1);
}
const { main } = await import(pathToFileURL(entry).href);
await main(process.argv.slice(2));
