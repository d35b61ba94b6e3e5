// Bundles the analyst dashboard (dashboard/src, Preact) into dist/dashboard with esbuild: one
// script, one stylesheet and the page shell, served by the query role at `/`. Runs at
// `npm ci` (prepare), `npm run build` and `npm test`; nothing is fetched at run time.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'dashboard');
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
const result = await build({
  entryPoints: { app: join(here, 'src', 'main.tsx') },
  outdir: join(out, 'assets'),
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  loader: { '.css': 'css' },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
const bytes = Object.values(result.metafile.outputs).reduce((a, o) => a + o.bytes, 0);
console.log(`dashboard built: ${out} (${(bytes / 1024).toFixed(1)} KB)`);
