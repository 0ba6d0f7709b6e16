import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { NO_RECENT_ACTIVITY, RECENT_GRID_ACTIVITY } from '../../portal/src/strings/dashboard.ts';
import {
  ATTACK_HISTORY,
  ATTACK_IN_PROGRESS,
  ATTACK_TIMELINE,
  CLOSE,
  TIMELINE_ENTRIES,
  detailsLabel,
} from '../../portal/src/strings/history.ts';
import { createVerifiedAccount } from '../support/accounts.ts';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { startPlatform, type RunningPlatform } from '../support/platform.ts';

/**
 * Kill Chains in Chromium, on the platform as `make run` starts it: a player with finished attacks (written
 * into the platform's own PostgreSQL, as the box agent's reports would have left them) sees them on /history
 * from their side, opens the timeline of one (the commands and the events in time order), and finds the last
 * three on the dashboard. SCREENSHOTS=dir keeps a picture of each screen.
 */
describe('Kill Chains in Chromium: /history, the attack timeline and the dashboard card', function () {
  this.timeout(120_000);
  const tag = randomBytes(2).toString('hex');
  const password = 'correct horse battery';
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let db: pg.Client;
  const problems: string[] = [];
  const handles = { me: `zero_${tag}`, acid: `acid_${tag}`, crash: `crash_${tag}`, nikon: `nikon_${tag}` };
  const ids: Record<keyof typeof handles, string> = { me: '', acid: '', crash: '', nikon: '' };

  before(async () => {
    platform = await startPlatform();
    for (const key of Object.keys(handles) as (keyof typeof handles)[]) {
      const handle = handles[key];
      ids[key] = (
        await createVerifiedAccount(platform, { handle, email: `${handle}@example.test`, password })
      ).id;
    }
    db = new pg.Client({ connectionString: await databaseUrl(platform) });
    await db.connect();
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
  });

  after(async () => {
    await browser?.close();
    await db?.end();
    await platform?.stop();
  });

  /** An attack as the platform settles it, `minutesAgo` before now, lasting `minutes`; answers its id. */
  async function insertAttack(
    attacker: string,
    target: string,
    outcome: string,
    minutesAgo: number,
    minutes: number,
  ): Promise<string> {
    const winner = ['OWNED', 'FOOTHOLD'].includes(outcome)
      ? attacker
      : ['DEFENDED', 'TIMEOUT'].includes(outcome)
        ? target
        : null;
    const loser = winner === null ? null : winner === attacker ? target : attacker;
    const { rows } = await db.query<{ id: string }>(
      `insert into attacks (attacker_id, target_id, status, cost_cents, created_at, ends_at, ended_at, winner_id, loser_id)
       values ($1, $2, $3, 500, now() - make_interval(mins => $4), now() - make_interval(mins => $4) + interval '30 minutes',
               case when $3 = 'PENDING' then null else now() - make_interval(mins => $4) + make_interval(mins => $5) end,
               $6, $7)
       returning id`,
      [attacker, target, outcome, minutesAgo, minutes, winner, loser],
    );
    return rows[0]!.id;
  }

  /** A command of the kill chain, `seconds` after the attack started, and its COMMAND event a moment later. */
  async function insertCommand(
    attackId: string,
    seconds: number,
    user: string,
    cwd: string,
    command: string,
  ) {
    await db.query(
      `insert into attack_command_logs (attack_id, executed_at, username, cwd, command)
       select id, created_at + make_interval(secs => $2), $3, $4, $5 from attacks where id = $1`,
      [attackId, seconds, user, cwd, command],
    );
    await insertEvent(attackId, seconds + 0.4, 'COMMAND', command);
  }

  async function insertEvent(attackId: string, seconds: number, type: string, message: string) {
    await db.query(
      `insert into attack_events (attack_id, type, details, created_at)
       select id, $3, jsonb_build_object('message', $4::text), created_at + make_interval(secs => $2)
         from attacks where id = $1`,
      [attackId, seconds, type, message],
    );
  }

  async function snap(name: string) {
    const dir = process.env.SCREENSHOTS;
    if (!dir) return;
    await mkdir(dir, { recursive: true });
    // After the dialog's and the tooltip's transitions.
    await page.waitForTimeout(400);
    await page.screenshot({ path: path.join(dir, `${name}.png`) });
  }

  it('lists the attacks from the player’s side and opens the timeline of a finished one', async () => {
    // Oldest first; the list shows them newest first.
    await insertAttack(ids.nikon, ids.me, 'TIMEOUT', 3 * 24 * 60, 30);
    await insertAttack(ids.me, ids.crash, 'DEFENDED', 2 * 24 * 60, 30);
    const owned = await insertAttack(ids.me, ids.acid, 'OWNED', 26 * 60, 7);
    await insertCommand(owned, 40, 'www-data', '/var/www/html', 'id');
    await insertEvent(owned, 40.5, 'FOOTHOLD', 'User shell as www-data: id');
    await insertCommand(owned, 95, 'www-data', '/tmp', 'sudo -l');
    await insertCommand(owned, 150, 'www-data', '/tmp', 'cat /etc/passwd | grep sh$');
    await insertCommand(owned, 410, 'www-data', '/tmp', 'sudo -n /usr/bin/find . -exec /bin/sh \\; -quit');
    await insertEvent(owned, 410.5, 'OWN', 'Root shell: sudo -n /usr/bin/find . -exec /bin/sh \\; -quit');
    await insertAttack(ids.me, ids.nikon, 'PENDING', 4, 0);

    await page.goto(`${platform.url}/login`);
    await page.getByLabel('Email').fill(`${handles.me}@example.test`);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log In' }).click();
    await page.waitForURL('**/dashboard');

    // The dashboard's last three: newest first, OWNED with the high badge.
    const card = page.getByRole('region', { name: RECENT_GRID_ACTIVITY });
    const recent = card.getByTestId('recent-attack');
    await recent.first().waitFor();
    expect(await recent.allTextContents()).to.deep.equal([
      `${handles.me} targeted ${handles.nikon}`,
      `${handles.me} targeted ${handles.acid}`,
      `${handles.me} targeted ${handles.crash}`,
    ]);
    const badges = card.getByTestId('outcome-badge');
    expect(await badges.allTextContents()).to.deep.equal(['In Progress', 'Owned', 'Defended']);
    expect(await badges.nth(1).getAttribute('data-severity')).to.equal('high');
    expect(await card.getByText(NO_RECENT_ACTIVITY).count()).to.equal(0);
    await snap('dashboard');

    await page.getByRole('link', { name: 'Kill Chains' }).click();
    await page.waitForURL('**/history');
    const table = page.getByRole('table', { name: ATTACK_HISTORY });
    const rows = table.locator('tbody tr');
    await rows.first().waitFor();
    expect(await page.title()).to.equal('Kill Chains | Exploit Grid');
    const cells = async (i: number) => (await rows.nth(i).locator('td').allTextContents()).slice(0, 3);
    expect(await rows.count()).to.equal(4);
    expect(await cells(0)).to.deep.equal(['Attack', handles.nikon, 'In Progress']);
    expect(await cells(1)).to.deep.equal(['Attack', handles.acid, 'Owned']);
    expect(await cells(2)).to.deep.equal(['Attack', handles.crash, 'Defended']);
    expect(await cells(3)).to.deep.equal(['Defense', handles.nikon, 'Survived']);

    // The running attack has no timeline yet.
    const running = rows.nth(0).getByRole('button', { name: detailsLabel(handles.nikon) });
    expect(await running.isDisabled()).to.equal(true);
    await rows.nth(0).locator('td').last().locator('span').first().hover();
    expect(await page.getByRole('tooltip').textContent()).to.equal(ATTACK_IN_PROGRESS);
    await snap('history');

    await rows
      .nth(1)
      .getByRole('button', { name: detailsLabel(handles.acid) })
      .click();
    const dialog = page.getByRole('dialog', { name: ATTACK_TIMELINE });
    const entries = dialog.getByRole('list', { name: TIMELINE_ENTRIES }).getByRole('listitem');
    await entries.first().waitFor();
    expect(await entries.count()).to.equal(6);
    const lines = await entries.evaluateAll((items) =>
      items.map((item) => [
        item.getAttribute('data-kind'),
        item.querySelector('[data-testid^="timeline-"]')?.textContent ?? '',
      ]),
    );
    expect(lines).to.deep.equal([
      ['command', 'www-data@/var/www/html $ id'],
      ['event', 'User shell as www-data: id'],
      ['command', 'www-data@/tmp $ sudo -l'],
      ['command', 'www-data@/tmp $ cat /etc/passwd | grep sh$'],
      ['command', 'www-data@/tmp $ sudo -n /usr/bin/find . -exec /bin/sh \\; -quit'],
      ['event', 'Root shell: sudo -n /usr/bin/find . -exec /bin/sh \\; -quit'],
    ]);
    expect(await dialog.getByTestId('timeline-header').textContent()).to.include(handles.acid);
    await snap('timeline');
    await dialog.getByRole('button', { name: CLOSE }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(problems).to.deep.equal([]);
  });
});

/** The URL of the platform's embedded PostgreSQL: its port from the server's pid file, its password from DATA_DIR. */
async function databaseUrl(platform: RunningPlatform): Promise<string> {
  const pidFile = await readFile(path.join(platform.apiDataDir, 'postgres', 'postmaster.pid'), 'utf8');
  const port = pidFile.split('\n')[3]?.trim();
  const password = (await readFile(path.join(platform.apiDataDir, 'postgres.secret'), 'utf8')).trim();
  return `postgresql://exploit_grid:${encodeURIComponent(password)}@127.0.0.1:${port}/exploit_grid`;
}
