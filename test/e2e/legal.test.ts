import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { AGE_CONFIRMATION_REQUIRED, TERMS_ACCEPTANCE_REQUIRED } from '../../api/src/contracts/constants.ts';
import {
  AGE_CONFIRM_LABEL,
  EMAIL_LABEL,
  HANDLE_LABEL,
  PASSWORD_LABEL,
  PRIVACY_LINK,
  SIGN_UP,
  TERMS_LINK,
} from '../../portal/src/strings/auth.ts';
import { CONTENTS, DOWNLOAD_PDF, lastUpdated } from '../../portal/src/strings/legal/document.ts';
import { HELP_MENU_LABEL } from '../../portal/src/strings/site.ts';
import { privacyPolicy } from '../../portal/src/strings/legal/privacy.ts';
import { securityPolicy } from '../../portal/src/strings/legal/securityPolicy.ts';
import { termsOfService } from '../../portal/src/strings/legal/terms.ts';
import { accessibilityProblems } from '../support/axe.ts';
import { VIEWPORTS, launchBrowser, type Browser } from '../support/browser.ts';
import { pdfPages } from '../support/pdf.ts';
import { logPlatformOnFailure, startPlatform, type RunningPlatform } from '../support/platform.ts';

/** Where screenshots of the pages go when set, for a person to look at. */
const SCREENSHOTS = process.env.SCREENSHOTS ?? process.env.SCREENSHOT_DIR;

const documents = [
  { path: '/privacy-policy', document: privacyPolicy },
  { path: '/terms-of-service', document: termsOfService },
  { path: '/security-policy', document: securityPolicy },
] as const;

