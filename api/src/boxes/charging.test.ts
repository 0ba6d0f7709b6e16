import { expect } from 'chai';
import type { Socket } from 'socket.io-client';
import { BOX_MESSAGES, type BalancePayload, type Box, type GridNotification } from '../contracts/index.ts';
import { CREDIT_ALERTS } from '../credits/alerts.ts';
import { Ledger } from '../credits/ledger.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';
import { joinGrid } from '../testing/grid-client.ts';
import { minuteCost, minutesCost } from './billing.ts';

const BASIC_HOUR = 40 * 100;
const HACKER_HOUR = 60 * 100;

interface LedgerRow {
  credits_delta_cents: string;
  free_credits_delta_cents: string;
  reason: string;
  reference: string | null;
}

describe('box time: per-minute charging and the BASIC daily limit', function () {
  describe('minuteCost', () => {
    it('charges 66 or 67 hundredths a minute at 40 credits an hour, exactly 4000 an hour', () => {
      const minutes = Array.from({ length: 60 }, (_, i) => minuteCost(BASIC_HOUR, i + 1));
      expect(minutes.slice(0, 4)).to.deep.equal([66, 67, 67, 66]);
      expect(new Set(minutes)).to.deep.equal(new Set([66, 67]));
      expect(minutes.reduce((a, b) => a + b, 0)).to.equal(4000);
      // The rounding carries on into the next hour.
      const twoHours = Array.from({ length: 120 }, (_, i) => minuteCost(BASIC_HOUR, i + 1));
      expect(twoHours.reduce((a, b) => a + b, 0)).to.equal(8000);
      expect(Array.from({ length: 60 }, (_, i) => minuteCost(HACKER_HOUR, i + 1))).to.deep.equal(
        Array.from({ length: 60 }, () => 100),
      );
      expect(
        Array.from({ length: 60 }, (_, i) => minuteCost(7500, i + 1)).reduce((a, b) => a + b, 0),
      ).to.equal(7500);
    });
  });

  /** The platform's view of one player's box and money. */
  function helpers(get: () => BoxTestPlatform) {
    const my = async (user: TestAccount) =>
      (await get().call<Box | null>('GET', '/boxes/my', { token: user.token })).body;
    const power = (user: TestAccount, hostname: string, on: boolean) =>
      get().call<Box & { message: string }>('POST', `/boxes/${hostname}/power`, {
        token: user.token,
        body: { on },
      });
    const boxRow = async (id: string) =>
      (await get().db.query('select * from boxes where id = $1', [id])).rows[0] as Record<string, unknown>;
    const boxTime = async (user: TestAccount) =>
      (
        await get().db.query<LedgerRow>(
          "select * from credit_ledger where user_id = $1 and reason = 'BOX_TIME' order by id",
          [user.id],
        )
      ).rows;
    const spent = (rows: LedgerRow[]) =>
      rows.map((r) => -Number(r.credits_delta_cents) - Number(r.free_credits_delta_cents));
    const balance = async (user: TestAccount) => {
      const { rows } = await get().db.query(
        `select u.credits_cents::int + u.free_credits_cents::int as total, u.credits_cents::int as credits,
                u.free_credits_cents::int as free, (select coalesce(sum(credits_delta_cents + free_credits_delta_cents), 0)::int
                  from credit_ledger l where l.user_id = u.id) as ledger
           from users u where id = $1`,
        [user.id],
      );
      const row = rows[0] as { total: number; credits: number; free: number; ledger: number };
      // Balances always equal the sum of their ledger rows, and never go negative.
      expect(row.total).to.equal(row.ledger);
      expect(row.credits).to.be.at.least(0);
      expect(row.free).to.be.at.least(0);
      return row.total;
    };
    /** Moves the running session's clock back, as if `seconds` had passed. */
    const elapse = (boxId: string, seconds: number) =>
      get().db.query(
        `update boxes set session_started_at = session_started_at - make_interval(secs => $2),
                          usage_counted_until = usage_counted_until - make_interval(secs => $2)
          where id = $1 and session_started_at is not null`,
        [boxId, seconds],
      );
    async function withBox(user?: TestAccount) {
      const owner = user ?? (await get().account());
      const res = await get().call<Box>('POST', '/boxes', { token: owner.token, body: {} });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return { user: owner, box: res.body };
    }
    const waitStatus = (user: TestAccount, status: Box['status']) =>
      waitFor(
        () => my(user),
        (b) => b?.status === status,
        { what: status },
      ) as Promise<Box>;
    /** The player's stored notifications, oldest first. */
    const notifications = async (user: TestAccount) =>
      (
        await get().db.query<{ type: string; title: string; body: string }>(
          'select type, title, body from notifications where user_id = $1 order by created_at, id',
          [user.id],
        )
      ).rows;
    return { my, power, boxRow, boxTime, spent, balance, elapse, withBox, waitStatus, notifications };
  }

  describe('charging', () => {
    let t: BoxTestPlatform;
    before(async () => {
      // 100 free credits at sign-up (10000 hundredths); minute by minute from the first (the
      // minimum charge of a start has tests of its own below).
      t = await startBoxPlatform({ env: { STARTING_FREE_CREDITS: '100', BOX_MINIMUM_CHARGE_MINUTES: '1' } });
    });
    after(() => t?.close());
    const h = helpers(() => t);

    /** Leaves the player exactly `cents` by spending the rest (a ledger row like any other). */
    async function leave(user: TestAccount, cents: number) {
      const total = await h.balance(user);
      if (total > cents) await Ledger.charge(t.sql(), user.id, total - cents, 'ADJUSTMENT', 'test');
      expect(await h.balance(user)).to.equal(cents);
    }

    it('charges the first minute when the box runs, then each started minute, free credits first', async () => {
      const { user, box } = await h.withBox();
      expect(await h.balance(user)).to.equal(10_000);
      await t.call('POST', `/boxes/${box.hostname}/power`, { token: user.token, body: { on: true } });
      await h.waitStatus(user, 'RUNNING');
      const first = await waitFor(
        () => h.boxTime(user),
        (rows) => rows.length >= 1,
        { what: 'the first minute' },
      );
      expect(h.spent(first)).to.deep.equal([66]);
      expect(first[0]).to.include({ credits_delta_cents: '0', free_credits_delta_cents: '-66' });
      expect(first[0]!.reference).to.match(new RegExp(`^box:${box.id}:.+:1$`));
      expect(await h.balance(user)).to.equal(10_000 - 66);
      expect((await h.boxRow(box.id)).session_charged_minutes).to.equal(1);

      // Three minutes and a bit later: minutes 2, 3 and 4 are due.
      await h.elapse(box.id, 3 * 60 + 5);
      const four = await waitFor(
        () => h.boxTime(user),
        (rows) => rows.length >= 4,
        { what: 'minutes 2-4' },
      );
      // A few more loop passes charge nothing more.
      await t.platform.boxes.tick();
      await t.platform.boxes.tick();
      expect(h.spent(await h.boxTime(user))).to.deep.equal([66, 67, 67, 66]);
      expect(four.map((r) => Number(r.reference!.split(':').at(-1)))).to.deep.equal([1, 2, 3, 4]);
      expect(await h.balance(user)).to.equal(10_000 - 266);
      const row = await h.boxRow(box.id);
      expect(row.session_charged_minutes).to.equal(4);
      expect(Number(row.accumulated_usage_seconds)).to.be.within(185, 215);
      const usage = await t.db.query(
        "select seconds from box_daily_usage where user_id = $1 and day = (now() at time zone 'utc')::date",
        [user.id],
      );
      expect(usage.rows[0].seconds).to.be.within(185, 215);
      const shown = await h.my(user);
      expect(shown!.accumulatedUsageSeconds).to.be.within(185, 215);
      expect(shown!.dailyRemainingSeconds).to.be.within(3600 - 215, 3600 - 185);
      // The balance the portal shows follows.
      const me = await t.call<{ freeCredits: number }>('GET', '/users/me', { token: user.token });
      expect(me.body.freeCredits).to.equal(97.34);
    });

    it('takes credits once free credits are gone', async () => {
      const { user, box } = await h.withBox();
      await leave(user, 30);
      await Ledger.grant(t.sql(), user.id, { creditsCents: 1000 }, 'PURCHASE', 'order-1');
      await h.power(user, box.hostname, true);
      const rows = await waitFor(
        () => h.boxTime(user),
        (r) => r.length === 1,
        { what: 'the first minute' },
      );
      expect(rows[0]).to.include({ free_credits_delta_cents: '-30', credits_delta_cents: '-36' });
      expect(await h.balance(user)).to.equal(1030 - 66);
    });

    it('refuses to power on with less than the first minute (402) and starts nothing', async () => {
      const { user, box } = await h.withBox();
      await leave(user, 65);
      const res = await h.power(user, box.hostname, true);
      expect(res.status).to.equal(402);
      expect(res.body.message).to.equal(BOX_MESSAGES.cannotPay);
      const row = await h.boxRow(box.id);
      expect(row).to.include({ desired_power: false, status: 'STOPPED', last_powered_at: null });
      expect(t.orchestrator.appliedTo(box.id).filter((s) => s.power)).to.have.length(0);
      expect(await h.balance(user)).to.equal(65);
      // Exactly one minute's worth is enough.
      await Ledger.grant(t.sql(), user.id, { creditsCents: 1 }, 'ADJUSTMENT');
      expect((await h.power(user, box.hostname, true)).status).to.equal(200);
    });

    it('stops a running box whose owner cannot pay the next minute, with the reason, never below zero', async () => {
      const { user, box } = await h.withBox();
      await leave(user, 150);
      await h.power(user, box.hostname, true);
      await h.waitStatus(user, 'RUNNING');
      await waitFor(
        () => h.boxTime(user),
        (r) => r.length === 1,
        { what: 'the first minute' },
      );
      // Minute 2 (67) can be paid, minute 3 (67) cannot: 150 - 66 - 67 = 17 left.
      await h.elapse(box.id, 2 * 60 + 5);
      const stopped = await h.waitStatus(user, 'STOPPED');
      expect(stopped.statusReason).to.equal(BOX_MESSAGES.cannotPay);
      expect(h.spent(await h.boxTime(user))).to.deep.equal([66, 67]);
      expect(await h.balance(user)).to.equal(17);
      const row = await h.boxRow(box.id);
      expect(row).to.include({ desired_power: false, session_started_at: null, session_charged_minutes: 0 });
      expect(t.orchestrator.machine(box.id)?.state).to.equal('stopped');
      // The reason stays through later passes; power on is refused until there is money.
      await t.platform.boxes.tick();
      expect((await h.my(user))?.statusReason).to.equal(BOX_MESSAGES.cannotPay);
      const again = await h.power(user, box.hostname, true);
      expect(again.status).to.equal(402);
      expect(again.body.message).to.equal(BOX_MESSAGES.cannotPay);
    });

    it('charges each minute of a session once, whatever races with the loop', async () => {
      const { user, box } = await h.withBox();
      await h.power(user, box.hostname, true);
      await h.waitStatus(user, 'RUNNING');
      await h.elapse(box.id, 5 * 60 + 5);
      const storm: Promise<unknown>[] = [];
      for (let i = 0; i < 25; i++) {
        storm.push(t.platform.boxes.kick(box.id));
        if (i % 5 === 0) storm.push(t.platform.boxes.tick());
        if (i % 3 === 0) storm.push(h.power(user, box.hostname, true));
      }
      await Promise.all(storm);
      const row = await h.boxRow(box.id);
      expect(row.session_charged_minutes).to.equal(6);
      const rows = await h.boxTime(user);
      expect(rows).to.have.length(6);
      expect(h.spent(rows)).to.deep.equal([1, 2, 3, 4, 5, 6].map((k) => minuteCost(BASIC_HOUR, k)));
      expect(new Set(rows.map((r) => r.reference)).size).to.equal(6);
      expect(await h.balance(user)).to.equal(10_000 - 400);
    });

    it('never charges a minute twice when power goes off and on during loop passes', async () => {
      const { user, box } = await h.withBox();
      t.orchestrator.boot = 'instant';
      try {
        await h.power(user, box.hostname, true);
        await h.waitStatus(user, 'RUNNING');
        await h.elapse(box.id, 2 * 60 + 5);
        const storm: Promise<unknown>[] = [];
        for (let i = 0; i < 30; i++) {
          storm.push(t.platform.boxes.kick(box.id));
          if (i % 4 === 0) storm.push(h.power(user, box.hostname, i % 8 !== 0));
          if (i % 7 === 0) storm.push(t.platform.boxes.tick());
        }
        await Promise.all(storm);
        await h.power(user, box.hostname, false);
        await h.waitStatus(user, 'STOPPED');
      } finally {
        t.orchestrator.boot = 'next-apply';
      }
      const rows = await h.boxTime(user);
      // Sessions follow one another (one box, its row locked while charging): in ledger order each
      // minute is 1 (a new session) or the previous one + 1, and no reference appears twice.
      const minutes = rows.map((r) => {
        const match = /^box:([0-9a-f-]{36}):(.+):(\d+)$/.exec(r.reference ?? '');
        expect(match, r.reference ?? 'null').to.not.equal(null);
        expect(match![1]).to.equal(box.id);
        return Number(match![3]);
      });
      minutes.forEach((m, i) =>
        expect(m === 1 || m === minutes[i - 1]! + 1, `minutes ${minutes.join()}`).to.equal(true),
      );
      expect(new Set(rows.map((r) => r.reference)).size).to.equal(rows.length);
      expect(h.spent(rows)).to.deep.equal(
        rows.map((r) => minuteCost(BASIC_HOUR, Number(r.reference!.split(':').at(-1)))),
      );
      expect(rows.length).to.be.at.least(3);
      const total = h.spent(rows).reduce((a, b) => a + b, 0);
      expect(await h.balance(user)).to.equal(10_000 - total);
    });
  });

  describe('the minimum charge of a start (BOX_MINIMUM_CHARGE_MINUTES, five minutes by default)', () => {
    let t: BoxTestPlatform;
    before(async () => {
      t = await startBoxPlatform({ env: { STARTING_FREE_CREDITS: '100' } });
    });
    after(() => t?.close());
    const h = helpers(() => t);
    const firstFive = [1, 2, 3, 4, 5].map((k) => minuteCost(BASIC_HOUR, k));

    it('charges the first five minutes as the box boots, then each started minute after them', async () => {
      const { user, box } = await h.withBox();
      await h.power(user, box.hostname, true);
      await h.waitStatus(user, 'RUNNING');
      const first = await waitFor(
        () => h.boxTime(user),
        (rows) => rows.length >= 5,
        { what: 'the first five minutes' },
      );
      expect(h.spent(first)).to.deep.equal(firstFive);
      expect(first.map((r) => Number(r.reference!.split(':').at(-1)))).to.deep.equal([1, 2, 3, 4, 5]);
      // Three minutes in, nothing more is due.
      await h.elapse(box.id, 3 * 60 + 5);
      await t.platform.boxes.tick();
      await t.platform.boxes.tick();
      expect(await h.boxTime(user)).to.have.length(5);
      // The sixth minute is charged once it starts.
      await h.elapse(box.id, 2 * 60);
      const six = await waitFor(
        () => h.boxTime(user),
        (rows) => rows.length >= 6,
        { what: 'minute 6' },
      );
      expect(h.spent(six)).to.deep.equal([...firstFive, minuteCost(BASIC_HOUR, 6)]);
      expect(await h.balance(user)).to.equal(10_000 - minutesCost(BASIC_HOUR, 6));
    });

    it('charges the minimum again at each power-on, however short the run before', async () => {
      const { user, box } = await h.withBox();
      for (let start = 1; start <= 2; start++) {
        await h.power(user, box.hostname, true);
        await h.waitStatus(user, 'RUNNING');
        await waitFor(
          () => h.boxTime(user),
          (rows) => rows.length >= 5 * start,
          { what: `the minimum of start ${start}` },
        );
        await h.power(user, box.hostname, false);
        await h.waitStatus(user, 'STOPPED');
      }
      const rows = await h.boxTime(user);
      expect(h.spent(rows)).to.deep.equal([...firstFive, ...firstFive]);
      expect(new Set(rows.map((r) => r.reference)).size, 'two sessions, no minute twice').to.equal(10);
      expect(await h.balance(user)).to.equal(10_000 - 2 * minutesCost(BASIC_HOUR, 5));
    });

    it('refuses to power on with less than the minimum (402), and starts with exactly it', async () => {
      const { user, box } = await h.withBox();
      const minimum = minutesCost(BASIC_HOUR, 5);
      const total = await h.balance(user);
      await Ledger.charge(t.sql(), user.id, total - (minimum - 1), 'ADJUSTMENT', 'test');
      const res = await h.power(user, box.hostname, true);
      expect(res.status).to.equal(402);
      expect(res.body.message).to.equal(BOX_MESSAGES.cannotPay);
      expect(await h.boxRow(box.id)).to.include({ desired_power: false, status: 'STOPPED' });
      await Ledger.grant(t.sql(), user.id, { creditsCents: 1 }, 'ADJUSTMENT');
      expect((await h.power(user, box.hostname, true)).status).to.equal(200);
      await h.waitStatus(user, 'RUNNING');
      await waitFor(
        () => h.boxTime(user),
        (rows) => rows.length >= 5,
        { what: 'the minimum' },
      );
      expect(await h.balance(user)).to.equal(0);
    });

    it('bills a booted box while nothing listens on port 22 (its owner moved sshd)', async () => {
      const { user, box } = await h.withBox();
      await h.power(user, box.hostname, true);
      await h.waitStatus(user, 'RUNNING');
      t.orchestrator.setOpenPorts(box.id, {});
      await waitFor(
        () => h.my(user),
        (b) => Object.keys(b?.openPorts ?? { x: 1 }).length === 0,
        { what: 'no open port shown' },
      );
      await h.elapse(box.id, 6 * 60 + 5);
      const rows = await waitFor(
        () => h.boxTime(user),
        (r) => r.length >= 7,
        { what: 'seven minutes' },
      );
      expect(rows).to.have.length(7);
      expect((await h.my(user))?.status).to.equal('RUNNING');
      expect(Number((await h.boxRow(box.id)).accumulated_usage_seconds)).to.be.at.least(6 * 60);
    });
  });

  describe('box time across UTC midnight', () => {
    let t: BoxTestPlatform;
    before(async () => {
      t = await startBoxPlatform({ env: { BOX_MINIMUM_CHARGE_MINUTES: '1' } });
    });
    after(() => t?.close());
    const h = helpers(() => t);

    it('counts the seconds before midnight for the day before and the rest for today', async () => {
      const { user, box } = await h.withBox();
      // Unlimited (no daily stop) so the long interval is only counted.
      await t.db.query("update users set tier = 'HACKER' where id = $1", [user.id]);
      await h.power(user, box.hostname, true);
      await h.waitStatus(user, 'RUNNING');
      // Box time last counted 30 s before today's UTC midnight (the session itself stays young).
      const { rows } = await t.db.query<{ since: number }>(
        `update boxes set usage_counted_until = date_trunc('day', now() at time zone 'utc') at time zone 'utc' - interval '30 seconds',
                          accumulated_usage_seconds = 0
          where id = $1
          returning extract(epoch from now() - usage_counted_until)::int as since`,
        [box.id],
      );
      const since = rows[0]!.since;
      await t.platform.boxes.kick(box.id);
      const days = await t.db.query<{ day: string; seconds: number }>(
        `select to_char(day, 'YYYY-MM-DD') as day, seconds from box_daily_usage where user_id = $1 order by day`,
        [user.id],
      );
      const today = new Date().toISOString().slice(0, 10);
      const yesterday = new Date(Date.parse(today) - 86_400_000).toISOString().slice(0, 10);
      expect(days.rows.map((r) => r.day)).to.deep.equal([yesterday, today]);
      expect(days.rows[0]!.seconds).to.equal(30);
      expect(days.rows[1]!.seconds).to.be.within(since - 30 - 1, since - 30 + 10);
      expect(Number((await h.boxRow(box.id)).accumulated_usage_seconds)).to.be.within(since - 1, since + 10);
      // Only the session's own minutes were charged.
      expect(h.spent(await h.boxTime(user))).to.deep.equal([100]);
    });
  });

  describe('BASIC daily limit', () => {
    let t: BoxTestPlatform;
    before(async () => {
      t = await startBoxPlatform({
        env: { BASIC_DAILY_LIMIT_MINUTES: '2', BOX_MINIMUM_CHARGE_MINUTES: '1' },
      });
    });
    after(() => t?.close());
    const h = helpers(() => t);
    const useToday = (user: TestAccount, seconds: number) =>
      t.db.query(
        `insert into box_daily_usage (user_id, day, seconds) values ($1, (now() at time zone 'utc')::date, $2)
         on conflict (user_id, day) do update set seconds = excluded.seconds`,
        [user.id, seconds],
      );

    it('reports the time left today', async () => {
      const { user } = await h.withBox();
      expect((await h.my(user))?.dailyRemainingSeconds).to.equal(120);
      await useToday(user, 45);
      expect((await h.my(user))?.dailyRemainingSeconds).to.equal(75);
      // Yesterday's usage does not count today.
      await t.db.query(
        `insert into box_daily_usage (user_id, day, seconds) values ($1, (now() at time zone 'utc')::date - 1, 120)`,
        [user.id],
      );
      expect((await h.my(user))?.dailyRemainingSeconds).to.equal(75);
    });

    it('refuses to power on with no time left today (403, the message of the spec)', async () => {
      const { user, box } = await h.withBox();
      await useToday(user, 120);
      const res = await h.power(user, box.hostname, true);
      expect(res.status).to.equal(403);
      expect(res.body.message).to.equal(BOX_MESSAGES.dailyLimit);
      expect(res.body.message).to.equal(
        'Daily time limit reached. Your box will be available again tomorrow, or consider upgrading for unlimited access.',
      );
      expect(await h.boxRow(box.id)).to.include({ desired_power: false, status: 'STOPPED' });
      expect((await h.my(user))?.dailyRemainingSeconds).to.equal(0);
    });

    it('stops a running box when the day is used up', async () => {
      const { user, box } = await h.withBox();
      await useToday(user, 100);
      await h.power(user, box.hostname, true);
      await h.waitStatus(user, 'RUNNING');
      await h.elapse(box.id, 25);
      const stopped = await h.waitStatus(user, 'STOPPED');
      expect(stopped.statusReason).to.equal(BOX_MESSAGES.dailyLimit);
      expect(stopped.dailyRemainingSeconds).to.equal(0);
      expect(await h.boxRow(box.id)).to.include({ desired_power: false });
      expect(t.orchestrator.machine(box.id)?.state).to.equal('stopped');
      const again = await h.power(user, box.hostname, true);
      expect(again.status).to.equal(403);
      expect(again.body.message).to.equal(BOX_MESSAGES.dailyLimit);
    });

    it('tells the player once that the daily limit stopped their box', async () => {
      const { user, box } = await h.withBox();
      await useToday(user, 100);
      await h.power(user, box.hostname, true);
      await h.waitStatus(user, 'RUNNING');
      await h.elapse(box.id, 25);
      await h.waitStatus(user, 'STOPPED');
      await t.platform.boxes.tick();
      const stopped = await waitFor(
        () => h.notifications(user),
        (n) => n.length > 0,
        { what: 'the notice' },
      );
      expect(stopped).to.deep.equal([
        { type: 'GENERIC', title: CREDIT_ALERTS.dailyLimit.title, body: CREDIT_ALERTS.dailyLimit.body },
      ]);
    });

    it('does not limit a HACKER, who pays the HACKER rate', async () => {
      const { user, box } = await h.withBox();
      await t.db.query("update users set tier = 'HACKER' where id = $1", [user.id]);
      await useToday(user, 10 * 60);
      expect((await h.my(user))?.dailyRemainingSeconds).to.equal(null);
      const on = await h.power(user, box.hostname, true);
      expect(on.status).to.equal(200);
      expect(on.body.dailyRemainingSeconds).to.equal(null);
      await h.waitStatus(user, 'RUNNING');
      await h.elapse(box.id, 60 + 5);
      const rows = await waitFor(
        () => h.boxTime(user),
        (r) => r.length >= 2,
        { what: 'two minutes' },
      );
      expect(h.spent(rows)).to.deep.equal([100, 100]);
      await t.platform.boxes.tick();
      expect((await h.my(user))?.status).to.equal('RUNNING');
    });
  });

  describe('credit alerts', () => {
    let t: BoxTestPlatform;
    const sockets: Socket[] = [];
    before(async () => {
      t = await startBoxPlatform({ env: { STARTING_FREE_CREDITS: '100', BOX_MINIMUM_CHARGE_MINUTES: '1' } });
    });
    afterEach(() => {
      for (const socket of sockets.splice(0)) socket.close();
    });
    after(() => t?.close());
    const h = helpers(() => t);

    async function leave(user: TestAccount, cents: number) {
      const total = await h.balance(user);
      if (total > cents) await Ledger.charge(t.sql(), user.id, total - cents, 'ADJUSTMENT', 'test');
      if (total < cents) await Ledger.grant(t.sql(), user.id, { creditsCents: cents - total }, 'ADJUSTMENT');
      expect(await h.balance(user)).to.equal(cents);
    }
    /** Lets the running session's next minute be charged, and waits for it. */
    async function nextMinute(user: TestAccount, boxId: string) {
      const before = (await h.boxTime(user)).length;
      await h.elapse(boxId, 60);
      await waitFor(
        () => h.boxTime(user),
        (rows) => rows.length === before + 1,
        { what: `minute ${before + 1}` },
      );
      await t.platform.boxes.tick();
    }
    const lowCredits = async (user: TestAccount) =>
      (await h.notifications(user)).filter((n) => n.title === CREDIT_ALERTS.lowCredits.title);

    it('tells a running player once that their credits last less than an hour, again after they got credits', async () => {
      const { user, box } = await h.withBox();
      const grid = await joinGrid(t.platform.baseUrl, user, sockets);
      await leave(user, 4100);
      await h.power(user, box.hostname, true);
      await h.waitStatus(user, 'RUNNING');
      await waitFor(
        () => h.boxTime(user),
        (rows) => rows.length === 1,
        { what: 'the first minute' },
      );
      // 41.00 - 0.66 still pays an hour at 40 an hour: nothing to say. The sidebar follows each charge.
      expect(await grid.next<BalancePayload>('balance')).to.deep.equal({ credits: 0, freeCredits: 40.34 });
      expect(await lowCredits(user)).to.deep.equal([]);

      await nextMinute(user, box.id);
      const [told] = await waitFor(
        () => lowCredits(user),
        (n) => n.length === 1,
        { what: 'the alert' },
      );
      expect(told).to.deep.equal({
        type: 'GENERIC',
        title: 'Credits running low',
        body: "You have 39.67 credits left: about 59 min of box time at your tier's 40 credits an hour. Buy credits on Plans or redeem a gift to keep your box running.",
      });
      const pushed = await grid.next<GridNotification>('notification');
      expect(pushed).to.include({ type: 'GENERIC', title: told!.title, body: told!.body });
      expect(await grid.next<BalancePayload>('balance', (b) => b.freeCredits === 39.67)).to.deep.equal({
        credits: 0,
        freeCredits: 39.67,
      });

      // Not at every minute after; not for a little money that leaves less than an hour.
      await nextMinute(user, box.id);
      await Ledger.grant(t.sql(), user.id, { creditsCents: 50 }, 'ADJUSTMENT');
      await nextMinute(user, box.id);
      expect(await lowCredits(user)).to.have.length(1);

      // Credits for more than an hour again: the next time they run low is a new alert.
      await leave(user, 4100);
      await nextMinute(user, box.id);
      expect(await lowCredits(user)).to.have.length(1);
      await nextMinute(user, box.id);
      await waitFor(
        () => lowCredits(user),
        (n) => n.length === 2,
        { what: 'the second alert' },
      );
      await nextMinute(user, box.id);
      expect(await lowCredits(user)).to.have.length(2);
      expect((await h.notifications(user)).map((n) => n.title)).to.deep.equal([
        'Credits running low',
        'Credits running low',
      ]);
    });

    it('tells the player once that their box stopped for lack of credits', async () => {
      const { user, box } = await h.withBox();
      await leave(user, 150);
      await h.power(user, box.hostname, true);
      await h.waitStatus(user, 'RUNNING');
      // The first minute is charged (and told) before the clock moves on: a pass that charged it together with
      // the minute that cannot be paid would tell only the stop.
      await waitFor(
        async () => {
          await t.platform.boxes.tick();
          return h.notifications(user);
        },
        (n) => n.length === 1,
        { what: "the first minute's alert" },
      );
      await h.elapse(box.id, 2 * 60 + 5);
      await h.waitStatus(user, 'STOPPED');
      await t.platform.boxes.tick();
      await t.platform.boxes.tick();
      const told = await waitFor(
        () => h.notifications(user),
        (n) => n.length === 2,
        { what: 'two notifications' },
      );
      // The first minute left 0.84: less than an hour, said once; then the stop.
      expect(told.map((n) => n.title)).to.deep.equal(['Credits running low', 'Box stopped: out of credits']);
      expect(told[1]).to.deep.equal({
        type: 'GENERIC',
        title: CREDIT_ALERTS.outOfCredits.title,
        body: 'Your box was stopped because your credits ran out. Buy credits on Plans or redeem a gift, then power it on again.',
      });
    });
  });
});
