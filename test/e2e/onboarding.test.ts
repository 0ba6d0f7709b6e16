import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createVerifiedAccount } from '../support/accounts.ts';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { ClientNamespace, requireBoxHost } from '../support/netns.ts';
import {
  localRuntimeEnv,
  startBoxPlatform,
  type BoxPlatform,
  type RunningPlatform,
} from '../support/platform.ts';
import { storedAccessToken } from '../support/session.ts';
import { until } from '../support/until.ts';

/**
 * The dashboard's first-hour checklist ticks as a new player really takes the steps, on the real local
 * runtime: deploy a box in Chromium, download the UDP config, bring a stock OpenVPN client up from a "player's
 * computer" (a network namespace), log in to the box over ssh. My Box says where the tunnel comes from.
 */
describe('the first-hour checklist in Chromium, on real boxes and a real VPN', function () {
  this.timeout(300_000);
  const id = randomBytes(2).toString('hex');
  const prefix = `ego${id.slice(0, 3)}`;
  const octet = 100 + (parseInt(id, 16) % 100);
  const env = localRuntimeEnv({ prefix, net3: `172.31.${octet}`, octet });
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let downloads: string;
  let boxes: BoxPlatform | undefined;
  // Base 4: its host side is VPN_PUBLIC_HOST (net3.5), where the `.ovpn` files point.
  const computer = new ClientNamespace(`${prefix}-neo`, `${prefix}-cn`, `172.31.${octet}`, 4);
  const problems: string[] = [];

  before(async function () {
    await requireBoxHost(this, 'the checklist end to end');
    downloads = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-downloads-'));
    boxes = await startBoxPlatform('onboarding', env);
    platform = boxes.platform;
    await computer.create();
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
  });

  after(async function () {
    await browser?.close();
    await computer.destroy();
    if (downloads) await rm(downloads, { recursive: true, force: true });
    await boxes?.stop();
  });

  /** Whether the dashboard's checklist shows a step ticked. */
  const ticked = async (step: string) =>
    (await page.locator(`[data-step="${step}"]`).getAttribute('data-done')) === 'true';
  const dashboard = async () => {
    await page.goto(`${platform.url}/dashboard`);
    await page.getByRole('region', { name: 'Your first hour' }).waitFor();
  };
  const token = () => storedAccessToken(page);

  it('ticks box deployed, config downloaded, tunnel up and first ssh as the player does them', async () => {
    const identity = {
      handle: 'neo_first',
      email: 'neo_first@example.test',
      password: 'correct horse battery',
    };
    await createVerifiedAccount(platform, identity);
    await page.goto(`${platform.url}/login`);
    await page.getByLabel('Email').fill(identity.email);
    await page.getByLabel('Password', { exact: true }).fill(identity.password);
    await page.getByRole('button', { name: 'Log In' }).click();
    await page.waitForURL('**/dashboard');

    // A new player: welcomed (not back), no rank before a fight, nothing ticked.
    await page.getByRole('region', { name: 'Your first hour' }).waitFor();
    await page.getByText('Welcome, Operator').waitFor();
    expect(await page.getByText('Welcome Back').count()).to.equal(0);
    expect(await page.getByRole('group', { name: 'Current Rank' }).getByText('Unranked').count()).to.equal(1);
    for (const step of ['BOX_DEPLOYED', 'VPN_CONFIG_DOWNLOADED', 'TUNNEL_UP', 'FIRST_SSH', 'FIRST_MATCH'])
      expect(await ticked(step), step).to.equal(false);

    // Deploy a box.
    await page.getByRole('link', { name: 'Deploy a Box' }).click();
    await page.waitForURL('**/box');
    await page.getByRole('button', { name: 'Create Box' }).click();
    await page.getByText('neo-first-box').first().waitFor();
    await dashboard();
    expect(await ticked('BOX_DEPLOYED')).to.equal(true);
    expect(await ticked('VPN_CONFIG_DOWNLOADED')).to.equal(false);

    // Start it and download the UDP config.
    await page.goto(`${platform.url}/box`);
    await page.getByRole('button', { name: 'Start' }).click();
    // The status chip (a bare 'RUNNING' would also match the VPN steps' 'leave it running').
    await page
      .getByTestId('box-status')
      .filter({ hasText: /^RUNNING$/ })
      .first()
      .waitFor({ timeout: 120_000 });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download UDP config' }).click(),
    ]);
    const configFile = path.join(downloads, download.suggestedFilename());
    await download.saveAs(configFile);
    await dashboard();
    expect(await ticked('VPN_CONFIG_DOWNLOADED')).to.equal(true);
    expect(await ticked('TUNNEL_UP')).to.equal(false);

    // Bring the tunnel up: the dashboard ticks it by itself (the VPN status socket), no reload.
    await computer.connectVpn(configFile);
    await page.locator('[data-step="TUNNEL_UP"][data-done="true"]').waitFor({ timeout: 20_000 });

    // My Box says where the tunnel comes from (the player's computer, as the VPN server sees it).
    await page.goto(`${platform.url}/box`);
    await page.getByText(`Your tunnel is up from ${computer.clientAddress}`).waitFor({ timeout: 20_000 });
    await page
      .getByText(new RegExp(`Your VPN address is 10\\.${octet + 1}\\.\\d+\\.\\d+ \\(UDP\\)`))
      .waitFor();

    // Log in to the box over ssh, as the player does, for a few seconds.
    const box = (await (
      await page.request.get(`${platform.url}/api/v1/boxes/my`, {
        headers: { authorization: `Bearer ${await token()}` },
      })
    ).json()) as { ip: string; ssh_password: string };
    await until(
      'an ssh session on the box',
      () => computer.ssh(box.ip, 'sleep 3; id -u', { password: box.ssh_password }),
      60_000,
      1000,
    );
    await until(
      'the first ssh to tick',
      async () => {
        await dashboard();
        return ticked('FIRST_SSH');
      },
      30_000,
      1000,
    );
    // No match yet: still unranked, the checklist stays.
    expect(await ticked('FIRST_MATCH')).to.equal(false);
    expect(await page.getByRole('group', { name: 'Current Rank' }).getByText('Unranked').count()).to.equal(1);

    // The API says the same, from what it saw.
    const onboarding = (await (
      await page.request.get(`${platform.url}/api/v1/users/me/onboarding`, {
        headers: { authorization: `Bearer ${await token()}` },
      })
    ).json()) as { steps: { step: string; done: boolean }[]; complete: boolean };
    expect(onboarding.steps.map((s) => [s.step, s.done])).to.deep.equal([
      ['BOX_DEPLOYED', true],
      ['VPN_CONFIG_DOWNLOADED', true],
      ['TUNNEL_UP', true],
      ['FIRST_SSH', true],
      ['FIRST_MATCH', false],
    ]);
    expect(onboarding.complete).to.equal(false);
    expect(problems).to.deep.equal([]);
  });
});
