import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  LEADERBOARD_SORT_FIELDS,
  type Box,
  type LeaderboardPage,
  type LeaderboardRow,
  type LeaderboardSortField,
  type StartAttackResponse,
  type UserStats,
} from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';
import { openTestDatabase } from '../testing/fixtures.ts';
import { LeaderboardService, handlePattern } from './service.ts';

const FIELD_OF: Record<Exclude<LeaderboardSortField, 'rank'>, keyof LeaderboardRow> = {
  handle: 'handle',
  mmr: 'mmr',
  attacksWon: 'attacksWon',
  totalAttacks: 'totalAttacks',
  winRate: 'winRate',
  defensesWon: 'defensesWon',
  totalDefenses: 'totalDefenses',
  defenseRate: 'defenseRate',
};

/** The documented order: the column descending (rank: ascending), ties by id ascending; the other order reversed. */
function expectedOrder(rows: LeaderboardRow[], sortBy: LeaderboardSortField, sortOrder: 'asc' | 'desc') {
  const key = (r: LeaderboardRow): number | string =>
    sortBy === 'rank'
      ? r.mmr
      : sortBy === 'handle'
        ? r.handle.toLowerCase()
        : (r[FIELD_OF[sortBy]] as number);
  const best = [...rows].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    if (x !== y) return x < y ? 1 : -1;
    return a.id < b.id ? -1 : 1;
  });
  const reverse = sortBy === 'rank' ? sortOrder === 'desc' : sortOrder === 'asc';
  return (reverse ? best.reverse() : best).map((r) => r.handle);
}

describe('leaderboard: search patterns', () => {
  it('matches the start of a handle for 1-2 characters and anywhere for more, % _ \\ literally', () => {
    expect(handlePattern('Ab')).to.equal('ab%');
    expect(handlePattern('x')).to.equal('x%');
    expect(handlePattern('NeO')).to.equal('%neo%');
    expect(handlePattern('a_b%c\\')).to.equal('%a\\_b\\%c\\\\%');
    expect(handlePattern('_')).to.equal('\\_%');
  });
});

