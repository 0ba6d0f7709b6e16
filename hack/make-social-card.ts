/**
 * Draws the site's default picture for shared links (Open Graph and Twitter cards, 1200×630):
 * `node hack/make-social-card.ts [out.png]`, default portal/public/social-card.png. The card is HTML drawn by
 * Chromium (playwright-core; CHROMIUM_PATH, default /usr/bin/chromium): the brand's colours, the grid of the
 * favicon, the product in a sentence and a terminal line. Run it again after changing the words below.
 */
import path from 'node:path';
import { chromium } from 'playwright-core';

const out = path.resolve(
  process.argv[2] ?? path.join(import.meta.dirname, '../portal/public/social-card.png'),
);

const html = `<!doctype html><html><head><style>
  html, body { margin: 0; width: 1200px; height: 630px; }
  body {
    background: #05070d;
    background-image: radial-gradient(ellipse at 75% -10%, rgba(0,229,255,.22), transparent 55%),
      radial-gradient(ellipse at 0% 110%, rgba(255,23,68,.16), transparent 50%),
      linear-gradient(rgba(0,229,255,.06) 1px, transparent 1px),
      linear-gradient(90deg, rgba(0,229,255,.06) 1px, transparent 1px);
    background-size: 100% 100%, 100% 100%, 48px 48px, 48px 48px;
    color: #e6f1ff; font-family: 'DejaVu Sans Mono', monospace; box-sizing: border-box; padding: 72px 80px;
    display: flex; flex-direction: column; justify-content: space-between;
  }
  .brand { display: flex; align-items: center; gap: 24px; }
  .brand svg { width: 88px; height: 88px; }
  .name { font-size: 64px; font-weight: 700; letter-spacing: 6px; color: #00e5ff; }
  h1 { font-family: 'DejaVu Sans', sans-serif; font-size: 58px; line-height: 1.15; margin: 0; max-width: 980px; }
  h1 em { color: #ff1744; font-style: normal; }
  .term { font-size: 26px; color: #8aa0b8; border-left: 4px solid #00e5ff; padding-left: 20px; }
  .term b { color: #69f0ae; font-weight: 400; }
</style></head><body>
  <div class="brand">
    <svg viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#0b1220"/><path d="M12 20h40M12 32h40M12 44h40M20 12v40M32 12v40M44 12v40" stroke="#00e5ff" stroke-opacity=".35" stroke-width="2"/><circle cx="44" cy="20" r="6" fill="#ff1744"/><path d="M20 44l12-12 12-12" stroke="#00e5ff" stroke-width="4" stroke-linecap="round"/></svg>
    <div class="name">EXPLOIT GRID</div>
  </div>
  <h1>A live-fire hacking arena. Your own Debian box, root, real players. <em>No flags:</em> a shell is the score.</h1>
  <div class="term"><b>operator@grid</b>:~$ harden &amp;&amp; hunt &nbsp;# attack · defend · learn both</div>
</body></html>`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 630 } });
  await page.setContent(html);
  await page.screenshot({ path: out, type: 'png' });
  console.log(`Wrote ${out}`);
} finally {
  await browser.close();
}
