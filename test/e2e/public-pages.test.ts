import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { simpleParser, type ParsedMail } from 'mailparser';
import { chromium, type Browser as PlaywrightBrowser, type Page } from 'playwright-core';
import { CONTACT_SENT } from '../../api/src/contracts/contact-constants.ts';
import {
  CONTACT_EMAIL,
  CONTACT_INQUIRY_TYPE,
  CONTACT_MESSAGE,
  CONTACT_NAME,
  CONTACT_SEND,
  CONTACT_SUBJECT,
} from '../../portal/src/strings/contact.ts';
import { HELP_MENU_LABEL, NOT_FOUND_TEXT, helpMenuGroups } from '../../portal/src/strings/site.ts';
import { VIEWPORTS, launchBrowser, type Browser } from '../support/browser.ts';
import { startPlatform, type RunningPlatform } from '../support/platform.ts';
import { runStaffCli } from '../support/staff.ts';

const PUBLIC_URL_FOR_CARDS = 'https://grid.example';

/** Waits for a mail in DATA_DIR/mail to `to` whose subject matches. */
async function mailTo(dataDir: string, to: string, subject: RegExp, timeoutMs = 15_000): Promise<ParsedMail> {
  const dir = path.join(dataDir, 'mail');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const file of (await readdir(dir).catch(() => [] as string[])).sort().reverse()) {
      const mail = await simpleParser(await readFile(path.join(dir, file)));
      const recipients = (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((a) =>
        a.value.map((v) => v.address?.toLowerCase()),
      );
      if (recipients.includes(to.toLowerCase()) && subject.test(mail.subject ?? '')) return mail;
    }
    await sleep(50);
  }
  throw new Error(`no mail to ${to} matching ${subject}`);
}

