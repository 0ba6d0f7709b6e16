import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  ACTIVE_ATTACK,
  ENGAGE,
  FIND_A_MARK,
  MATCH_FOUND_TITLE,
  NO_WEBGL,
  OPERATORS_ONLINE,
  TARGET_ACQUIRED,
  TOO_HARD,
  UNDER_ATTACK,
  matchRole,
} from '../../portal/src/strings/grid.ts';
import { copyLabel } from '../../portal/src/strings/box.ts';
import {
  ATTACK_HISTORY,
  ATTACK_TIMELINE,
  CLOSE,
  COPY_IP,
  detailsLabel,
} from '../../portal/src/strings/history.ts';
import { LEADERBOARD_TABLE } from '../../portal/src/strings/leaderboard.ts';
import { Arena, until, type ArenaPlayer } from '../support/arena.ts';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { ClientNamespace, requireBoxHost } from '../support/netns.ts';
import { localRuntimeEnv, startPlatform, takeDownBoxes, type RunningPlatform } from '../support/platform.ts';

/**
 * The Grid as two new players live it, each in their own Chromium, on the platform as `make run` starts it
 * with real boxes and stock OpenVPN clients on their own "computers" (network namespaces): both see each other
 * online, press Find a Mark, get the same match and engage; the attacker finds the target's address on the
 * Target Acquired card, gets a reverse shell through the VPN and root through a careless sudo rule; both
 * screens show the outcome overlay, Kill Chains shows the attack and the leaderboard has moved.
 * SCREENSHOTS=dir keeps a picture of each screen.
 */