describe('legal pages in Chromium: the texts, their PDFs, and consent at sign-up', function () {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;

  before(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    if (SCREENSHOTS) await mkdir(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
  });
  beforeEach(async () => {
    page = await browser.context.newPage();
  });
  afterEach(async function () {
    logPlatformOnFailure(this.currentTest, platform);
    await page?.close();
  });

  /**
   * Waits for the app to take the page over: a prerendered page shows its text (and its button) before its code
   * has loaded; the help button comes only with the app.
   */
  const appReady = () => page.getByRole('button', { name: HELP_MENU_LABEL }).waitFor();

  /** How far the document reaches past the viewport's right edge, in CSS pixels (0 when it does not). */
  const overflow = () =>
    page
      .locator('html')
      .evaluate((html) => Math.max(0, html.scrollWidth - (html.ownerDocument.defaultView?.innerWidth ?? 0)));

  /** At a phone's and a laptop's size: no sideways scrolling, nothing serious for axe, a screenshot. */
  async function expectFitsEverywhere(name: string): Promise<void> {
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.waitForTimeout(100);
      expect(await overflow(), `${name} at ${viewport.width}px: sideways scroll`).to.equal(0);
      expect(await accessibilityProblems(page), `${name} at ${viewport.width}px`).to.deep.equal([]);
      if (SCREENSHOTS)
        await page.screenshot({
          path: path.join(SCREENSHOTS, `${name}-${viewport.name}.png`),
          fullPage: true,
        });
    }
  }

  for (const { path: pagePath, document } of documents) {
    it(`${pagePath} shows its headings, and Download PDF saves ${document.fileName} holding them as text`, async () => {
      const scripts: string[] = [];
      page.on('request', (request) => {
        if (request.resourceType() === 'script') scripts.push(request.url());
      });
      await page.goto(`${platform.url}${pagePath}`);
      await page.getByRole('heading', { level: 1, name: document.title }).waitFor();
      expect(await page.title()).to.equal(`${document.title} | Exploit Grid`);
      await page.getByText(lastUpdated(document.revised)).waitFor();
      const headings = await page.getByRole('heading', { level: 2 }).allTextContents();
      expect(headings).to.deep.equal([
        CONTENTS,
        ...document.sections.map((s) => s.heading),
        document.contact.heading,
      ]);
      await appReady();
      await page.waitForLoadState('networkidle');
      await expectFitsEverywhere(pagePath.slice(1));

      // The PDF's code (legal/pdf.ts with jsPDF: a chunk of its own) comes only with the press of the button.
      const pdfChunk = /\/assets\/pdf-[\w-]+\.js$/;
      expect(scripts.filter((url) => pdfChunk.test(url))).to.deep.equal([]);
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: DOWNLOAD_PDF }).click();
      const file = await download;
      expect(file.suggestedFilename()).to.equal(document.fileName);
      expect(scripts.filter((url) => pdfChunk.test(url))).to.have.length(1);

      const text = (await pdfPages(new Uint8Array(await readFile(await file.path())))).join(' ');
      expect(text).to.include(document.title);
      expect(text).to.include(lastUpdated(document.revised));
      for (const { heading } of [...document.sections, document.contact]) expect(text).to.include(heading);
      // Links are printed with the address of this site.
      expect(text).to.include(`${platform.url}/contact`);
    });
  }

  it('follows the contents to a section', async () => {
    await page.goto(`${platform.url}/terms-of-service`);
    await appReady();
    const refunds = termsOfService.sections.find((s) => s.heading.includes('Refunds'))!;
    await page
      .getByRole('navigation', { name: CONTENTS })
      .getByRole('link', { name: refunds.heading })
      .click();
    await page.waitForURL(`${platform.url}/terms-of-service#${refunds.id}`);
    const top = await page
      .getByRole('heading', { level: 2, name: refunds.heading })
      .evaluate((h) => h.getBoundingClientRect().top);
    expect(top).to.be.within(0, 200);
  });

  it('signs up in the browser only with both boxes ticked', async () => {
    await page.setViewportSize(VIEWPORTS[0]);
    await page.goto(`${platform.url}/signup`);
    await appReady();
    await page.getByLabel(EMAIL_LABEL).fill('dozer@example.test');
    await page.getByLabel(HANDLE_LABEL).fill('dozer_e2e');
    await page.getByLabel(PASSWORD_LABEL, { exact: true }).fill('follow the white rabbit');
    const signups: number[] = [];
    page.on('response', (res) => {
      if (res.url().endsWith('/api/v1/auth/signup')) signups.push(res.status());
    });
    await page.getByRole('button', { name: SIGN_UP }).click();
    await page.getByText(AGE_CONFIRMATION_REQUIRED, { exact: true }).waitFor();
    await page.getByText(TERMS_ACCEPTANCE_REQUIRED, { exact: true }).waitFor();
    await expectFitsEverywhere('signup-refused');

    await page.getByRole('checkbox', { name: AGE_CONFIRM_LABEL }).check();
    await page.getByRole('button', { name: SIGN_UP }).click();
    await page.getByText(AGE_CONFIRMATION_REQUIRED, { exact: true }).waitFor({ state: 'detached' });
    await page.getByText(TERMS_ACCEPTANCE_REQUIRED, { exact: true }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/signup');
    expect(signups, 'no sign-up reached the API').to.deep.equal([]);

    // The terms open in a tab of their own: the form keeps what was typed.
    const terms = page.getByRole('link', { name: TERMS_LINK, exact: true });
    const opened = browser.context.waitForEvent('page');
    await terms.click();
    const tab = await opened;
    await tab.getByRole('heading', { level: 1, name: termsOfService.title }).waitFor();
    await tab.close();
    expect(await page.getByLabel(HANDLE_LABEL).inputValue()).to.equal('dozer_e2e');
    expect(await page.getByRole('link', { name: PRIVACY_LINK, exact: true }).getAttribute('href')).to.equal(
      '/privacy-policy',
    );

    await page.getByRole('checkbox', { name: `I accept the ${TERMS_LINK} and the ${PRIVACY_LINK}.` }).check();
    await expectFitsEverywhere('signup-ticked');
    await page.getByRole('button', { name: SIGN_UP }).click();
    await page.waitForURL(`${platform.url}/awaiting-verification`);
    expect(signups).to.deep.equal([201]);
  });
});