describe('the public pages in Chromium: crawlers, link previews, the help menu and the contact form', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const shots = process.env.SCREENSHOTS;

  before(async () => {
    // The address link previews must carry (Open Graph wants absolute addresses); the browser still talks to
    // the platform on its loopback port.
    platform = await startPlatform({
      env: { PUBLIC_URL: PUBLIC_URL_FOR_CARDS, STAFF_EMAIL: 'team@grid.test' },
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
  });
  beforeEach(async () => {
    page = await browser.context.newPage();
    problems = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
  });
  afterEach(async () => {
    await page.close();
  });

  /** The prerendered public pages, as the sitemap lists them, by path. */
  async function sitemapPaths(): Promise<string[]> {
    const xml = await (await fetch(`${platform.url}/sitemap.xml`)).text();
    return [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)]
      .map((m) => new URL(m[1]!).pathname)
      .filter((p) => !p.startsWith('/careers/jobs/'));
  }

  it('lists every page of the help menu in the sitemap, prerendered', async () => {
    const listed = await sitemapPaths();
    for (const link of helpMenuGroups.flatMap((g) => g.links)) expect(listed, link.to).to.include(link.to);
    expect(listed).to.include.members(['/', '/features']);
  });

  it('renders each public page’s text, title, description and sharing cards with JavaScript off', async () => {
    const noScript: PlaywrightBrowser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    });
    try {
      for (const size of VIEWPORTS) {
        const context = await noScript.newContext({ javaScriptEnabled: false, viewport: size });
        const crawler = await context.newPage();
        for (const p of await sitemapPaths()) {
          const answer = await crawler.goto(`${platform.url}${p}`);
          expect(answer?.status(), p).to.equal(200);
          const heading = crawler.getByRole('heading', { level: 1 });
          expect(await heading.count(), p).to.equal(1);
          expect((await heading.textContent())?.trim(), p).to.not.equal('');
          expect(await heading.isVisible(), p).to.equal(true);
          expect(await crawler.getByText(NOT_FOUND_TEXT).count(), p).to.equal(0);
          const title = await crawler.title();
          expect(title, p).to.match(/^.+ \| Exploit Grid$/);
          const meta = (selector: string) => crawler.locator(selector).getAttribute('content');
          const description = (await meta('meta[name="description"]')) ?? '';
          expect(description.length, p).to.be.within(1, 160);
          expect(await meta('meta[property="og:title"]'), p).to.equal(title);
          expect(await meta('meta[property="og:url"]'), p).to.equal(`${PUBLIC_URL_FOR_CARDS}${p}`);
          expect(await meta('meta[property="og:image"]'), p).to.equal(
            `${PUBLIC_URL_FOR_CARDS}/social-card.png`,
          );
          expect(await meta('meta[name="twitter:card"]'), p).to.equal('summary_large_image');
          expect(await crawler.locator('meta[name="robots"]').count(), p).to.equal(0);
          // Nothing wider than the screen, even before the app runs.
          const overflow = await crawler.evaluate<number>(
            'document.documentElement.scrollWidth - document.documentElement.clientWidth',
          );
          expect(overflow, `${p} at ${size.name}`).to.be.at.most(0);
          if (shots)
            await crawler.screenshot({
              path: path.join(
                shots,
                `nojs-${size.name}-${p === '/' ? 'home' : p.slice(1).replaceAll('/', '-')}.png`,
              ),
            });
        }
        await context.close();
      }
    } finally {
      await noScript.close();
    }
  });

  it('keeps a prerendered page on screen while the app takes it over: no loading logo, no second heading', async () => {
    // Records whether the loading logo ever appears while the page loads.
    await page.addInitScript(`(() => {
      window.seenLogo = false;
      new MutationObserver(() => {
        if (document.querySelector('[role="status"][aria-label="Loading"]')) window.seenLogo = true;
      }).observe(document, { childList: true, subtree: true });
    })()`);
    await page.goto(`${platform.url}/features`, { waitUntil: 'domcontentloaded' });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('The Grid');
    await page.waitForLoadState('networkidle');
    // The app is in charge now: the help menu is its own, never prerendered.
    await page.getByRole('button', { name: HELP_MENU_LABEL }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).count()).to.equal(1);
    expect(await page.evaluate<boolean>('window.seenLogo')).to.equal(false);
    expect(problems).to.deep.equal([]);
  });

  it('serves the default sharing picture: a 1200×630 PNG', async () => {
    const res = await fetch(`${platform.url}/social-card.png`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(1, 4).toString()).to.equal('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).to.deep.equal([1200, 630]);
  });

  it('marks the sign-in pages noindex, for crawlers and in the page', async () => {
    for (const p of ['/login', '/signup', '/forgot-password']) {
      const answer = await page.goto(`${platform.url}${p}`, { waitUntil: 'networkidle' });
      expect(answer?.headers()['x-robots-tag'], p).to.equal('noindex');
      expect(await page.locator('meta[name="robots"]').getAttribute('content'), p).to.equal(
        'noindex, nofollow',
      );
    }
  });

  it('reaches a finished page from each of the help menu’s nine links', async () => {
    const links = helpMenuGroups.flatMap((group) =>
      group.links.map((link) => ({ group: group.title, ...link })),
    );
    expect(links).to.have.length(9);
    await page.goto(`${platform.url}/`);
    for (const link of links) {
      await page.getByRole('button', { name: HELP_MENU_LABEL }).click();
      const menu = page.getByRole('navigation', { name: HELP_MENU_LABEL });
      const item = menu.getByRole('link', { name: link.label, exact: true });
      if (!(await item.isVisible())) await menu.getByRole('button', { name: link.group }).click();
      await item.click();
      await page.waitForURL(`${platform.url}${link.to}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      expect(await page.getByText(NOT_FOUND_TEXT).count(), link.to).to.equal(0);
    }
    expect(problems).to.deep.equal([]);
  });

  it('sends the contact form to the staff mailbox, mails the sender a receipt, and staff read it with the CLI', async () => {
    for (const size of VIEWPORTS) {
      await page.setViewportSize(size);
      await page.goto(`${platform.url}/contact`);
      if (shots)
        await page.screenshot({ path: path.join(shots, `contact-${size.name}.png`), fullPage: true });
    }
    const email = `visitor-${Date.now()}@example.com`;
    await page.getByRole('textbox', { name: CONTACT_NAME }).fill('Grace Hopper');
    await page.getByRole('textbox', { name: CONTACT_EMAIL }).fill(email);
    await page.getByRole('combobox', { name: CONTACT_INQUIRY_TYPE }).selectOption('press');
    await page.getByRole('textbox', { name: CONTACT_SUBJECT }).fill('An article about the arena');
    await page.getByRole('textbox', { name: CONTACT_MESSAGE }).fill('May I interview the team next week?');
    await page.getByRole('button', { name: CONTACT_SEND }).click();
    await page.getByText(CONTACT_SENT).waitFor();
    if (shots) await page.screenshot({ path: path.join(shots, 'contact-sent.png') });
    expect(await page.getByRole('textbox', { name: CONTACT_SUBJECT }).inputValue()).to.equal('');

    const staff = await mailTo(
      platform.apiDataDir,
      'team@grid.test',
      /^\[Contact: Press\] An article about the arena$/,
    );
    expect(staff.text).to.include('May I interview the team next week?');
    expect(staff.replyTo?.text).to.equal(email);
    const receipt = await mailTo(platform.apiDataDir, email, /^We received your message$/);
    expect(receipt.text).not.to.include('interview');

    const list = await runStaffCli(platform, 'contact', 'list', '--type', 'press');
    expect(list.stdout).to.include(`Grace Hopper <${email}>`).and.include('An article about the arena');
    expect(problems).to.deep.equal([]);
  });
});
