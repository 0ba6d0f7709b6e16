import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { OPEN_NAVIGATION, SIDEBAR_LABEL } from '../../portal/src/strings/appShell.ts';
import { MESSAGE_LABEL, TAB_GLOBAL } from '../../portal/src/strings/chat.ts';
import { FIND_A_MARK, OPERATORS_ONLINE } from '../../portal/src/strings/grid.ts';
import { HELP_MENU_LABEL } from '../../portal/src/strings/site.ts';
import { createVerifiedAccount } from '../support/accounts.ts';
import { accessibilityProblems } from '../support/axe.ts';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { startPlatform, type RunningPlatform } from '../support/platform.ts';

/** A phone (an iPhone 12–15's viewport) and a laptop. */
const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1440, height: 900 },
] as const;

const PUBLIC_PAGES = [
  '/',
  '/how-to-play',
  '/login',
  '/signup',
  '/forgot-password',
  '/pricing',
  '/privacy-policy',
  '/terms-of-service',
  '/security-policy',
  '/no-such-page',
];
/** The Grid (/attack) has a test of its own. */
const SIGNED_IN_PAGES = [
  '/dashboard',
  '/box',
  '/chats',
  '/history',
  '/leaderboard',
  '/plans',
  '/redeem',
  '/credits',
  '/settings',
];

/** Where screenshots of every page at both sizes go, when set (for a person to look at). */
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR;

const password = 'correct horse battery';

/**
 * The portal as players see it on a phone and on a laptop: no page scrolls sideways, the navigation is a
 * drawer on phones, and the controls of the Grid can be reached (the help button covers none).
 */
