/**
 * Headless Chromium for the dashboard suites, driven by playwright-core with the system's browser
 * (Debian package `chromium`; `.ci/run` installs it). `CHROMIUM_PATH` overrides the lookup.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/snap/bin/chromium'];

/** The browser binary, or null when none is installed. */
export function findChromium(): string | null {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null;
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

export async function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}

/** Screenshots for a reviewer, outside the tree: `SCREENSHOT_DIR` or <tmp>/tracehouse-screenshots. */
export function screenshotDir(): string {
  const dir = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'tracehouse-screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}
