import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { CHAT_MESSAGES } from '../../api/src/contracts/chat.ts';
import {
  ACCEPT,
  CHAT_PANEL,
  CHAT_REQUEST_TITLE,
  CHAT_STARTED,
  MESSAGE_LABEL,
  NO_BLOCKED_USERS,
  NO_GLOBAL_MESSAGES,
  RETRY,
  SEND_FAILED,
  TAB_ACTIVE,
  TAB_BLOCKED,
  TAB_GLOBAL,
  TAB_PRIVATE,
  TAB_REQUESTS,
  UNBLOCK,
  chatRequestAnswered,
  chatRequestSent,
  chatWith,
  wantsToChat,
} from '../../portal/src/strings/chat.ts';
import { BLOCK, CHAT, OPERATORS_ONLINE } from '../../portal/src/strings/grid.ts';
import { createVerifiedAccount } from '../support/accounts.ts';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { startPlatform, type RunningPlatform } from '../support/platform.ts';

/** The refusal of HTML in the global channel, as the spec words it (core-app section 5). */
const SPEC_HTML_REFUSAL =
  'Message contains potentially harmful content. HTML tags and scripts are not allowed.';
/** How long to watch for something that must not show up. */
const NOT_SHOWN_MS = 1_500;

/**
 * Chat (issue 8) as two new players live it, each in their own Chromium, on the platform as `make run` starts
 * it (no boxes): the Grid's global channel (sent on Enter, confirmed for the sender, seen by the other, HTML
 * refused), a private chat (requested from the target popup, accepted on /chats, a message each way), and a
 * block (the blocker no longer sees the blocked's global messages, the blocked's private message fails, the
 * Blocked tab lists them and Unblock works). SCREENSHOTS=dir keeps a picture of each screen.
 */
