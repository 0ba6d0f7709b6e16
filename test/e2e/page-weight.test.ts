import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import type { CDPSession, Page } from 'playwright-core';
import { authenticatedPaths, paths, publicPaths } from '../../portal/src/routes/paths.ts';
import { WELCOME } from '../../portal/src/strings/onboarding.ts';
import { createVerifiedAccount } from '../support/accounts.ts';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { repoRoot, startPlatform, type RunningPlatform } from '../support/platform.ts';
import { storeSessionBeforeLoad } from '../support/session.ts';

/**
 * Page weight budgets: the JavaScript a first visit (empty cache) downloads, as the compressed bytes on the
 * wire (response bodies; 1 kB = 1,000 bytes). docs/architecture.md, "Serving the portal".
 */
export const JS_BUDGET_BYTES = {
  /**
   * Every public page: home, How to Play, the legal, security and careers pages, the not-found page, and the
   * pages with forms (sign-in, sign-up, password, Awaiting, /pricing), which load the session's stores but
   * not zod and the API's schemas (portal/src/api/contracts.ts).
   */
  publicPage: 170_000,
  /** A signed-in page with the shell around it; /attack may add the globe's chunk, and only it. */
  signedInPage: 300_000,
} as const;

/** How long a page may take to load on a busy machine: the test weighs, it does not time. */
const PAGE_TIMEOUT_MS = 120_000;

/** The globe (three.js, react-globe.gl, the country outlines): /attack's chunk of its own. */
const GLOBE_CHUNK = /\/assets\/GlobeView-[\w-]+\.js$/;

type Script = { url: string; bytes: number; encoding: string | null; cacheControl: string | null };

