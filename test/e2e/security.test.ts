import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import * as openpgp from 'openpgp';
import type { Page } from 'playwright-core';
import {
  TRACKING_ID_PATTERN,
  UNDISCLOSED_FINDING_TITLE,
} from '../../api/src/contracts/security-constants.ts';
import {
  ANONYMOUS_LABEL,
  CATEGORY_LABEL,
  DESCRIPTION_LABEL,
  HALL_OF_FAME_EMPTY_TITLE,
  HALL_OF_FAME_LINK,
  HALL_OF_FAME_TITLE,
  IMPACT_ASSESSMENT_LABEL,
  REFERRAL_SOURCE_LABEL,
  REPORTER_EMAIL_LABEL,
  REPORTER_HANDLE_LABEL,
  REPORTER_LINKEDIN_LABEL,
  REPORTER_NAME_LABEL,
  REPORTER_TWITTER_LABEL,
  REPORTER_WEBSITE_LABEL,
  REPORT_DIALOG_TITLE,
  REPORT_VULNERABILITY,
  REPRODUCTION_STEPS_LABEL,
  SECURITY_TITLE,
  SUBMIT_REPORT,
  TITLE_LABEL,
  CLOSE,
  PGP_KEY_LINK,
  reportSubmitted,
} from '../../portal/src/strings/security.ts';
import { accessibilityProblems } from '../support/axe.ts';
import { VIEWPORTS, launchBrowser, type Browser } from '../support/browser.ts';
import { logPlatformOnFailure, startPlatform, type RunningPlatform } from '../support/platform.ts';
import { runStaffCli } from '../support/staff.ts';

/** Where screenshots of the pages go when set, for a person to look at. */
const SCREENSHOTS = process.env.SCREENSHOTS ?? process.env.SCREENSHOT_DIR;

const required = (label: string) => `${label} *`;
/** The reporter's fields and the referral source, as the modal labels them once anonymous is ticked. */
const REPORTER_LABELS = [
  REPORTER_NAME_LABEL,
  REPORTER_EMAIL_LABEL,
  REPORTER_HANDLE_LABEL,
  REPORTER_WEBSITE_LABEL,
  REPORTER_TWITTER_LABEL,
  REPORTER_LINKEDIN_LABEL,
  REFERRAL_SOURCE_LABEL,
];

