import type { EntityManager } from '@mikro-orm/postgresql';
import { expect } from 'chai';
import type pg from 'pg';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { openTestDatabase, type TestDatabase } from '../testing/fixtures.ts';
import { Ledger } from './ledger.ts';

describe('credit ledger', () => {
  let database: TestDatabase;
  let orm: Orm;
  let client: pg.Client;
  let n = 0;

  before(async () => {
    database = await openTestDatabase();
    ({ orm, client } = database);
  });
  after(() => database?.close());

  const sql = () => new Sql(orm.em.fork() as EntityManager);

  async function newUser(): Promise<string> {
    n++;
    const row = await client.query(
      'insert into users (id, handle, email) values (gen_random_uuid(), $1, $2) returning id',
      [`ledger${n}`, `ledger${n}@example.test`],
    );
    return row.rows[0].id as string;
  }

  /** Balances must always equal the sum of the ledger rows. */
  async function assertBalanced(userId: string) {
    const { rows } = await client.query(
      `select u.credits_cents::bigint as c, u.free_credits_cents::bigint as f,
              coalesce(sum(l.credits_delta_cents), 0)::bigint as sc, coalesce(sum(l.free_credits_delta_cents), 0)::bigint as sf
         from users u left join credit_ledger l on l.user_id = u.id where u.id = $1 group by u.id`,
      [userId],
    );
    expect(rows[0].sc).to.equal(rows[0].c);
    expect(rows[0].sf).to.equal(rows[0].f);
    return { creditsCents: Number(rows[0].c), freeCreditsCents: Number(rows[0].f) };
  }

  it('grants credits and free credits, one ledger row each', async () => {
    const user = await newUser();
    const gift = await Ledger.grant(sql(), user, { freeCreditsCents: 500 }, 'SIGNUP_GIFT');
    expect(gift).to.include({
      freeCreditsDeltaCents: 500,
      creditsDeltaCents: 0,
      freeCreditsCents: 500,
      creditsCents: 0,
    });
    await Ledger.grant(sql(), user, { creditsCents: 2000 }, 'PURCHASE', 'order-1');
    expect(await assertBalanced(user)).to.deep.equal({ creditsCents: 2000, freeCreditsCents: 500 });
  });

  it('spends free credits first, then credits', async () => {
    const user = await newUser();
    await Ledger.grant(sql(), user, { creditsCents: 1000, freeCreditsCents: 300 }, 'ADJUSTMENT');
    const first = await Ledger.charge(sql(), user, 200, 'BOX_TIME', 'box-1');
    expect(first).to.include({
      freeCreditsDeltaCents: -200,
      creditsDeltaCents: 0,
      freeCreditsCents: 100,
      creditsCents: 1000,
    });
    const second = await Ledger.charge(sql(), user, 250, 'BOX_TIME', 'box-1');
    expect(second).to.include({
      freeCreditsDeltaCents: -100,
      creditsDeltaCents: -150,
      freeCreditsCents: 0,
      creditsCents: 850,
    });
    expect(await assertBalanced(user)).to.deep.equal({ creditsCents: 850, freeCreditsCents: 0 });
  });

  it('refuses a charge the user cannot pay and changes nothing', async () => {
    const user = await newUser();
    await Ledger.grant(sql(), user, { freeCreditsCents: 100, creditsCents: 50 }, 'ADJUSTMENT');
    expect(await Ledger.charge(sql(), user, 151, 'ATTACK')).to.equal(null);
    expect(await assertBalanced(user)).to.deep.equal({ creditsCents: 50, freeCreditsCents: 100 });
    expect(
      (await client.query('select count(*)::int as n from credit_ledger where user_id = $1', [user])).rows[0]
        .n,
    ).to.equal(1);
  });

  it('refuses amounts that are not positive whole hundredths', async () => {
    const user = await newUser();
    for (const amount of [0, -5, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        await Ledger.charge(sql(), user, amount, 'ATTACK');
      } catch (err) {
        error = err;
      }
      expect(error, String(amount)).to.be.instanceOf(RangeError);
    }
    expect(await assertBalanced(user)).to.deep.equal({ creditsCents: 0, freeCreditsCents: 0 });
  });

  it('never overspends under concurrent charges', async () => {
    const user = await newUser();
    await Ledger.grant(sql(), user, { freeCreditsCents: 400, creditsCents: 600 }, 'ADJUSTMENT');
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => Ledger.charge(sql(), user, 100, 'BOX_TIME', `minute-${i}`)),
    );
    expect(results.filter((r) => r !== null)).to.have.length(10);
    expect(await assertBalanced(user)).to.deep.equal({ creditsCents: 0, freeCreditsCents: 0 });
    const negative = await client.query(
      'select count(*)::int as n from credit_ledger where credits_after_cents < 0 or free_credits_after_cents < 0',
    );
    expect(negative.rows[0].n).to.equal(0);
  });

  it('keeps balances and ledger in step when grants and charges race', async () => {
    const user = await newUser();
    await Ledger.grant(sql(), user, { creditsCents: 500 }, 'ADJUSTMENT');
    await Promise.all([
      ...Array.from({ length: 10 }, () => Ledger.charge(sql(), user, 70, 'BOX_TIME')),
      ...Array.from({ length: 5 }, () => Ledger.grant(sql(), user, { freeCreditsCents: 30 }, 'ADJUSTMENT')),
    ]);
    const { creditsCents, freeCreditsCents } = await assertBalanced(user);
    expect(creditsCents).to.be.at.least(0);
    expect(freeCreditsCents).to.be.at.least(0);
  });

  it('takes back paid credits only, as many as are left, and nothing from a user who has none', async () => {
    const user = await newUser();
    await Ledger.grant(sql(), user, { creditsCents: 700, freeCreditsCents: 300 }, 'ADJUSTMENT');
    const partial = await Ledger.reclaim(sql(), user, 500, 'REFUND', 'purchase-1');
    expect(partial).to.include({ creditsDeltaCents: -500, freeCreditsDeltaCents: 0, creditsCents: 200 });
    const capped = await Ledger.reclaim(sql(), user, 1000, 'CHARGEBACK', 'purchase-1');
    expect(capped).to.include({ creditsDeltaCents: -200, creditsCents: 0, freeCreditsCents: 300 });
    expect(await Ledger.reclaim(sql(), user, 100, 'REFUND')).to.equal(null);
    expect(await assertBalanced(user)).to.deep.equal({ creditsCents: 0, freeCreditsCents: 300 });
  });

  it('never takes back more than is there when reclaims race', async () => {
    const user = await newUser();
    await Ledger.grant(sql(), user, { creditsCents: 1000 }, 'ADJUSTMENT');
    const results = await Promise.all(
      Array.from({ length: 12 }, () => Ledger.reclaim(sql(), user, 300, 'REFUND')),
    );
    const taken = results.reduce((sum, r) => sum - (r?.creditsDeltaCents ?? 0), 0);
    expect(taken).to.equal(1000);
    expect(await assertBalanced(user)).to.deep.equal({ creditsCents: 0, freeCreditsCents: 0 });
  });
});
