// Takes a screenshot of a page in headless Chromium: node hack/screenshot.ts URL OUT.png [width] [height]
import { launchBrowser } from '../test/support/browser.ts';

const [url, out, width = '1280', height = '800'] = process.argv.slice(2);
if (!url || !out) {
  console.error('usage: node hack/screenshot.ts URL OUT.png [width] [height]');
  process.exit(2);
}
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: Number(width), height: Number(height) });
  const errors: string[] = [];
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(url, { waitUntil: 'networkidle' });
  await page.screenshot({ path: out, fullPage: true });
  console.log(`title: ${await page.title()}`);
  if (errors.length) console.log(`console errors:\n${errors.join('\n')}`);
} finally {
  await browser.close();
}
