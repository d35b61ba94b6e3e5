/**
 * `npm run golden:analyses [-- --write] [dataset…]`: recomputes the golden hashes of the analyses
 * (eval/perf/golden.ts) over every dataset (or the named ones) and compares them with
 * eval/perf/golden-analyses.json; exits 1 on any difference. `--write` rewrites the file instead
 * (after a deliberate change of an analyzer's output, with its version bump).
 */
import { writeFileSync } from 'node:fs';
import { DATASETS, GOLDEN_FILE, goldenDiff, hashDataset, readGolden, type GoldenHashes } from './golden.js';

const write = process.argv.includes('--write');
const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = names.filter((n) => !DATASETS.some((d) => d.name === n));
if (unknown.length) {
  process.stderr.write(`unknown dataset ${unknown.join(', ')}; known: ${DATASETS.map((d) => d.name).join(', ')}\n`);
  process.exit(2);
}
const started = Date.now();
const actual: GoldenHashes = {};
for (const d of DATASETS) {
  if (names.length && !names.includes(d.name)) continue;
  const t = Date.now();
  actual[d.name] = hashDataset(d);
  process.stdout.write(`${d.name}: ${actual[d.name]!.conversations} conversations, ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
}
if (write) {
  const merged = names.length ? { ...readGolden(), ...actual } : actual;
  writeFileSync(GOLDEN_FILE, JSON.stringify(merged, null, 2) + '\n');
  process.stdout.write(`wrote ${Object.keys(actual).length} datasets to ${GOLDEN_FILE}\n`);
} else {
  const diff = goldenDiff(readGolden(), actual);
  if (diff.length) {
    process.stdout.write(`\n${diff.length} differences:\n${diff.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`every analyzer's output is as recorded (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}