describe('leaderboard: GET /leaderboard and /user/stats through the API', function () {
  this.timeout(60_000);
  let t: BoxTestPlatform;
  let viewer: TestAccount;

  before(async () => {
    t = await startBoxPlatform({ orchestrator: { boot: 'instant' } });
    viewer = await t.account();
  });
  after(async () => {
    await t?.close();
  });

  const board = async (query: Record<string, string | number> = {}, token = viewer.token) => {
    const qs = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return t.call<LeaderboardPage & { message: string }>('GET', `/leaderboard${qs ? `?${qs}` : ''}`, {
      token,
    });
  };
  const stats = async (user: TestAccount) =>
    (await t.call<UserStats>('GET', '/user/stats', { token: user.token })).body;
  /** What a rank must be, counted the slow way: players with a verified address and a higher MMR. */
  const slowRank = async (mmr: number) =>
    1 +
    Number(
      (await t.db.query('select count(*) from users where email_verified_at is not null and mmr > $1', [mmr]))
        .rows[0].count,
    );
  const players = async () =>
    Number(
      (await t.db.query('select count(*) from users where email_verified_at is not null')).rows[0].count,
    );
  /** The MMR counts agree with the users table. */
  const expectCountsExact = async () => {
    const { rows } = await t.db.query(`
      select coalesce(c.mmr, u.mmr) as mmr, coalesce(c.players, 0) as counted, coalesce(u.n, 0) as actual
        from leaderboard_mmr_counts c
        full join (select mmr, count(*)::int as n from users where email_verified_at is not null group by mmr) u
          on u.mmr = c.mmr
       where coalesce(c.players, 0) <> coalesce(u.n, 0)`);
    expect(rows, 'leaderboard_mmr_counts differs from users').to.deep.equal([]);
  };
  /** Players with a common handle prefix and the given MMR and counters (arranged behind the API's back). */
  async function arrange(
    prefix: string,
    specs: { mmr: number; won?: number; total?: number; dwon?: number; dtotal?: number }[],
  ) {
    const made: TestAccount[] = [];
    for (const [i, s] of specs.entries()) {
      const user = await t.account(`${prefix}${String.fromCharCode(97 + i)}`);
      await t.db.query(
        `update users set mmr = $2, attacks_won = $3, total_attacks = $4, defenses_won = $5, total_defenses = $6
          where id = $1`,
        [user.id, s.mmr, s.won ?? 0, s.total ?? 0, s.dwon ?? 0, s.dtotal ?? 0],
      );
      made.push(user);
    }
    return made;
  }

  it('needs a signed-in player', async () => {
    expect((await t.call('GET', '/leaderboard')).status).to.equal(401);
    expect((await t.call('GET', '/leaderboard', { token: 'not-a-token' })).status).to.equal(401);
  });

  it('refuses a bad query with the reason', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ sortBy: 'elo' }, `sortBy: sortBy must be one of ${LEADERBOARD_SORT_FIELDS.join(', ')}.`],
      [{ sortOrder: 'up' }, 'sortOrder: sortOrder must be asc or desc.'],
      [{ page: '0' }, 'page: page must be at least 1.'],
      [{ page: 'two' }, 'page: page must be a number.'],
      [{ limit: '101' }, 'limit: limit must be between 1 and 100.'],
      [{ limit: '1.5' }, 'limit: limit must be a whole number.'],
      [{ search: 'x'.repeat(65) }, 'search: search must be at most 64 characters.'],
      [{ colour: 'red' }, 'Unknown field in query string: colour.'],
    ];
    for (const [query, message] of cases) {
      const answer = await board(query);
      expect(answer.status, JSON.stringify(query)).to.equal(400);
      expect(answer.body.message, JSON.stringify(query)).to.equal(message);
    }
  });

  it('ranks by MMR, 1 = best, ties sharing a rank, and lists rank ascending by default', async () => {
    const [top, tieA, tieB, below] = await arrange('lbrank_', [
      { mmr: 2900 },
      { mmr: 2800 },
      { mmr: 2800 },
      { mmr: 2700 },
    ]);
    const answer = await board();
    expect(answer.status).to.equal(200);
    const first = answer.body.data.slice(0, 4);
    expect(first.map((r) => r.id)).to.deep.equal([top!.id, ...[tieA!.id, tieB!.id].sort(), below!.id]);
    expect(first.map((r) => r.rank)).to.deep.equal([1, 2, 2, 4]);
    expect(answer.body.data).to.have.length(Math.min(15, await players()));
    for (const row of answer.body.data) expect(row.rank).to.equal(await slowRank(row.mmr));
    expect(answer.body.total).to.equal(await players());
    expect((await stats(tieB!)).rank).to.equal(2);
    expect((await stats(below!)).rank).to.equal(4);
    // The bottom: rank descending starts with the lowest MMR.
    const bottom = (await board({ sortBy: 'rank', sortOrder: 'desc', limit: 100 })).body.data;
    const lowest = Number(
      (await t.db.query('select min(mmr) from users where email_verified_at is not null')).rows[0].min,
    );
    expect(bottom[0]!.mmr).to.equal(lowest);
    expect(bottom[0]!.rank).to.equal(await slowRank(lowest));
  });

  it('sorts by every column in both orders, ties by id, asc the reverse of desc', async () => {
    // Equal values in every column, so the tiebreak shows.
    await arrange('lbsort_', [
      { mmr: 1200, won: 3, total: 4, dwon: 1, dtotal: 3 },
      { mmr: 1100, won: 3, total: 6, dwon: 5, dtotal: 5 },
      { mmr: 1200, won: 1, total: 4, dwon: 0, dtotal: 0 },
      { mmr: 900, won: 0, total: 0, dwon: 2, dtotal: 3 },
      { mmr: 1100, won: 6, total: 8, dwon: 1, dtotal: 3 },
      { mmr: 1000, won: 1, total: 4, dwon: 5, dtotal: 5 },
    ]);
    const all = (await board({ search: 'lbsort_' })).body;
    expect(all.total).to.equal(6);
    const byHandle = Object.fromEntries(all.data.map((r) => [r.handle, r]));
    expect(byHandle.lbsort_a).to.include({ attacksWon: 3, totalAttacks: 4, winRate: 75, defenseRate: 33.3 });
    expect(byHandle.lbsort_d).to.include({ winRate: 0, totalAttacks: 0, defenseRate: 66.7 });
    for (const sortBy of LEADERBOARD_SORT_FIELDS)
      for (const sortOrder of ['asc', 'desc'] as const) {
        const page = (await board({ search: 'lbsort_', sortBy, sortOrder })).body.data;
        expect(
          page.map((r) => r.handle),
          `${sortBy} ${sortOrder}`,
        ).to.deep.equal(expectedOrder(all.data, sortBy, sortOrder));
        // Without a search, over everyone: the first page is in the same order too.
        const everyone = (await board({ sortBy, sortOrder, limit: 40 })).body.data;
        expect(
          everyone.map((r) => r.handle),
          `everyone by ${sortBy} ${sortOrder}`,
        ).to.deep.equal(expectedOrder(everyone, sortBy, sortOrder));
      }
  });

  it('searches handles case-insensitively: a prefix for 1-2 characters, anywhere for more', async () => {
    await arrange('Srch_', [{ mmr: 1000 }, { mmr: 1000 }]);
    await arrange('xsrch_', [{ mmr: 1000 }]);
    await arrange('srchz', [{ mmr: 1000 }]);
    const handles = async (search: string) =>
      (await board({ search, sortBy: 'handle' })).body.data.map((r) => r.handle);
    expect(await handles('SRCH_')).to.deep.equal(['Srch_a', 'Srch_b', 'xsrch_a']);
    expect(await handles('srch_B')).to.deep.equal(['Srch_b']);
    expect(await handles('xs')).to.deep.equal(['xsrch_a']);
    expect(await handles('sr')).to.deep.equal(['Srch_a', 'Srch_b', 'srchza']);
    expect(await handles('ch_a')).to.deep.equal(['Srch_a', 'xsrch_a']);
    // `_` and `%` are characters, not wildcards.
    expect(await handles('srch%')).to.deep.equal([]);
    expect(await handles('rch_')).to.deep.equal(['Srch_a', 'Srch_b', 'xsrch_a']);
    expect(await handles('rch%a')).to.deep.equal([]);
    expect(await handles('rchz')).to.deep.equal(['srchza']);
    // Whatever is typed is a value, never SQL nor a placeholder.
    for (const odd of ["o'neil", 'r?h', '$1', "'; drop table users; --", '\\'])
      expect((await board({ search: odd })).body, odd).to.deep.equal({ data: [], total: 0 });
    expect(await handles('srchx')).to.deep.equal([]);
    expect((await board({ search: 'SRCH_' })).body.total).to.equal(3);
    expect((await board({ search: '  srch_b ' })).body.total).to.equal(1);
    expect((await board({ search: 'nobody-here' })).body).to.deep.equal({ data: [], total: 0 });
  });

  it('pages: every player once, in order; past the end an empty page and the real total', async () => {
    const total = await players();
    const seen: LeaderboardRow[] = [];
    for (let page = 1; page <= Math.ceil(total / 7); page++) {
      const answer = (await board({ page, limit: 7 })).body;
      expect(answer.total).to.equal(total);
      expect(answer.data.length).to.equal(Math.min(7, total - (page - 1) * 7));
      seen.push(...answer.data);
    }
    expect(new Set(seen.map((r) => r.id)).size).to.equal(total);
    expect(seen.map((r) => r.handle)).to.deep.equal(expectedOrder(seen, 'rank', 'asc'));
    const all = (await board({ limit: 100 })).body.data;
    expect(seen.map((r) => r.id)).to.deep.equal(all.map((r) => r.id));
    // Rank descending, paged, is the same list reversed.
    const reversed: LeaderboardRow[] = [];
    for (let page = 1; page <= Math.ceil(total / 4); page++)
      reversed.push(...(await board({ page, limit: 4, sortOrder: 'desc' })).body.data);
    expect(reversed.map((r) => r.id)).to.deep.equal(all.map((r) => r.id).reverse());
    // Other columns page the same way.
    const byWins = (await board({ sortBy: 'attacksWon', sortOrder: 'desc', limit: 100 })).body.data;
    const pagedWins = [
      ...(await board({ sortBy: 'attacksWon', sortOrder: 'desc', limit: 5, page: 1 })).body.data,
      ...(await board({ sortBy: 'attacksWon', sortOrder: 'desc', limit: 5, page: 2 })).body.data,
    ];
    expect(pagedWins.map((r) => r.id)).to.deep.equal(byWins.slice(0, 10).map((r) => r.id));

    expect((await board({ page: 1000 })).body).to.deep.equal({ data: [], total });
    expect((await board({ page: 1000, sortBy: 'winRate' })).body).to.deep.equal({ data: [], total });
    expect((await board({ page: 1000, search: 'lbsort_' })).body).to.deep.equal({ data: [], total: 6 });
    expect((await board({ page: 2, search: 'lbsort_', limit: 4 })).body.data).to.have.length(2);
  });

  it('seeks deep rank and MMR pages through the MMR counts to the same rows as skipping', async () => {
    const seeking = new LeaderboardService(t.platform.orm, { seekFrom: 0 });
    const skipping = new LeaderboardService(t.platform.orm, { seekFrom: Infinity });
    const total = await players();
    for (const sortBy of ['rank', 'mmr'] as const)
      for (const sortOrder of ['asc', 'desc'] as const)
        for (const limit of [1, 3, 7])
          for (let page = 1; page <= Math.ceil(total / limit) + 1; page++) {
            const query = { sortBy, sortOrder, page, limit };
            expect(await seeking.page(query), JSON.stringify(query)).to.deep.equal(
              await skipping.page(query),
            );
          }
  });

  it('leaves out accounts that cannot play (address not verified) until they can', async () => {
    const total = await players();
    const id = randomUUID();
    await t.db.query(
      `insert into users (id, handle, email, mmr) values ($1, 'lb_unverified', 'lbu@example.test', 9000)`,
      [id],
    );
    expect((await board()).body.total).to.equal(total);
    expect((await board()).body.data[0]!.mmr).to.be.below(9000);
    expect((await board({ search: 'lb_unverified' })).body.total).to.equal(0);
    await t.db.query('update users set email_verified_at = now() where id = $1', [id]);
    const now = (await board()).body;
    expect(now.total).to.equal(total + 1);
    expect(now.data[0]).to.include({ id, rank: 1, mmr: 9000 });
    expect(now.data[1]!.rank).to.equal(2);
    await t.db.query('delete from users where id = $1', [id]);
    expect((await board()).body.total).to.equal(total);
    await expectCountsExact();
  });

  it('ranks a player who just signed up at once, and /user/stats agrees with the leaderboard', async () => {
    const total = await players();
    const fresh = await t.account();
    const mine = await stats(fresh);
    expect(mine).to.deep.equal({ rank: await slowRank(1000), attacksWon: 0, defensesWon: 0 });
    const row = (await board({ search: fresh.handle })).body.data[0]!;
    expect(row).to.deep.include({
      id: fresh.id,
      rank: mine.rank,
      mmr: 1000,
      attacksWon: 0,
      totalAttacks: 0,
      winRate: 0,
      defensesWon: 0,
      totalDefenses: 0,
      defenseRate: 0,
    });
    expect((await board()).body.total).to.equal(total + 1);
    await expectCountsExact();
  });

  describe('counters from attacks settled by the attack service', () => {
    async function player(): Promise<TestAccount & { box: Box }> {
      const user = await t.account();
      const created = await t.call<Box>('POST', '/boxes', { token: user.token, body: {} });
      await t.call('POST', `/boxes/${created.body.hostname}/power`, {
        token: user.token,
        body: { on: true },
      });
      const box = await waitFor(
        async () => (await t.call<Box>('GET', '/boxes/my', { token: user.token })).body,
        (b) => b.status === 'RUNNING',
        { what: 'a running box' },
      );
      await t.orchestrator.connectVpn(user.id);
      await t.db.query('update users set credits_cents = 100000 where id = $1', [user.id]);
      return { ...user, box };
    }
    const start = async (attacker: TestAccount, target: TestAccount & { box: Box }) => {
      // The pair's earlier fights were days ago: the pair cap (attacks tests) leaves them rated.
      await t.db.query(
        `update attacks set ended_at = ended_at - interval '2 days'
          where ended_at is not null and attacker_id in ($1, $2) and target_id in ($1, $2)`,
        [attacker.id, target.id],
      );
      t.platform.attacks.consent(attacker.id, target.id);
      const answer = await t.call<StartAttackResponse>('POST', `/attack/${target.box.id}`, {
        token: attacker.token,
      });
      expect(answer.status).to.equal(201);
      return answer.body.attack.id;
    };

    it('counts attacks with a winner (OWNED, FOOTHOLD, DEFENDED, TIMEOUT), not CANCELLED, and moves ranks', async () => {
      const a = await player();
      const b = await player();
      await t.platform.attacks.settle(await start(a, b), 'OWNED');
      await t.platform.attacks.settle(await start(a, b), 'FOOTHOLD');
      await t.platform.attacks.settle(await start(a, b), 'TIMEOUT');
      await t.platform.attacks.settle(await start(b, a), 'DEFENDED');
      await t.platform.attacks.settle(await start(b, a), 'OWNED');
      await t.platform.attacks.settle(await start(a, b), 'CANCELLED');
      // A running attack does not count either.
      await start(a, b);

      const rows = (await board({ search: a.handle.slice(0, 24) })).body.data;
      const rowA = rows.find((r) => r.id === a.id)!;
      expect(rowA).to.include({
        attacksWon: 2,
        totalAttacks: 3,
        winRate: 66.7,
        defensesWon: 1,
        totalDefenses: 2,
        defenseRate: 50,
      });
      const rowB = (await board({ search: b.handle })).body.data[0]!;
      expect(rowB).to.include({
        attacksWon: 1,
        totalAttacks: 2,
        winRate: 50,
        defensesWon: 1,
        totalDefenses: 3,
        defenseRate: 33.3,
      });
      const mmrs = (await t.db.query('select id, mmr from users where id = any($1)', [[a.id, b.id]])).rows;
      for (const [user, row] of [
        [a, rowA],
        [b, rowB],
      ] as const) {
        const mmr = mmrs.find((m) => m.id === user.id).mmr as number;
        expect(row.mmr).to.equal(mmr);
        expect(row.rank).to.equal(await slowRank(mmr));
        expect(await stats(user)).to.deep.equal({
          rank: row.rank,
          attacksWon: row.attacksWon,
          defensesWon: row.defensesWon,
        });
      }
      expect(rowA.mmr + rowB.mmr).to.equal(2000);
      // The counters agree with the attacks table.
      const counted = await t.db.query(
        `select count(*) filter (where winner_id = attacker_id)::int as won, count(*)::int as total
           from attacks where attacker_id = $1 and winner_id is not null`,
        [a.id],
      );
      expect(counted.rows[0]).to.deep.equal({ won: 2, total: 3 });
      await expectCountsExact();
      const running = (await t.platform.attacks.runningFor(a.id))!;
      await t.platform.attacks.settle(running.id, 'CANCELLED');
    });

    it('keeps the MMR counts exact when many settlements race', async () => {
      const pairs = await Promise.all(
        Array.from({ length: 4 }, async () => [await player(), await player()]),
      );
      for (let round = 0; round < 3; round++) {
        const ids = await Promise.all(
          pairs.map(([x, y], i) =>
            (round % 2 ? start(y!, x!) : start(x!, y!)).then((id) => [id, i] as const),
          ),
        );
        await Promise.all(ids.map(([id, i]) => t.platform.attacks.settle(id, i % 2 ? 'OWNED' : 'DEFENDED')));
      }
      await expectCountsExact();
    });
  });
});

