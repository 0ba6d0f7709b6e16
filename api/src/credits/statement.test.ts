import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { LedgerEntryView, LedgerPage } from '../contracts/index.ts';
import { minutesCost } from '../boxes/billing.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, type BoxTestPlatform } from '../testing/boxes.ts';
import { Ledger } from './ledger.ts';

describe("GET /credits/ledger: the player's statement", function () {
  let t: BoxTestPlatform;
  before(async () => {
    t = await startBoxPlatform();
  });
  after(() => t?.close());

  const statement = async (account: TestAccount, query = '') => {
    const res = await t.call<LedgerPage & { message?: string }>('GET', `/credits/ledger${query}`, {
      token: account.token,
    });
    return res;
  };
  /** Minutes `from`..`to` of one box session, charged as the box loop does (a row a minute). */
  async function boxTime(account: TestAccount, session: string, from: number, to: number) {
    for (let minute = from; minute <= to; minute++) {
      const cents = minutesCost(4000, minute) - minutesCost(4000, minute - 1);
      await Ledger.charge(t.sql(), account.id, cents, 'BOX_TIME', `${session}:${minute}`);
    }
  }
  const newSession = () => `box:${randomUUID()}:${new Date().toISOString()}`;
  const brief = (entries: LedgerEntryView[]) =>
    entries.map((e) => [e.description, e.creditsDelta, e.freeCreditsDelta, e.credits, e.freeCredits]);

  it('lists what happened, newest first, in words, with the change and the balances after it', async () => {
    const player = await t.account();
    const target = await t.account();
    const session = newSession();
    await boxTime(player, session, 1, 12);
    const attack = await t.db.query<{ id: string }>(
      `insert into attacks (attacker_id, target_id, status, cost_cents, ends_at, ended_at)
       values ($1, $2, 'CANCELLED', 500, now(), now()) returning id`,
      [player.id, target.id],
    );
    const attackId = attack.rows[0]!.id;
    await Ledger.charge(t.sql(), player.id, 500, 'ATTACK', `attack:${attackId}`);
    // The same session goes on after the attack: its minutes are a line of their own.
    await boxTime(player, session, 13, 14);
    await Ledger.grant(t.sql(), player.id, { creditsCents: 500 }, 'ADJUSTMENT', `refund:attack:${attackId}`);
    await Ledger.grant(t.sql(), player.id, { creditsCents: 200_000 }, 'PURCHASE', randomUUID());
    await Ledger.grant(t.sql(), player.id, { freeCreditsCents: 1234 }, 'GIFT_TOKEN', `gift:${randomUUID()}`);
    await Ledger.charge(t.sql(), player.id, 50_000, 'REFUND', randomUUID());
    await Ledger.charge(t.sql(), player.id, 1050, 'CHARGEBACK', randomUUID());
    await Ledger.grant(t.sql(), player.id, { creditsCents: 1 }, 'ADJUSTMENT', null);
    // A new session of 75 minutes: one line.
    await boxTime(player, newSession(), 1, 75);
    await Ledger.charge(t.sql(), player.id, 100, 'ATTACK', `attack:${randomUUID()}`);

    const page = await statement(player, '?limit=100');
    expect(page.status).to.equal(200);
    expect(page.body.total).to.equal(12);
    // Box time at 40 an hour: 12 minutes 8.00, two more 1.33, 75 minutes 50.00; free credits first.
    expect(brief(page.body.data)).to.deep.equal([
      ['Attack', -1, 0, 1541.52, 0],
      ['Box time (1 h 15 min)', -50, 0, 1542.52, 0],
      ['Adjustment', 0.01, 0, 1592.52, 0],
      ['Chargeback', -10.5, 0, 1592.51, 0],
      ['Refund', -401.99, -98.01, 1603.01, 0],
      ['Gift token', 0, 12.34, 2005, 98.01],
      ['Purchase $20', 2000, 0, 2005, 85.67],
      [`Attack on ${target.handle} refunded`, 5, 0, 5, 85.67],
      ['Box time (2 min)', 0, -1.33, 0, 85.67],
      [`Attack on ${target.handle}`, 0, -5, 0, 87],
      ['Box time (12 min)', 0, -8, 0, 92],
      ['Welcome gift', 0, 100, 0, 100],
    ]);
    const [newest] = page.body.data;
    expect(newest!.reason).to.equal('ATTACK');
    expect(Date.parse(newest!.createdAt)).to.be.closeTo(Date.now(), 60_000);
    expect(page.body.data.map((e) => e.reason)).to.deep.equal([
      'ATTACK',
      'BOX_TIME',
      'ADJUSTMENT',
      'CHARGEBACK',
      'REFUND',
      'GIFT_TOKEN',
      'PURCHASE',
      'ADJUSTMENT',
      'BOX_TIME',
      'ATTACK',
      'BOX_TIME',
      'SIGNUP_GIFT',
    ]);
    // Each line's balances are the line before's plus its change.
    const data = page.body.data;
    for (let i = 0; i < data.length - 1; i++) {
      const [line, before] = [data[i]!, data[i + 1]!];
      expect(Math.round((before.credits + line.creditsDelta) * 100)).to.equal(Math.round(line.credits * 100));
      expect(Math.round((before.freeCredits + line.freeCreditsDelta) * 100)).to.equal(
        Math.round(line.freeCredits * 100),
      );
    }
  });

  it('pages through the lines, a run of box time never split between pages', async () => {
    const player = await t.account();
    await boxTime(player, newSession(), 1, 3);
    // Powered off and on again: a session of its own, right after the first.
    await boxTime(player, newSession(), 1, 4);
    await Ledger.charge(t.sql(), player.id, 100, 'ATTACK', null);
    // Lines, newest first: Attack, Box time (4), Box time (3), Welcome gift.
    const pages = await Promise.all(
      ['?limit=3', '?page=2&limit=3', '?page=3&limit=3'].map((q) => statement(player, q)),
    );
    expect(pages.map((p) => p.body.total)).to.deep.equal([4, 4, 4]);
    expect(pages.map((p) => p.body.data.map((e) => e.description))).to.deep.equal([
      ['Attack', 'Box time (4 min)', 'Box time (3 min)'],
      ['Welcome gift'],
      [],
    ]);
    // The default page is 20 lines.
    expect((await statement(player)).body.data).to.have.length(4);
  });

  it("shows only the caller's own rows", async () => {
    const alice = await t.account();
    const bob = await t.account();
    await Ledger.grant(t.sql(), bob.id, { creditsCents: 100_000 }, 'PURCHASE', 'bob');
    const mine = await statement(alice);
    expect(mine.body).to.deep.include({ total: 1 });
    expect(mine.body.data.map((e) => e.description)).to.deep.equal(['Welcome gift']);
    expect((await statement(bob)).body.data.map((e) => e.description)).to.deep.equal([
      'Purchase $10',
      'Welcome gift',
    ]);
    // No other player's statement can be asked for.
    const other = await statement(alice, `?userId=${bob.id}`);
    expect(other.status).to.equal(400);
    expect((await t.call('GET', '/credits/ledger')).status).to.equal(401);
  });

  it('refuses a page or a limit out of range', async () => {
    const player = await t.account();
    for (const [query, message] of [
      ['?limit=0', 'limit: limit must be between 1 and 100.'],
      ['?limit=101', 'limit: limit must be between 1 and 100.'],
      ['?page=0', 'page: page must be at least 1.'],
      ['?page=two', 'page: page must be a number.'],
      ['?page=1.5', 'page: page must be a whole number.'],
    ]) {
      const res = await statement(player, query);
      expect(res.status, query).to.equal(400);
      expect(res.body.message, query).to.equal(message);
    }
  });
});
