// Chromium's Largest Contentful Paint of the portal's home page (/) and of the signed-in dashboard
// (/dashboard), served by the built platform exactly as `make run` serves it, against the baseline in the same
// run: an empty page (one heading, no script, no style) served by the same server. Every load is a first
// visit (browser cache off) over an emulated network (10 Mbit/s down, 40 ms round trip) so that what a page
// downloads counts; rounds alternate between the three pages and the medians and their ratios to the
// baseline are printed. No goal is set: the ratios are the figure to follow (docs/benchmarks.md). The page
// weight budgets themselves are a test (test/e2e/page-weight.test.ts).
//
//   node test/bench/pages.ts            (or: make bench-pages, part of make bench)
//   BENCH_ROUNDS=9 node test/bench/pages.ts
//   BENCH_PORTAL_DIST=/path/to/an/older/portal/dist node test/bench/pages.ts   (the same, for another build)
import { chmod, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createVerifiedAccount } from '../support/accounts.ts';
import { launchBrowser } from '../support/browser.ts';
import { repoRoot, startPlatform } from '../support/platform.ts';
import { storeSessionBeforeLoad } from '../support/session.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
/** What the browser's link can do: a good home connection, not loopback, so that bytes cost time. */
const NETWORK = {
  offline: false,
  downloadThroughput: 10_000_000 / 8,
  uploadThroughput: 5_000_000 / 8,
  latency: 40,
};
const BASELINE_FILE = 'bench-empty-page.html';

/** Runs in the page (a string: the browser's types are not this file's): the last LCP candidate, in ms. */
const LAST_LCP = `new Promise((resolve) => new PerformanceObserver((list) => {
  const entries = list.getEntries();
  resolve(entries[entries.length - 1].startTime);
}).observe({ type: 'largest-contentful-paint', buffered: true }))`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// The built portal and, beside it, the empty page (only in this copy: never shipped).
const portalDist = await mkdtemp(path.join(os.tmpdir(), 'eg-bench-pages-'));
await cp(process.env.BENCH_PORTAL_DIST ?? path.join(repoRoot, 'portal/dist'), portalDist, {
  recursive: true,
});
await writeFile(
  path.join(portalDist, BASELINE_FILE),
  '<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>Exploit Grid</title></head>' +
    '<body><h1>Exploit Grid</h1></body></html>',
);
// The API may run as its own user (started as root): the copy must be readable by it.
await chmod(portalDist, 0o755);

const platform = await startPlatform({ env: { LOG_LEVEL: 'warn', PORTAL_DIST: portalDist } });
const browser = await launchBrowser();
try {
  const { accessToken } = await createVerifiedAccount(platform, {
    handle: 'bench_lcp',
    email: 'bench.lcp@example.test',
    password: 'benchmark passphrase',
  });

  /** Loads `pagePath` as a first visit and returns its LCP (ms from navigation start). */
  async function lcp(pagePath: string, signedIn: boolean): Promise<number> {
    const page: Page = await browser.context.newPage();
    try {
      const cdp = await browser.context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await cdp.send('Network.emulateNetworkConditions', NETWORK);
      if (signedIn) await storeSessionBeforeLoad(page, accessToken);
      await page.goto(`${platform.url}${pagePath}`, { waitUntil: 'networkidle' });
      // The last candidate once the page has settled is its LCP (no input has stopped the measurement).
      return (await page.evaluate(LAST_LCP)) as number;
    } finally {
      await page.close();
    }
  }

  const targets = [
    { label: `empty page (baseline)`, path: `/${BASELINE_FILE}`, signedIn: false, ms: [] as number[] },
    { label: 'home page /', path: '/', signedIn: false, ms: [] as number[] },
    { label: 'dashboard, signed in', path: '/dashboard', signedIn: true, ms: [] as number[] },
  ];
  console.log(
    `Chromium LCP, first visits at ${(NETWORK.downloadThroughput * 8) / 1e6} Mbit/s and ${NETWORK.latency} ms, ` +
      `${rounds} alternating rounds (after one to warm up)\n`,
  );
  for (const target of targets) await lcp(target.path, target.signedIn);
  for (let round = 0; round < rounds; round++)
    for (const target of targets) target.ms.push(await lcp(target.path, target.signedIn));

  const baseline = median(targets[0]!.ms);
  for (const target of targets) {
    const ratio = median(target.ms) / baseline;
    console.log(
      `${target.label.padEnd(24)} median ${median(target.ms).toFixed(0).padStart(5)} ms   ` +
        `ratio ${ratio.toFixed(2).padStart(5)}   rounds ${target.ms.map((ms) => ms.toFixed(0)).join(', ')}`,
    );
  }
  console.log('\n(no goal set: the ratios to the empty page are the figure to follow)');
} finally {
  await browser.close();
  await platform.stop();
  await rm(portalDist, { recursive: true, force: true });
}