describe('Chat in two browsers: the global channel, a private chat, a block', function () {
  this.timeout(120_000);
  const tag = randomBytes(2).toString('hex');
  const password = 'correct horse battery';
  const handles = [`ada_${tag}`, `bix_${tag}`] as const;
  let platform: RunningPlatform;
  const browsers: Browser[] = [];
  const pages: Page[] = [];
  const problems: string[] = [];

  before(async () => {
    platform = await startPlatform();
    for (const handle of handles)
      await createVerifiedAccount(platform, { handle, email: `${handle}@example.test`, password });
    // Without WebGL: the Grid works without the globe (the list picks operators), and a software-rendered
    // globe would take the cores the chat is tested with (grid.test.ts shows the globe).
    for (const handle of handles) {
      const browser = await launchBrowser(['--disable-webgl', '--disable-3d-apis']);
      browsers.push(browser);
      const page = await browser.context.newPage();
      page.on('pageerror', (err) => problems.push(`${handle}: ${err.message}`));
      page.on('console', (msg) => {
        // Browsers refuse sounds before the page got a gesture: not a problem of the page.
        if (msg.type() === 'error' && !msg.text().includes('play()'))
          problems.push(`${handle}: ${msg.text()}`);
      });
      pages.push(page);
    }
  });

  after(async () => {
    for (const browser of browsers) await browser.close().catch(() => undefined);
    await platform?.stop();
  });

  async function logIn(page: Page, handle: string) {
    await page.goto(`${platform.url}/login`);
    await page.getByLabel('Email').fill(`${handle}@example.test`);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log In' }).click();
    await page.waitForURL('**/dashboard');
  }

  async function goToGrid(page: Page) {
    await page.getByRole('link', { name: 'Attack' }).click();
    await page.waitForURL('**/attack');
  }

  async function snap(page: Page, name: string) {
    const dir = process.env.SCREENSHOTS;
    if (!dir) return;
    await mkdir(dir, { recursive: true });
    // After the tabs' and the toasts' transitions.
    await page.waitForTimeout(400);
    await page.screenshot({ path: path.join(dir, `${name}.png`) });
  }

  const panelOf = (page: Page) => page.getByRole('region', { name: CHAT_PANEL });
  const globalList = (page: Page) => panelOf(page).getByRole('list', { name: TAB_GLOBAL });
  /** A message of a list by its text, in the state the list marks it with. */
  const entry = (list: Locator, text: string, status?: 'optimistic' | 'confirmed' | 'failed') =>
    list.locator(status ? `li[data-status="${status}"]` : 'li').filter({ hasText: text });

  /** Each message of a list as a player reads it after its time (which each has): handle, then message. */
  const messagesOf = (list: Locator) =>
    list
      .getByRole('listitem')
      .evaluateAll((items) =>
        items.map((li) =>
          li.querySelector('time')
            ? (li.textContent ?? '').replace(li.querySelector('time')!.textContent ?? '', '')
            : '(no time)',
        ),
      );

  /** Types a message into a message box and presses Enter. */
  async function send(box: Locator, text: string) {
    await box.fill(text);
    await box.press('Enter');
  }

  /** Picks an operator in the Operators online list and answers their popup. */
  async function pick(page: Page, handle: string): Promise<Locator> {
    await page
      .getByRole('list', { name: OPERATORS_ONLINE })
      .getByRole('button', { name: new RegExp(handle) })
      .click();
    const popup = page.getByRole('region', { name: handle });
    await popup.waitFor();
    return popup;
  }

  it('global messages reach both players, HTML is refused; a private chat is requested, accepted and used; a block stops the blocked player', async () => {
    const [ada, bix] = handles;
    const [adaPage, bixPage] = pages as [Page, Page];
    for (const [i, page] of pages.entries()) {
      await logIn(page, handles[i]!);
      await goToGrid(page);
    }
    // Each sees the other online, and the chat panel.
    for (const [i, page] of pages.entries()) {
      await page
        .getByRole('list', { name: OPERATORS_ONLINE })
        .getByRole('button', { name: new RegExp(handles[1 - i]!) })
        .waitFor({ timeout: 30_000 });
      await panelOf(page).getByText(NO_GLOBAL_MESSAGES).waitFor();
    }

    // ---- 1. Global ----
    const hello = `hello grid from ${ada}`;
    const adaBox = panelOf(adaPage).getByRole('textbox', { name: MESSAGE_LABEL });
    await send(adaBox, hello);
    expect(await adaBox.inputValue()).to.equal('');
    // The sender's copy is confirmed by the server's echo (no longer dimmed), the other player gets it.
    await entry(globalList(adaPage), hello, 'confirmed').waitFor({ timeout: 10_000 });
    await entry(globalList(bixPage), hello, 'confirmed').waitFor({ timeout: 10_000 });
    // What a player reads: when, who, what (the time as the reader's browser shows it).
    const received = entry(globalList(bixPage), hello);
    const sentAt = (await received.locator('time').textContent()) ?? '';
    expect(sentAt).to.match(/\d/);
    expect(await received.textContent()).to.equal(`${sentAt}${ada}${hello}`);
    // Not dimmed (the page's own view of the element; the test's TypeScript has no DOM library).
    const opacity = (element: unknown) =>
      (globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string } }).getComputedStyle(
        element,
      ).opacity;
    expect(await entry(globalList(adaPage), hello).evaluate(opacity)).to.equal('1');

    // HTML is refused with the spec's words, stays in the box, and goes nowhere.
    expect(CHAT_MESSAGES.html).to.equal(SPEC_HTML_REFUSAL);
    const payload = '<img src=x onerror=alert(1)>';
    await send(adaBox, payload);
    await panelOf(adaPage).getByText(SPEC_HTML_REFUSAL).waitFor();
    expect(await adaBox.inputValue()).to.equal(payload);
    await snap(adaPage, 'chat-global-html-refused');
    await bixPage.waitForTimeout(NOT_SHOWN_MS);
    expect(await globalList(bixPage).getByRole('listitem').count()).to.equal(1);
    expect(await globalList(adaPage).getByRole('listitem').count()).to.equal(1);
    await snap(bixPage, 'chat-global-received');
    await adaBox.fill('');

    // ---- 2. Private ----
    const adaPopup = await pick(adaPage, bix);
    await adaPopup.getByRole('button', { name: CHAT, exact: true }).click();
    await adaPage.getByText(chatRequestSent(bix)).waitFor();
    await snap(adaPage, 'chat-request-sent');
    // On the Grid, Bix is offered the request for 30 s; left unanswered there, it waits in /chats.
    const prompt = bixPage.getByRole('region', { name: CHAT_REQUEST_TITLE });
    await prompt.getByText(wantsToChat(ada)).waitFor({ timeout: 10_000 });
    expect(await prompt.getByRole('button', { name: ACCEPT }).isEnabled()).to.equal(true);
    await snap(bixPage, 'chat-request-prompt');

    await bixPage.getByRole('link', { name: 'Chats' }).click();
    await bixPage.waitForURL('**/chats');
    await bixPage.getByRole('tab', { name: new RegExp(`^${TAB_REQUESTS}`) }).click();
    const request = bixPage
      .getByRole('list', { name: TAB_REQUESTS })
      .getByRole('listitem')
      .filter({ hasText: wantsToChat(ada) });
    await request.waitFor({ timeout: 10_000 });
    await snap(bixPage, 'chats-request');
    await request.getByRole('button', { name: ACCEPT }).click();
    await bixPage.getByText(chatRequestAnswered(ada, true)).waitFor();
    await bixPage.getByText(CHAT_STARTED).first().waitFor();
    await adaPage.getByText(CHAT_STARTED).first().waitFor();

    // Ada writes from the Grid's panel (Private tab), Bix from /chats.
    const adaPanel = panelOf(adaPage);
    await adaPanel.getByRole('tab', { name: TAB_PRIVATE }).click();
    await adaPanel.getByRole('button', { name: new RegExp(bix) }).click();
    const adaConversation = adaPanel.getByRole('textbox', { name: MESSAGE_LABEL });
    const adaSays = `psst ${bix}, ada here`;
    await send(adaConversation, adaSays);
    const adaPrivate = adaPanel.getByRole('list', { name: chatWith(bix) });
    await entry(adaPrivate, adaSays, 'confirmed').waitFor({ timeout: 10_000 });

    await bixPage.getByRole('tab', { name: TAB_ACTIVE }).click();
    await bixPage
      .getByRole('list', { name: TAB_ACTIVE })
      .getByRole('button', { name: new RegExp(ada) })
      .click();
    const bixChat = bixPage.getByRole('region', { name: chatWith(ada) });
    const bixPrivate = bixChat.getByRole('list', { name: chatWith(ada) });
    await entry(bixPrivate, adaSays, 'confirmed').waitFor({ timeout: 10_000 });
    const bixSays = `hi ${ada}, bix back at you`;
    await send(bixChat.getByRole('textbox', { name: MESSAGE_LABEL }), bixSays);
    await entry(bixPrivate, bixSays, 'confirmed').waitFor({ timeout: 10_000 });
    await entry(adaPrivate, bixSays, 'confirmed').waitFor({ timeout: 10_000 });
    for (const list of [adaPrivate, bixPrivate])
      expect(await messagesOf(list)).to.deep.equal([`${ada}${adaSays}`, `${bix}${bixSays}`]);
    await snap(bixPage, 'chats-conversation');
    await snap(adaPage, 'chat-panel-private');

    // ---- 3. Block ----
    await goToGrid(bixPage);
    const bixPopup = await pick(bixPage, ada);
    await bixPopup.getByRole('button', { name: BLOCK, exact: true }).click();
    await bixPopup.getByRole('button', { name: UNBLOCK, exact: true }).waitFor();
    expect(await bixPopup.getByRole('button', { name: CHAT, exact: true }).isDisabled()).to.equal(true);
    // The blocked player's messages leave the global channel.
    await panelOf(bixPage).getByText(NO_GLOBAL_MESSAGES).waitFor();

    // Ada's new global message is confirmed for her and never reaches Bix.
    const afterBlock = `anyone there? ${ada}`;
    await adaPanel.getByRole('tab', { name: TAB_GLOBAL }).click();
    await send(adaPanel.getByRole('textbox', { name: MESSAGE_LABEL }), afterBlock);
    await entry(globalList(adaPage), afterBlock, 'confirmed').waitFor({ timeout: 10_000 });
    await bixPage.waitForTimeout(NOT_SHOWN_MS);
    expect(await panelOf(bixPage).getByText(afterBlock).count()).to.equal(0);

    // Ada's private message to Bix fails: 'Not sent.' with Retry (her conversation is still open).
    await adaPanel.getByRole('tab', { name: TAB_PRIVATE }).click();
    await adaPrivate.waitFor();
    const blockedSays = `why so quiet, ${bix}?`;
    await send(adaPanel.getByRole('textbox', { name: MESSAGE_LABEL }), blockedSays);
    const failed = entry(adaPrivate, blockedSays, 'failed');
    await failed.waitFor({ timeout: 10_000 });
    expect(await failed.getByText(SEND_FAILED).isVisible()).to.equal(true);
    expect(await failed.getByRole('button', { name: RETRY }).isVisible()).to.equal(true);
    await snap(adaPage, 'chat-private-failed');

    // Bix's Blocked tab lists Ada; Unblock empties it.
    const bixPanel = panelOf(bixPage);
    await bixPanel.getByRole('tab', { name: TAB_BLOCKED }).click();
    const blockedList = bixPanel.getByRole('list', { name: TAB_BLOCKED });
    await blockedList.getByText(ada).waitFor();
    expect(await blockedList.getByRole('listitem').count()).to.equal(1);
    await snap(bixPage, 'chat-blocked');
    await blockedList.getByRole('button', { name: UNBLOCK }).click();
    await bixPanel.getByText(NO_BLOCKED_USERS).waitFor();

    // Unblocked: Ada's earlier message is back for Bix (the one sent while blocked never came); her retry
    // goes through and reaches Bix.
    await bixPanel.getByRole('tab', { name: TAB_GLOBAL }).click();
    await entry(globalList(bixPage), hello).waitFor();
    expect(await globalList(bixPage).getByText(afterBlock).count()).to.equal(0);
    await failed.getByRole('button', { name: RETRY }).click();
    await entry(adaPrivate, blockedSays, 'confirmed').waitFor({ timeout: 10_000 });
    await bixPanel.getByRole('tab', { name: TAB_PRIVATE }).click();
    await bixPanel.getByRole('button', { name: new RegExp(ada) }).click();
    await entry(bixPanel.getByRole('list', { name: chatWith(ada) }), blockedSays, 'confirmed').waitFor({
      timeout: 10_000,
    });
    await snap(bixPage, 'chat-unblocked-private');

    expect(problems, problems.join('\n')).to.deep.equal([]);
  });
});