describe('leaderboard: the migration fills counters and MMR counts from existing attacks', function () {
  this.timeout(60_000);

  it('backfills, and its down() takes it all away', async () => {
    const db = await openTestDatabase();
    try {
      await db.orm.migrator.down({ to: 'Migration20261122070000_grid' });
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      await db.client.query(
        `insert into users (id, handle, email, mmr, email_verified_at) values
           ($1, 'mig_a', 'a@example.test', 1100, now()), ($2, 'mig_b', 'b@example.test', 900, now()),
           ($3, 'mig_c', 'c@example.test', 1200, null)`,
        [a, b, c],
      );
      const attack = (attacker: string, target: string, status: string) =>
        db.client.query(
          `insert into attacks (attacker_id, target_id, status, cost_cents, ends_at, ended_at, winner_id)
           values ($1, $2, $3, 0, now(), now(),
                   case when $3 in ('OWNED', 'FOOTHOLD') then $1::uuid when $3 in ('DEFENDED', 'TIMEOUT') then $2::uuid end)`,
          [attacker, target, status],
        );
      await attack(a, b, 'OWNED');
      await attack(a, b, 'TIMEOUT');
      await attack(a, b, 'CANCELLED');
      await attack(b, a, 'FOOTHOLD');
      await attack(c, a, 'DEFENDED');
      await db.orm.migrator.up();
      const { rows } = await db.client.query(
        `select handle, attacks_won, total_attacks, win_rate::float as win_rate, defenses_won, total_defenses
           from users order by handle`,
      );
      expect(rows).to.deep.equal([
        {
          handle: 'mig_a',
          attacks_won: 1,
          total_attacks: 2,
          win_rate: 50,
          defenses_won: 1,
          total_defenses: 2,
        },
        {
          handle: 'mig_b',
          attacks_won: 1,
          total_attacks: 1,
          win_rate: 100,
          defenses_won: 1,
          total_defenses: 2,
        },
        {
          handle: 'mig_c',
          attacks_won: 0,
          total_attacks: 1,
          win_rate: 0,
          defenses_won: 0,
          total_defenses: 0,
        },
      ]);
      const counts = await db.client.query('select mmr, players from leaderboard_mmr_counts order by mmr');
      expect(counts.rows).to.deep.equal([
        { mmr: 900, players: 1 },
        { mmr: 1100, players: 1 },
      ]);
      await db.orm.migrator.down({ to: 'Migration20261122070000_grid' });
      const left = await db.client.query(
        `select count(*)::int as n from information_schema.columns where table_name = 'users' and column_name = 'attacks_won'`,
      );
      expect(left.rows[0].n).to.equal(0);
      await db.orm.migrator.up();
    } finally {
      await db.close();
    }
  });
});