describe('page weight: the JavaScript each page downloads on a first visit, in Chromium, from the built portal', function () {
  this.timeout(2 * PAGE_TIMEOUT_MS);
  let platform: RunningPlatform;
  let browser: Browser;
  let accessToken: string;
  const weights: { path: string; kB: string; files: number }[] = [];

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    ({ accessToken } = await createVerifiedAccount(platform, {
      handle: 'weigh_in',
      email: 'weigh.in@example.test',
      password: 'correct horse battery',
    }));
  });
  after(async () => {
    if (weights.length) console.table(weights);
    await browser?.close();
    await platform?.stop();
  });

  /** Opens `pagePath` with the browser cache off and returns every script response, with its wire size. */
  /** `finishedFor`: a script that loads after the page settles (the globe, once the page has rendered). */
  async function scriptsOf(
    pagePath: string,
    signedIn: boolean,
    finishedFor?: RegExp,
  ): Promise<{ page: Page; scripts: Script[] }> {
    const page = await browser.context.newPage();
    const cdp: CDPSession = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const responses = new Map<string, Script>();
    cdp.on('Network.responseReceived', ({ requestId, response }) => {
      if (!response.mimeType.includes('javascript')) return;
      const header = (name: string) =>
        Object.entries(response.headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
      responses.set(requestId, {
        url: response.url,
        bytes: 0,
        encoding: header('content-encoding'),
        cacheControl: header('cache-control'),
      });
    });
    // Body bytes as they came over the wire: compressed, without the headers.
    cdp.on('Network.dataReceived', ({ requestId, encodedDataLength }) => {
      const script = responses.get(requestId);
      if (script) script.bytes += encodedDataLength;
    });
    if (signedIn) await storeSessionBeforeLoad(page, accessToken);
    // Sizes, not times: a machine busy with other suites (make test runs two lanes) may take its time.
    const me = signedIn
      ? page.waitForResponse((res) => res.url().endsWith('/api/v1/users/me'), { timeout: PAGE_TIMEOUT_MS })
      : null;
    // A pause in the network while a busy machine renders is not the end of the page's scripts: one that must
    // come is waited for by name.
    const finished = finishedFor
      ? page.waitForEvent('requestfinished', {
          predicate: (request) => finishedFor.test(request.url()),
          timeout: PAGE_TIMEOUT_MS,
        })
      : null;
    await page.goto(`${platform.url}${pagePath}`, { waitUntil: 'networkidle', timeout: PAGE_TIMEOUT_MS });
    await finished;
    if (me) expect((await me).status(), `${pagePath}: signed in`).to.equal(200);
    // Awaiting Confirmation opened directly (without the signup's state) goes on to /signup: both are counted.
    if (signedIn) expect(new URL(page.url()).pathname, `${pagePath}: stayed on the page`).to.equal(pagePath);
    await cdp.detach();
    return { page, scripts: [...responses.values()] };
  }

  const total = (scripts: Script[]) => scripts.reduce((sum, s) => sum + s.bytes, 0);

  function expectServedWell(pagePath: string, scripts: Script[]) {
    expect(scripts, pagePath).not.to.deep.equal([]);
    for (const script of scripts) {
      const name = `${pagePath}: ${new URL(script.url).pathname}`;
      // The build leaves out a .br no smaller than the file: only tiny files come as they are.
      if (script.bytes >= 1000) expect(script.encoding, name).to.equal('br');
      expect(script.cacheControl, name).to.equal('public, max-age=31536000, immutable');
    }
  }

  function record(pagePath: string, scripts: Script[]) {
    weights.push({ path: pagePath, kB: (total(scripts) / 1000).toFixed(1), files: scripts.length });
  }

  /** A page but /attack: recorded, served well, without the globe, within `budget`. */
  function expectWithinBudget(pagePath: string, scripts: Script[], budget: number) {
    record(pagePath, scripts);
    expectServedWell(pagePath, scripts);
    expect(
      scripts.filter((s) => GLOBE_CHUNK.test(s.url)),
      pagePath,
    ).to.deep.equal([]);
    expect(total(scripts), pagePath).to.be.at.most(budget);
  }

  for (const route of publicPaths) {
    const budget = JS_BUDGET_BYTES.publicPage;
    const pagePath =
      route === paths.resetPassword ? `${route}?token=weigh-in` : route.replace(':slug', 'red-team-lead');
    it(`${pagePath} loads at most ${budget / 1000} kB of JavaScript, brotli, immutable, and not the globe`, async () => {
      const { page, scripts } = await scriptsOf(pagePath, false);
      await page.close();
      expectWithinBudget(pagePath, scripts, budget);
    });
  }

  for (const pagePath of authenticatedPaths.filter((p) => p !== paths.attack))
    it(`${pagePath}, signed in, loads at most ${JS_BUDGET_BYTES.signedInPage / 1000} kB of JavaScript and not the globe`, async () => {
      const { page, scripts } = await scriptsOf(pagePath, true);
      // A new player: the first hour's greeting.
      if (pagePath === paths.dashboard) await page.getByText(WELCOME).waitFor();
      await page.close();
      expectWithinBudget(pagePath, scripts, JS_BUDGET_BYTES.signedInPage);
    });

  it(`${paths.attack}, signed in, stays within ${JS_BUDGET_BYTES.signedInPage / 1000} kB but for the globe's own chunk`, async () => {
    const { page, scripts } = await scriptsOf(paths.attack, true, GLOBE_CHUNK);
    await page.close();
    record(paths.attack, scripts);
    expectServedWell(paths.attack, scripts);
    const globe = scripts.filter((s) => GLOBE_CHUNK.test(s.url));
    expect(globe, 'the globe chunk loaded on /attack').to.have.length(1);
    expect(total(scripts) - total(globe)).to.be.at.most(JS_BUDGET_BYTES.signedInPage);
  });

  it('serves no source map, and no script points at one', async () => {
    const assets = path.join(repoRoot, 'portal/dist/assets');
    const files = await readdir(assets);
    expect(files.filter((f) => f.endsWith('.map'))).to.deep.equal([]);
    const scripts = files.filter((f) => f.endsWith('.js'));
    for (const file of scripts) {
      expect(await readFile(path.join(assets, file), 'utf8'), file).not.to.include('sourceMappingURL');
      expect((await fetch(`${platform.url}/assets/${file}.map`)).status, `${file}.map`).to.equal(404);
    }
  });
});
