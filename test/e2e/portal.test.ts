import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { CREATE_IDENTITY, HOW_TO_PLAY, JACK_IN } from '../../portal/src/strings/home.ts';
import { HOW_TO_PLAY_HEADLINE } from '../../portal/src/strings/howToPlay.ts';
import { HELP_MENU_LABEL, NOT_FOUND_TEXT, helpMenuGroups } from '../../portal/src/strings/site.ts';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { startPlatform, type RunningPlatform } from '../support/platform.ts';

describe('portal in Chromium, served by the platform as `make run` starts it', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  before(async () => {
    platform = await startPlatform();
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

  it('renders the home page with its title, three buttons and no errors (CSP included)', async () => {
    await page.goto(`${platform.url}/`, { waitUntil: 'networkidle' });
    expect(await page.title()).to.equal('Live-Fire Hacking Arena | Exploit Grid');
    for (const name of [JACK_IN, CREATE_IDENTITY, HOW_TO_PLAY]) {
      expect(await page.getByRole('link', { name, exact: true }).isVisible(), name).to.equal(true);
    }
    expect(await page.getByRole('region', { name: 'Features' }).getByRole('heading').count()).to.equal(3);
    expect(problems).to.deep.equal([]);
  });

  for (const [name, path] of [
    [JACK_IN, '/login'],
    [CREATE_IDENTITY, '/signup'],
  ] as const) {
    it(`goes to ${path} when ${name} is clicked`, async () => {
      await page.goto(`${platform.url}/`);
      await page.getByRole('link', { name, exact: true }).click();
      await page.waitForURL(`${platform.url}${path}`);
    });
  }

  it('opens How to Play with its headline when the button is clicked', async () => {
    await page.goto(`${platform.url}/`);
    await page.getByRole('link', { name: HOW_TO_PLAY, exact: true }).click();
    await page.waitForURL(`${platform.url}/how-to-play`);
    await page.getByRole('heading', { level: 1, name: HOW_TO_PLAY_HEADLINE }).waitFor();
    expect(await page.title()).to.equal('How to Play | Exploit Grid');
  });

  it('shows the not-found text for an unknown route, loaded directly (a 404 for crawlers), with a link home', async () => {
    const answer = await page.goto(`${platform.url}/this/route/does/not/exist`);
    expect(answer?.status()).to.equal(404);
    await page.getByText(NOT_FOUND_TEXT).waitFor();
    await page.getByRole('link', { name: 'Back to base' }).click();
    await page.waitForURL(`${platform.url}/`);
    // The browser reports the page's own 404; nothing else went wrong.
    expect(problems).to.deep.equal([
      'Failed to load resource: the server responded with a status of 404 (Not Found)',
    ]);
  });

  it('opens the help menu and follows one of its links', async () => {
    await page.goto(`${platform.url}/`);
    await page.getByRole('button', { name: HELP_MENU_LABEL }).click();
    const menu = page.getByRole('navigation', { name: HELP_MENU_LABEL });
    for (const group of helpMenuGroups) await menu.getByRole('button', { name: group.title }).click();
    expect(await menu.getByRole('link').count()).to.equal(helpMenuGroups.flatMap((g) => g.links).length);
    await menu.getByRole('link', { name: 'How to Play' }).click();
    await page.waitForURL(`${platform.url}/how-to-play`);
  });
});