describe('security disclosure in Chromium: /security, the report modal, the hall of fame, the key', function () {
  this.timeout(180_000);
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

  /** The staff CLI, as staff run it on this machine: a process of its own on the platform's DATA_DIR. */
  async function staff(...args: string[]): Promise<string> {
    return (await runStaffCli(platform, ...args)).stdout;
  }

  const overflow = () =>
    page
      .locator('html')
      .evaluate((html) => Math.max(0, html.scrollWidth - (html.ownerDocument.defaultView?.innerWidth ?? 0)));

  /** At a phone's and a laptop's size: no sideways scrolling, nothing serious for axe, a screenshot. */
  async function expectFitsEverywhere(name: string, options: { fullPage?: boolean } = {}): Promise<void> {
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.waitForTimeout(150);
      expect(await overflow(), `${name} at ${viewport.width}px: sideways scroll`).to.equal(0);
      expect(await accessibilityProblems(page), `${name} at ${viewport.width}px`).to.deep.equal([]);
      if (SCREENSHOTS)
        await page.screenshot({
          path: path.join(SCREENSHOTS, `security-${name}-${viewport.name}.png`),
          fullPage: options.fullPage ?? true,
        });
    }
  }

  const field = (label: string) =>
    page.getByRole('dialog').getByRole('textbox', { name: label, exact: true });

  async function openModal(): Promise<void> {
    await page.getByRole('button', { name: REPORT_VULNERABILITY }).click();
    await page.getByRole('dialog', { name: REPORT_DIALOG_TITLE }).waitFor();
  }

  async function fillVulnerability(title: string): Promise<void> {
    await field(required(TITLE_LABEL)).fill(title);
    await page.getByRole('combobox', { name: required(CATEGORY_LABEL) }).selectOption('SSRF');
    await field(required(DESCRIPTION_LABEL)).fill('The avatar importer fetches any URL server-side.');
    await field(required(REPRODUCTION_STEPS_LABEL)).fill(
      '1. Set the avatar URL to http://169.254.169.254/\n2. Read it back',
    );
    await field(required(IMPACT_ASSESSMENT_LABEL)).fill('Cloud metadata credentials.');
  }

  async function submitAndReadTrackingId(): Promise<string> {
    await page.getByRole('button', { name: SUBMIT_REPORT }).click();
    const shown = page.getByTestId('tracking-id');
    await shown.waitFor();
    const trackingId = (await shown.textContent())!.trim();
    expect(trackingId).to.match(TRACKING_ID_PATTERN);
    await page.getByText(reportSubmitted(trackingId)).waitFor();
    return trackingId;
  }

  it('reports anonymously from /security: the reporter fields are cleared and disabled, the tracking id shown', async () => {
    await page.goto(`${platform.url}/security`);
    await page.getByRole('heading', { level: 1, name: SECURITY_TITLE }).waitFor();
    expect(await page.title()).to.equal(`${SECURITY_TITLE} | Exploit Grid`);
    await page.waitForLoadState('networkidle');
    await expectFitsEverywhere('page');

    await page.setViewportSize(VIEWPORTS[1]);
    await openModal();
    await field(required(REPORTER_NAME_LABEL)).fill('Grace Hopper');
    await field(required(REPORTER_EMAIL_LABEL)).fill('grace@example.test');
    await field(REPORTER_HANDLE_LABEL).fill('amazing_grace');
    await field(REPORTER_WEBSITE_LABEL).fill('https://grace.example.test');
    await field(REPORTER_TWITTER_LABEL).fill('https://twitter.com/grace');
    await field(REPORTER_LINKEDIN_LABEL).fill('https://www.linkedin.com/in/grace');
    await field(REFERRAL_SOURCE_LABEL).fill('https://news.example.test');
    await fillVulnerability('SSRF in the avatar importer');
    await expectFitsEverywhere('modal', { fullPage: false });

    await page.getByRole('checkbox', { name: ANONYMOUS_LABEL }).check();
    for (const label of REPORTER_LABELS) {
      expect(await field(label).inputValue(), label).to.equal('');
      expect(await field(label).isDisabled(), label).to.equal(true);
    }
    if (SCREENSHOTS)
      await page.screenshot({ path: path.join(SCREENSHOTS, 'security-modal-anonymous-desktop.png') });
    const trackingId = await submitAndReadTrackingId();
    // Checked with the success toast on screen: its colours must be readable too (notifications/Toaster.tsx).
    await page.locator('#notistack-snackbar').waitFor();
    await expectFitsEverywhere('received', { fullPage: false });

    // Staff see it as anonymous, with nothing of the reporter.
    const shown = await staff('reports', 'show', trackingId);
    expect(shown).to.include('Reporter: anonymous').and.include('Title: SSRF in the avatar importer');
    expect(shown).not.to.include('Grace').and.not.to.include('grace@example.test');
  });

  it('thanks a named researcher in the hall of fame once staff accept the report, and shows its title once fixed', async () => {
    await page.goto(`${platform.url}/security/hall-of-fame`);
    await page.getByRole('heading', { level: 1, name: HALL_OF_FAME_TITLE }).waitFor();
    await page.getByText(HALL_OF_FAME_EMPTY_TITLE).waitFor();
    await expectFitsEverywhere('hall-of-fame-empty');

    await page.goto(`${platform.url}/security`);
    await openModal();
    await field(required(REPORTER_NAME_LABEL)).fill('Ada Lovelace');
    await field(required(REPORTER_EMAIL_LABEL)).fill('ada@example.test');
    await field(REPORTER_HANDLE_LABEL).fill('ada');
    await fillVulnerability('SSRF via http://169.254.169.254 in the importer');
    const trackingId = await submitAndReadTrackingId();
    await page.getByRole('button', { name: CLOSE }).first().click();

    expect((await staff('reports', 'list', '--status', 'NEW')).split('\n')[0]).to.include(trackingId);
    expect(
      await staff(
        'reports',
        'accept',
        trackingId,
        '--severity',
        'CRITICAL',
        '--title',
        'SSRF in an importer',
      ),
    ).to.include(`${trackingId}: NEW -> ACCEPTED, severity CRITICAL.`);

    await page.getByRole('link', { name: HALL_OF_FAME_LINK }).click();
    const card = page.getByRole('listitem', { name: 'Ada Lovelace' });
    await card.waitFor();
    // Open: neither its title nor its severity is told.
    expect(await card.textContent())
      .to.include('@ada')
      .and.include(UNDISCLOSED_FINDING_TITLE)
      .and.not.include('Critical');
    // The unfixed finding's title is nowhere on the page.
    expect(await page.locator('main').textContent()).not.to.include('169.254');
    await expectFitsEverywhere('hall-of-fame');

    await staff('reports', 'fixed', trackingId);
    await page.reload();
    await card.getByText('SSRF in an importer').waitFor();
    expect(await card.textContent()).to.include('Critical');
    if (SCREENSHOTS)
      await page.screenshot({ path: path.join(SCREENSHOTS, 'security-hall-of-fame-fixed-desktop.png') });
    expect(await page.content()).not.to.include('ada@example.test');
  });

  it('serves the public key and a security.txt signed with it, before the portal', async () => {
    const key = await fetch(`${platform.url}/pgp-key.asc`);
    expect(key.headers.get('content-type')).to.match(/^application\/pgp-keys/);
    const armoredKey = await key.text();
    expect(armoredKey).to.match(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    expect(armoredKey).not.to.match(/PRIVATE/);
    const publicKey = await openpgp.readKey({ armoredKey });
    expect(publicKey.isPrivate()).to.equal(false);

    const txt = await fetch(`${platform.url}/.well-known/security.txt`);
    expect(txt.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    const verification = await openpgp.verify({
      message: await openpgp.readCleartextMessage({ cleartextMessage: await txt.text() }),
      verificationKeys: publicKey,
      expectSigned: true,
    });
    await verification.signatures[0]!.verified;
    for (const field of [
      'Contact: mailto:',
      'Expires: ',
      'Encryption: ',
      'Policy: ',
      'Acknowledgments: ',
      'Preferred-Languages: en',
      'Canonical: ',
    ])
      expect(verification.data, field).to.include(field);

    // The page's link leads to the key itself, not to the portal's page.
    await page.goto(`${platform.url}/security`);
    const href = await page.getByRole('link', { name: PGP_KEY_LINK }).getAttribute('href');
    expect(await (await fetch(new URL(href!, platform.url))).text()).to.equal(armoredKey);
  });
});
