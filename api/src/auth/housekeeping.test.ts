import { expect } from 'chai';
import type pg from 'pg';
import type { Orm } from '../db/orm.ts';
import { openTestDatabase, type TestDatabase } from '../testing/fixtures.ts';
import { purgeExpired } from './housekeeping.ts';

describe('housekeeping', () => {
  let database: TestDatabase;
  let orm: Orm;
  let client: pg.Client;

  before(async () => {
    database = await openTestDatabase();
    ({ orm, client } = database);
  });
  after(() => database?.close());

  it('deletes expired tokens, long-ended sessions, stale counters and lapsed reservations, and keeps the rest', async () => {
    const user = (
      await client.query(
        "insert into users (id, handle, email) values (gen_random_uuid(), 'keeper', 'k@example.test') returning id",
      )
    ).rows[0].id as string;
    const token = (purpose: string, expiresSql: string) =>
      client.query(
        `insert into user_tokens (id, user_id, purpose, token_hash, expires_at) values (gen_random_uuid(), $1, $2, sha256(gen_random_uuid()::text::bytea), ${expiresSql})`,
        [user, purpose],
      );
    await token('VERIFY_EMAIL', "now() - interval '40 days'");
    await token('RESET_PASSWORD', "now() + interval '1 hour'");
    const session = (expiresSql: string, revokedSql: string) =>
      client.query(
        `insert into sessions (id, user_id, expires_at, revoked_at) values (gen_random_uuid(), $1, ${expiresSql}, ${revokedSql}) returning id`,
        [user],
      );
    const old = (await session("now() - interval '31 days'", 'null')).rows[0].id;
    await client.query(
      'insert into refresh_tokens (id, session_id, token_hash) values (gen_random_uuid(), $1, sha256(gen_random_uuid()::text::bytea))',
      [old],
    );
    await session("now() + interval '20 days'", "now() - interval '31 days'");
    const live = (await session("now() + interval '20 days'", 'null')).rows[0].id;
    await client.query(
      "insert into rate_limits (key, points, expire) values ('old', 3, $1), ('new', 1, $2)",
      [Date.now() - 1000, Date.now() + 60_000],
    );
    await client.query(
      "insert into handle_reservations (handle, expires_at) values ('lapsed', now() - interval '1 second'), ('held', now() + interval '1 day')",
    );

    expect(await purgeExpired(orm)).to.deep.equal({
      rateLimits: 1,
      userTokens: 1,
      sessions: 2,
      handleReservations: 1,
    });

    expect((await client.query('select purpose from user_tokens')).rows).to.deep.equal([
      { purpose: 'RESET_PASSWORD' },
    ]);
    expect((await client.query('select id from sessions')).rows).to.deep.equal([{ id: live }]);
    expect((await client.query('select count(*)::int as n from refresh_tokens')).rows[0].n).to.equal(0);
    expect((await client.query('select key from rate_limits')).rows).to.deep.equal([{ key: 'new' }]);
    expect((await client.query('select handle from handle_reservations')).rows).to.deep.equal([
      { handle: 'held' },
    ]);
  });
});