describe('the Grid in two browsers: find each other, match, engage, fight for real, see the result', function () {
  this.timeout(300_000);
  const tag = randomBytes(2).toString('hex');
  const prefix = `egg${tag.slice(0, 3)}`;
  const octet = 100 + ((parseInt(tag, 16) + 37) % 100);
  const password = 'correct horse battery';
  let env: Record<string, string>;
  let platform: RunningPlatform;
  let dataDir: string | undefined;
  const computers = ['neo', 'trin'].map(
    (name, i) => new ClientNamespace(`${prefix}-${name}`, `${prefix}-c${i}`, `172.31.${octet}`, 4 * (i + 1)),
  );
  let arena: Arena;
  const players: ArenaPlayer[] = [];
  const browsers: Browser[] = [];
  const pages: Page[] = [];
  const problems: string[] = [];

  before(async function () {
    this.timeout(360_000);
    await requireBoxHost(this, 'the Grid end to end');
    env = {
      ...localRuntimeEnv({ prefix, net3: `172.31.${octet}`, octet }),
      MATCH_TICK_MS: '500',
    };
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-grid-'));
    platform = await startPlatform({ env, dataDir, timeoutMs: 120_000 });
    arena = new Arena(platform, dataDir);
    for (const computer of computers) await computer.create();
    players.push(
      ...(await Promise.all([
        arena.join(`neo_${tag}`, computers[0]!),
        arena.join(`trin_${tag}`, computers[1]!),
      ])),
    );
    // Who attacks is the matchmaker's choice: both carry the same mistake.
    for (const player of players) await arena.plantVulnerableService(player, { sudo: true });
    // The second player's browser has no WebGL: the page works without the globe, and two software-rendered
    // globes would share two cores with the boxes.
    for (const [i, player] of players.entries()) {
      const browser = await launchBrowser(i === 0 ? [] : ['--disable-webgl', '--disable-3d-apis']);
      browsers.push(browser);
      const page = await browser.context.newPage();
      page.on('pageerror', (err) => problems.push(`${player.handle}: ${err.message}`));
      page.on('console', (msg) => {
        // Browsers refuse sounds before the page got a gesture: not a problem of the page.
        if (msg.type() === 'error' && !msg.text().includes('play()'))
          problems.push(`${player.handle}: ${msg.text()}`);
      });
      pages.push(page);
    }
  });

  after(async function () {
    this.timeout(120_000);
    for (const browser of browsers) await browser.close().catch(() => undefined);
    arena?.closeShells();
    for (const computer of computers) await computer.destroy().catch(() => undefined);
    await platform?.stop();
    if (dataDir) await takeDownBoxes(env, dataDir);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function logIn(page: Page, player: ArenaPlayer) {
    await page.goto(`${platform.url}/login`);
    await page.getByLabel('Email').fill(`${player.handle}@example.test`);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log In' }).click();
    await page.waitForURL('**/dashboard');
  }

  async function snap(page: Page, name: string) {
    const dir = process.env.SCREENSHOTS;
    if (!dir) return;
    await mkdir(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, `${name}.png`) });
  }

  it('two players queue, match, engage; a reverse shell and sudo OWN the target; overlays, history and leaderboard show it', async () => {
    const [first, second] = players as [ArenaPlayer, ArenaPlayer];
    const [firstPage, secondPage] = pages as [Page, Page];
    for (const [i, page] of pages.entries()) {
      await logIn(page, players[i]!);
      await page.getByRole('link', { name: 'Attack' }).click();
      await page.waitForURL('**/attack');
    }
    expect(await firstPage.title()).to.equal('The Grid | Exploit Grid');

    // Each sees the other online.
    for (const [i, page] of pages.entries()) {
      const other = players[1 - i]!;
      await page
        .getByRole('list', { name: OPERATORS_ONLINE })
        .getByRole('button', { name: new RegExp(other.handle) })
        .waitFor();
    }
    // The globe drew (WebGL in headless Chromium); without WebGL the page says why and keeps the list.
    await firstPage.locator('[data-testid="globe"] canvas').waitFor();
    expect(await secondPage.getByRole('note').textContent()).to.equal(NO_WEBGL);
    await snap(firstPage, 'grid-online');
    await snap(secondPage, 'grid-online-no-webgl');

    // Both press Find a Mark once the grid and the VPN are up.
    for (const page of pages) {
      const find = page.getByRole('button', { name: FIND_A_MARK });
      await until('Find a Mark enabled', async () => !(await find.isDisabled()), 30_000);
      await find.click();
    }
    const matchCards = pages.map((page) => page.getByRole('region', { name: MATCH_FOUND_TITLE }));
    for (const card of matchCards) await card.waitFor({ timeout: 30_000 });
    await snap(firstPage, 'grid-match-found');

    // Roles: the card says who attacks.
    const firstAttacks = (await matchCards[0]!.textContent())!.includes(matchRole('attacker'));
    const [attacker, defender] = firstAttacks ? [first, second] : [second, first];
    const [attackerPage, defenderPage] = firstAttacks ? [firstPage, secondPage] : [secondPage, firstPage];
    expect(await matchCards[0]!.textContent()).to.include((firstAttacks ? second : first).handle);
    expect((await matchCards[1]!.textContent())!.includes(matchRole('attacker'))).to.equal(!firstAttacks);

    for (const card of matchCards) await card.getByRole('button', { name: ENGAGE }).click();

    // The attacker learns where to aim; the defender is warned.
    const target = attackerPage.getByRole('region', { name: TARGET_ACQUIRED });
    await target.waitFor({ timeout: 30_000 });
    await until(
      'the target IP on the card',
      async () => (await target.getByTestId('target-ip').textContent()) === defender.box.ip,
    );
    const active = attackerPage.getByRole('region', { name: ACTIVE_ATTACK });
    expect(await active.getByRole('button', { name: TOO_HARD }).isVisible()).to.equal(true);
    // Nothing lies over it (the operators' list once did, under a tall card): a trial click reaches it, with
    // the target's services on the card (the first round of checks), the tallest it gets.
    await active.getByTestId('attack-services').waitFor({ timeout: 30_000 });
    // In view as the page is, without scrolling the column: what lies at the button's middle is the button.
    expect(
      await active.getByRole('button', { name: TOO_HARD }).evaluate((button) => {
        const box = button.getBoundingClientRect();
        const hit = button.ownerDocument.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
        return hit !== null && button.contains(hit);
      }),
    ).to.equal(true);
    await active.getByRole('button', { name: TOO_HARD }).click({ trial: true, timeout: 10_000 });
    await defenderPage.getByRole('region', { name: UNDER_ATTACK }).waitFor();
    expect(await defenderPage.getByRole('region', { name: UNDER_ATTACK }).textContent()).to.include(
      attacker.handle,
    );
    await snap(attackerPage, 'grid-target-acquired');
    await snap(defenderPage, 'grid-under-attack');

    // The fight, for real: a reverse shell through the VPN, then root.
    const shell = await arena.reverseShell(attacker, defender, 4455);
    expect(await shell.run('id')).to.include('uid=33(www-data)');
    // The referee settles it the moment `id` runs as root: the window (and the shell) may close
    // before the answer comes back.
    shell.send('sudo -n id');

    const won = attackerPage.getByRole('alertdialog', { name: 'SYSTEM OWNED' });
    const lost = defenderPage.getByRole('alertdialog', { name: 'SYSTEM COMPROMISED' });
    await Promise.all([
      won.waitFor({ timeout: 60_000 }).then(() => snap(attackerPage, 'grid-owned')),
      lost.waitFor({ timeout: 60_000 }).then(() => snap(defenderPage, 'grid-compromised')),
    ]);
    // The overlay goes after its 5 s; the attack cards went with the attack.
    await won.waitFor({ state: 'hidden', timeout: 10_000 });
    expect(await attackerPage.getByRole('region', { name: TARGET_ACQUIRED }).count()).to.equal(0);
    expect(await defenderPage.getByRole('region', { name: UNDER_ATTACK }).count()).to.equal(0);
    shell.close();

    // Kill Chains: the attack from each side.
    for (const [page, role, opponent, outcome] of [
      [attackerPage, 'Attack', defender.handle, 'Owned'],
      [defenderPage, 'Defense', attacker.handle, 'Was Owned'],
    ] as const) {
      await page.getByRole('link', { name: 'Kill Chains' }).click();
      const rows = page.getByRole('table', { name: ATTACK_HISTORY }).locator('tbody tr');
      await rows.first().waitFor();
      expect((await rows.first().locator('td').allTextContents()).slice(0, 3)).to.deep.equal([
        role,
        opponent,
        outcome,
      ]);
    }
    await snap(attackerPage, 'grid-history');
    // The timeline names the target box's address, to copy.
    await attackerPage
      .getByRole('button', { name: detailsLabel(defender.handle) })
      .first()
      .click();
    const timeline = attackerPage.getByRole('dialog', { name: ATTACK_TIMELINE });
    await timeline.getByText(defender.box.ip, { exact: true }).waitFor();
    expect(await timeline.getByRole('button', { name: copyLabel(COPY_IP) }).isEnabled()).to.equal(true);
    await snap(attackerPage, 'grid-timeline');
    await timeline.getByRole('button', { name: CLOSE }).click();

    // The leaderboard moved: the winner is first with the attack won, the loser second.
    await attackerPage.getByRole('link', { name: 'Leaderboard' }).click();
    const table = attackerPage.getByRole('table', { name: LEADERBOARD_TABLE });
    const own = table.locator('tbody tr[aria-current="true"]');
    await own.waitFor();
    const ownCells = await own.locator('td').allTextContents();
    expect(ownCells[0]).to.equal('1');
    expect(ownCells[1]).to.include(attacker.handle);
    expect(Number(ownCells[2])).to.be.greaterThan(1000);
    expect(ownCells[3]).to.equal('1/1');
    const loserRow = table.locator(`tbody tr[data-operator-id="${defender.id}"]`);
    const loserCells = await loserRow.locator('td').allTextContents();
    expect(loserCells[0]).to.equal('2');
    expect(Number(loserCells[2])).to.be.lessThan(1000);
    expect(loserCells[5]).to.equal('0/1');
    await snap(attackerPage, 'grid-leaderboard');

    expect(problems, problems.join('\n')).to.deep.equal([]);
  });
});
