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

  it('deletes expired tokens, long-ended sessions, stale counters, lapsed reservations and activity older than 2 years, and keeps the rest', async () => {
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
    await client.query(
      `insert into user_activity (user_id, activity_type, created_at) values
         ($1, 'PROFILE_VIEW', now() - interval '2 years 1 day'),
         ($1, 'LEADERBOARD_VIEW', now() - interval '2 years' + interval '1 day')`,
      [user],
    );

    expect(await purgeExpired(orm)).to.deep.equal({
      rateLimits: 1,
      userTokens: 1,
      sessions: 2,
      handleReservations: 1,
      userActivity: 1,
      contactMessages: 0,
      jobApplications: 0,
      vulnerabilityReports: 0,
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
    // The activity log keeps what is younger than 2 years (the Privacy Policy's retention).
    expect((await client.query('select activity_type from user_activity')).rows).to.deep.equal([
      { activity_type: 'LEADERBOARD_VIEW' },
    ]);
  });

  it('deletes what the public forms brought 2 years after the last exchange, and keeps the hall of fame', async () => {
    const past = "now() - interval '2 years 1 day'";
    const recent = "now() - interval '2 years' + interval '1 day'";
    for (const [subject, at] of [
      ['old', past],
      ['recent', recent],
    ])
      await client.query(
        `insert into contact_messages (name, email, subject, message, inquiry_type, client_ip, created_at)
         values ('Ada', 'ada@example.test', $1, 'Hello', 'general', '198.51.100.1', ${at})`,
        [subject],
      );
    const job = (
      await client.query(
        `insert into jobs (slug, title, short_description, description, requirements, category, type, level)
         values ('red-teamer', 'Red Teamer', 'Break boxes', 'All day.', 'Shells.', 'SECURITY', 'FULL_TIME', 'SENIOR')
         returning id`,
      )
    ).rows[0].id as string;
    for (const [name, at] of [
      ['Old', past],
      ['Recent', recent],
    ]) {
      const application = (
        await client.query(
          `insert into job_applications (job_id, first_name, last_name, email, created_at)
           values ($1, $2, 'Applicant', 'a@example.test', ${at}) returning id`,
          [job, name],
        )
      ).rows[0].id as string;
      await client.query(
        `insert into resume_uploads (kind, size, sha256, content, application_id, expires_at)
         values ('pdf', 5, sha256('%PDF-'::bytea), '%PDF-'::bytea, $1, now())`,
        [application],
      );
    }
    let n = 0;
    const report = (status: string, anonymous: boolean, at: string) =>
      client.query(
        `insert into vulnerability_reports (tracking_id, status, is_anonymous, reporter_name, reporter_email, title,
           description, reported_severity, category, reproduction_steps, impact_assessment, severity, accepted_at,
           fixed_at, rejection_reason, rejected_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, 'd', 'HIGH', 'XSS', 'r', 'i',
           case when $2 in ('ACCEPTED', 'FIXED') then 'HIGH' end,
           case when $2 in ('ACCEPTED', 'FIXED') then now() end,
           case when $2 = 'FIXED' then now() end,
           case when $2 = 'REJECTED' then 'duplicate' end,
           case when $2 = 'REJECTED' then now() end,
           ${at})`,
        [
          `EG-VR-AAAA-AAAA-AAAA-${String((n += 1)).padStart(4, '0')}`,
          status,
          anonymous,
          anonymous ? null : 'Grace',
          anonymous ? null : 'grace@example.test',
          `${status}${anonymous ? ' anonymous' : ''}${at === past ? ' old' : ' recent'}`,
        ],
      );
    await report('NEW', false, past);
    await report('REJECTED', false, past);
    await report('ACCEPTED', true, past);
    await report('FIXED', false, past);
    await report('ACCEPTED', false, past);
    await report('NEW', false, recent);

    expect(await purgeExpired(orm)).to.include({
      contactMessages: 1,
      jobApplications: 1,
      vulnerabilityReports: 3,
    });
    expect((await client.query('select subject from contact_messages')).rows).to.deep.equal([
      { subject: 'recent' },
    ]);
    expect((await client.query('select first_name from job_applications')).rows).to.deep.equal([
      { first_name: 'Recent' },
    ]);
    // The old application's resume went with it.
    expect((await client.query('select count(*)::int as n from resume_uploads')).rows[0].n).to.equal(1);
    expect(
      (await client.query('select title from vulnerability_reports order by title')).rows.map((r) => r.title),
    ).to.deep.equal(['ACCEPTED old', 'FIXED old', 'NEW recent']);
  });
});
