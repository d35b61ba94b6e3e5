// Turns the screenshots the browser suite writes (<tmp>/tracehouse-screenshots, or the directory
// given) into the small images of docs/dashboard.md: 640 px wide JPEGs in docs/dashboard/.
// Usage: npm test -- dashboard/pages && node dashboard/thumbnails.mjs [dir]
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const from = process.argv[2] ?? process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'tracehouse-screenshots');
const to = join(here, '..', 'docs', 'dashboard');
mkdirSync(to, { recursive: true });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage();
for (const file of readdirSync(from).filter((f) => f.endsWith('.png'))) {
  const data = readFileSync(join(from, file)).toString('base64');
  const phone = file.includes('phone');
  await page.setContent(`<body style="margin:0"><img id="i" style="display:block;width:${phone ? 240 : 640}px" src="data:image/png;base64,${data}"></body>`);
  await page.locator('#i').screenshot({ path: join(to, file.replace(/\.png$/, '.jpg')), type: 'jpeg', quality: 72 });
  console.log(`${file} -> docs/dashboard/${file.replace(/\.png$/, '.jpg')}`);
}
await browser.close();