describe('the portal on a phone and on a laptop', function () {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    // Company on the leaderboard and the Grid.
    for (const handle of ['mobile_neo', 'trinity_x', 'morpheus_x'])
      await createVerifiedAccount(platform, { handle, email: `${handle}@example.test`, password });
    if (SCREENSHOT_DIR) await mkdir(SCREENSHOT_DIR, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
  });
  afterEach(async () => {
    await page?.close();
  });

  /** Waits for the page to settle: its main heading, then no request for a moment. */
  async function settle(): Promise<void> {
    await page.locator('h1').first().waitFor({ state: 'attached' });
    await page.waitForLoadState('networkidle');
  }

  /** How far the document reaches past the viewport's right edge, in CSS pixels (0 when it does not). */
  const overflow = () =>
    page
      .locator('html')
      .evaluate((html) => Math.max(0, html.scrollWidth - (html.ownerDocument.defaultView?.innerWidth ?? 0)));

  /** The first few elements reaching past the viewport's right edge, to say what widens a page. */
  const pastTheEdge = () =>
    page.evaluate<string[]>(`(() => {
      const edge = innerWidth + 1;
      return [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > edge)
        .slice(0, 3)
        .map((el) => el.tagName.toLowerCase() + ' "' + (el.textContent || '').trim().slice(0, 40) + '"');
    })()`);

  /**
   * Each control is on screen once scrolled to, and a tap at its centre hits it (or something inside it): no
   * other element covers it. A disabled button lets taps through (pointer-events: none) to its own container,
   * which covers nothing.
   */
  async function expectReachable(controls: Locator[]): Promise<void> {
    for (const control of controls) {
      // In the page, at once: the globe keeps the renderer busy, and each of Playwright's own waits for a still
      // frame costs seconds there.
      const hit = await control.evaluate((el) => {
        el.scrollIntoView({ block: 'center' });
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return false;
        const top = el.ownerDocument.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return top !== null && (el === top || el.contains(top) || top.contains(el));
      });
      expect(hit, `${String(control)} is covered or not shown`).to.equal(true);
    }
  }

  /** Visits each page: none is wider than the viewport, none has a serious accessibility problem. */
  async function expectPagesFit(pagePaths: readonly string[], shotPrefix: string): Promise<void> {
    const wide: string[] = [];
    const inaccessible: string[] = [];
    for (const pagePath of pagePaths) {
      await page.goto(`${platform.url}${pagePath}`);
      await settle();
      const past = await overflow();
      if (past > 0) wide.push(`${pagePath}: ${past}px (${(await pastTheEdge()).join('; ')})`);
      for (const problem of await accessibilityProblems(page)) inaccessible.push(`${pagePath} ${problem}`);
      await shoot(`${shotPrefix}${pagePath.replaceAll('/', '-')}`);
    }
    expect(wide, 'pages wider than the viewport').to.deep.equal([]);
    expect(inaccessible, 'serious or critical accessibility problems').to.deep.equal([]);
  }

  async function shoot(name: string): Promise<void> {
    if (SCREENSHOT_DIR)
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  }

  /** Signs in through the login page (after signing out what an earlier test left in this profile). */
  async function signIn(): Promise<void> {
    await page.goto(`${platform.url}/how-to-play`);
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${platform.url}/login`);
    await page.getByLabel('Email').fill('mobile_neo@example.test');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log In' }).click();
    await page.waitForURL('**/dashboard');
  }

  for (const viewport of VIEWPORTS) {
    describe(`at ${viewport.width}×${viewport.height} (${viewport.name})`, () => {
      beforeEach(async () => {
        page = await browser.context.newPage();
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
      });

      it('shows every public page without sideways scrolling', async () => {
        await page.goto(`${platform.url}/`);
        await page.evaluate(() => localStorage.clear());
        await expectPagesFit(PUBLIC_PAGES, `${viewport.name}-public`);
      });

      it('shows every signed-in page without sideways scrolling', async () => {
        await signIn();
        await expectPagesFit(SIGNED_IN_PAGES, viewport.name);
      });

      if (viewport.name === 'phone') {
        it('opens the navigation as a drawer and closes it on a link', async () => {
          await signIn();
          const nav = page.getByRole('navigation', { name: SIDEBAR_LABEL });
          expect(await nav.isVisible()).to.equal(false);
          await page.getByRole('button', { name: OPEN_NAVIGATION }).click();
          await nav.waitFor();
          expect(await accessibilityProblems(page), 'accessibility with the drawer open').to.deep.equal([]);
          await shoot('phone-drawer');
          await nav.getByRole('link', { name: 'Leaderboard' }).click();
          await page.waitForURL('**/leaderboard');
          await nav.waitFor({ state: 'detached' });
          // Escape closes it too.
          await page.getByRole('button', { name: OPEN_NAVIGATION }).click();
          await nav.waitFor();
          await page.keyboard.press('Escape');
          await nav.waitFor({ state: 'detached' });
        });
      } else {
        it('keeps the sidebar beside the content, with no menu button', async () => {
          await signIn();
          await page.getByRole('navigation', { name: SIDEBAR_LABEL }).waitFor();
          expect(await page.getByRole('button', { name: OPEN_NAVIGATION }).count()).to.equal(0);
          // Keyboard focus shows: tab into the sidebar and look at the focused entry's outline.
          let ring = 'none';
          for (let tab = 0; tab < 20 && ring === 'none'; tab++) {
            await page.keyboard.press('Tab');
            ring = await page.evaluate<string>(`(() => {
              const el = document.activeElement;
              if (!el || !el.closest('nav')) return 'none';
              const style = getComputedStyle(el);
              return style.outlineStyle === 'none' || style.outlineWidth === '0px' ? 'invisible' : style.outlineStyle;
            })()`);
            if (ring === 'invisible') break;
          }
          expect(ring, 'the focused sidebar entry has a visible outline').to.equal('solid');
        });
      }

      it('lets every control of the Grid be reached: nothing covers Find a Mark, the chat or the operators', async () => {
        await signIn();
        await page.goto(`${platform.url}/attack`);
        // The globe keeps drawing (and the network busy with its data): the controls are what is waited for.
        await page.getByRole('button', { name: FIND_A_MARK }).waitFor();
        expect(await overflow(), 'the Grid is wider than the viewport').to.equal(0);
        await expectReachable([
          page.getByRole('button', { name: FIND_A_MARK }),
          page.getByRole('tab', { name: TAB_GLOBAL }),
          page.getByRole('textbox', { name: MESSAGE_LABEL }),
          page.getByRole('button', { name: HELP_MENU_LABEL }),
        ]);
        expect(await accessibilityProblems(page), 'accessibility of the Grid').to.deep.equal([]);
        await shoot(`${viewport.name}-attack-chat`);
        // Phones: the operators are the second tab of the sheet under the globe.
        if (viewport.name === 'phone') await page.getByRole('tab', { name: OPERATORS_ONLINE }).click();
        await expectReachable([
          page.getByRole('list', { name: OPERATORS_ONLINE }).getByRole('button').first(),
        ]);
        await shoot(`${viewport.name}-attack-operators`);
      });
    });
  }
});
