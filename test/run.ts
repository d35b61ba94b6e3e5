/**
 * Test runner: every `*.test.js` under dist/test runs in its own process (each suite owns its
 * chDB data directory and nats-server), TEST_CONCURRENCY at a time. Prints each suite's result
 * and ends with `N passed, N failed`. Arguments filter suites by path substring.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { TEMPLATE_ENV } from './helpers/data-template.js';
import { fileURLToPath } from 'node:url';

const testRoot = fileURLToPath(new URL('.', import.meta.url));
const filters = process.argv.slice(2);
// one more suite than cores: most suites wait part of their time (a nats-server, a browser, a poll)
const concurrency = Number(process.env.TEST_CONCURRENCY ?? availableParallelism() + 1);
const suiteTimeoutMs = Number(process.env.TEST_SUITE_TIMEOUT_MS ?? 300_000);

function find(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'helpers' || name === 'fixtures' ? [] : find(p);
    return name.endsWith('.test.js') ? [p] : [];
  });
}

interface Result {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  ms: number;
  output: string;
  code: number | null;
}

function runSuite(file: string): Promise<Result> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', file], {
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n[runner] suite exceeded ${suiteTimeoutMs} ms: killed\n`;
      child.kill('SIGKILL');
    }, suiteTimeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const num = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(output)?.[1] ?? NaN);
      const total = num('Total');
      let passed = num('Passed');
      let skipped = num('Skipped') || 0;
      let failed = Number.isNaN(total) ? 0 : total - passed - skipped;
      if (Number.isNaN(passed)) passed = 0;
      const skippedWhole = Number.isNaN(total) && code === 0 && /\[skip\]/.test(output);
      if (skippedWhole) skipped += 1;
      // a suite that crashed or exited non-zero without reporting a failure still counts as one
      else if ((code !== 0 || Number.isNaN(total)) && failed === 0) failed = 1;
      resolve({ file, passed, failed, skipped, ms: Date.now() - started, output, code });
    });
  });
}

/**
 * The suites' temporary files (chDB data directories, nats-server stores, spool files) on a RAM
 * filesystem when the machine has one and TMPDIR is not set: the suites write thousands of small
 * files, which cost several times more on a disk (here a copy of the 266-file template: 0.3–0.8 s on
 * ext4, 0.05 s on /dev/shm). Only a machine crash tells the two apart, and no suite simulates one.
 * Everything under it is removed when the run ends, including what a killed suite left behind.
 */
function useRamTmp(): string | undefined {
  if (process.env.TMPDIR || process.env.TEST_TMPDIR === 'disk') return undefined;
  try {
    accessSync('/dev/shm', constants.W_OK);
    return mkdtempSync('/dev/shm/tracehouse-tests-');
  } catch {
    return undefined;
  }
}

const ramTmp = useRamTmp();
if (ramTmp) {
  // screenshots of the dashboard suites are kept for a reviewer: where they went before
  process.env.SCREENSHOT_DIR ??= join(tmpdir(), 'tracehouse-screenshots');
  process.env.TMPDIR = ramTmp;
  process.on('exit', () => rmSync(ramTmp, { recursive: true, force: true }));
  process.stdout.write(`[runner] temporary files under ${ramTmp} (TEST_TMPDIR=disk: the system's temp dir)\n`);
}

/**
 * One migrated data directory for the run (helpers/data-template.ts); the suites' systems start on
 * copies of it. Without it every suite migrates its own, as when a suite runs alone.
 */
function makeTemplate(): string | undefined {
  const r = spawnSync(process.execPath, [join(testRoot, 'helpers', 'make-data-template.js')], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } });
  const dir = r.status === 0 ? r.stdout.trim() : '';
  if (dir) return dir;
  process.stdout.write(`[runner] no migrated template (the suites migrate their own): ${(r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n').slice(-3).join(' ')}\n`);
  return undefined;
}

const template = process.env[TEMPLATE_ENV] ? undefined : makeTemplate();
if (template) {
  process.env[TEMPLATE_ENV] = template;
  process.on('exit', () => rmSync(template, { recursive: true, force: true }));
}

const files = find(testRoot)
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
const results: Result[] = [];
const queue = [...files];
const started = Date.now();
await Promise.all(
  Array.from({ length: Math.max(1, concurrency) }, async () => {
    for (let f = queue.shift(); f; f = queue.shift()) {
      const r = await runSuite(f);
      results.push(r);
      const name = relative(testRoot, f);
      const status = r.failed ? 'FAIL' : 'ok  ';
      process.stdout.write(`${status} ${name} — ${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''} (${(r.ms / 1000).toFixed(1)} s)\n`);
      if (r.failed || process.env.TEST_VERBOSE) process.stdout.write(r.output.replace(/^/gm, '    ') + '\n');
      else {
        // skipped suites print their reason; keep it visible
        const skipLines = r.output.split('\n').filter((l) => l.includes('[skip]'));
        if (skipLines.length) process.stdout.write(skipLines.map((l) => `    ${l.trim()}`).join('\n') + '\n');
      }
    }
  }),
);
const passed = results.reduce((a, r) => a + r.passed, 0);
const failed = results.reduce((a, r) => a + r.failed, 0);
const skipped = results.reduce((a, r) => a + r.skipped, 0);
process.stdout.write(`\n${files.length} suites in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exitCode = failed || files.length === 0 ? 1 : 0;
