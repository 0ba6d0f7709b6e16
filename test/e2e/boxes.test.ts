import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
 * The whole box path as a new player walks it, on the real local runtime: create a box in
 * Chromium, see it run, download the UDP config, see 'Preparing...' until a stock OpenVPN
 * client connects with that file from a "player's computer" (a network namespace), then
 * ssh to the box as root over the VPN. Another player's VPN address is refused.
 */
describe('boxes in Chromium: create, run, download the VPN config, connect, ssh', function () {
  this.timeout(300_000);
  const id = randomBytes(2).toString('hex');
  const prefix = `ege${id.slice(0, 3)}`;
  const octet = 100 + (parseInt(id, 16) % 100);
  const env = localRuntimeEnv({ prefix, net3: `172.31.${octet}`, octet });
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let downloads: string;
  let boxes: BoxPlatform | undefined;
  const alice = new ClientNamespace(`${prefix}-alice`, `${prefix}-ca`, `172.31.${octet}`, 4);
  const bob = new ClientNamespace(`${prefix}-bob`, `${prefix}-cb`, `172.31.${octet}`, 8);
  const problems: string[] = [];

  before(async function () {
    await requireBoxHost(this, 'boxes end to end');
    downloads = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-downloads-'));
    boxes = await startBoxPlatform('boxes', env);
    platform = boxes.platform;
    await alice.create();
    await bob.create();
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
  });

  after(async function () {
    await browser?.close();
    await alice.destroy();
    await bob.destroy();
    if (downloads) await rm(downloads, { recursive: true, force: true });
    await boxes?.stop();
  });

  async function signIn(handle: string): Promise<void> {
    const identity = { handle, email: `${handle}@example.test`, password: 'correct horse battery' };
    await createVerifiedAccount(platform, identity);
    await page.goto(`${platform.url}/login`);
    await page.getByLabel('Email').fill(identity.email);
    await page.getByLabel('Password', { exact: true }).fill(identity.password);
    await page.getByRole('button', { name: 'Log In' }).click();
    await page.waitForURL('**/dashboard');
  }

  it('takes a new player from no box to a root shell over the VPN', async () => {
    await signIn('trinity');
    // Dashboard: no box yet.
    await page.getByText('No box provisioned.').waitFor();
    await page.getByRole('link', { name: 'Deploy a Box' }).click();
    await page.waitForURL('**/box');

    await page.getByRole('button', { name: 'Create Box' }).click();
    await page.getByText('trinity-box').first().waitFor();
    await page.getByRole('button', { name: 'Start' }).click();
    // The status chip (a bare 'RUNNING' would also match the VPN steps' 'leave it running').
    await page
      .getByTestId('box-status')
      .filter({ hasText: /^RUNNING$/ })
      .first()
      .waitFor({ timeout: 120_000 });
    // Running, but no VPN client yet.
    await page.getByText('Preparing...').waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download UDP config' }).click(),
    ]);
    expect(download.suggestedFilename()).to.equal('udp_trinity.ovpn');
    const configFile = path.join(downloads, download.suggestedFilename());
    await download.saveAs(configFile);
    const config = await readFile(configFile, 'utf8');
    expect(config)
      .to.match(/^proto udp$/m)
      .and.to.include('<tls-crypt>');

    await alice.connectVpn(configFile);
    // The VPN status socket turns 'Preparing...' into the ready state.
    await page.getByText('Ready', { exact: true }).waitFor({ timeout: 20_000 });
    expect(await page.getByText('Preparing...').count()).to.equal(0);

    const box = (await (
      await page.request.get(`${platform.url}/api/v1/boxes/my`, {
        headers: {
          authorization: `Bearer ${await storedAccessToken(page)}`,
        },
      })
    ).json()) as { ip: string; ssh_password: string };
    await page.getByText(`ssh root@${box.ip}`).first().waitFor();
    // RUNNING is the box's systemd up; its sshd listens a moment later.
    const shell = await until(
      'a root shell over ssh',
      () => alice.ssh(box.ip, 'id -u; hostname; echo $SSH_CONNECTION', { password: box.ssh_password }),
      60_000,
      1000,
    );
    const [uid, hostname, connection] = shell.trim().split('\n');
    expect(uid).to.equal('0');
    expect(hostname).to.equal('trinity-box');
    // The box sees the player's VPN address: no NAT between the VPN and the arena.
    expect(connection).to.match(new RegExp(`^10\\.${octet + 1}\\.`));

    // Another player with a valid VPN config of their own cannot reach it.
    const other = await createVerifiedAccount(platform, {
      handle: 'morpheus_box',
      email: 'morpheus_box@example.test',
      password: 'correct horse battery',
    });
    const otherConfig = (await (
      await fetch(`${platform.url}/api/v1/user-vpn/${other.id}/TCP`, {
        headers: { authorization: `Bearer ${other.accessToken}` },
      })
    ).json()) as { ovpn_config: string };
    const otherFile = path.join(downloads, 'tcp_morpheus_box.ovpn');
    await writeFile(otherFile, otherConfig.ovpn_config);
    await bob.connectVpn(otherFile);
    expect(await bob.canConnect(box.ip, 22)).to.equal(false);
    expect(await alice.canConnect(box.ip, 22)).to.equal(true);

    await page.screenshot({ path: path.join(os.tmpdir(), 'eg-e2e-box.png'), fullPage: true });
    expect(problems).to.deep.equal([]);
  });
});
