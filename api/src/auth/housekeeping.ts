import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import type { Logger } from '../logger.ts';

/** How long ended things are kept for investigation before they are deleted. */
const KEEP_DAYS = 30;
/** Activity logs are kept up to 2 years (the Privacy Policy, commerce-and-content section 9). */
export const ACTIVITY_LOG_KEEP = '2 years';

/**
 * Deletes what can no longer be used: expired throttle counters, one-time tokens past their
 * expiry, ended sessions (with their refresh tokens) and lapsed handle reservations; and the
 * activity log (`user_activity`) and what the public forms brought past their retention.
 * Answers how many rows of each went.
 */
export async function purgeExpired(orm: Orm): Promise<Record<string, number>> {
  const sql = new Sql(orm.em.fork() as EntityManager);
  const keep = `interval '${KEEP_DAYS} days'`;
  return {
    rateLimits: await sql.run('delete from rate_limits where expire is not null and expire < ?', [
      Date.now(),
    ]),
    userTokens: await sql.run(`delete from user_tokens where expires_at < now() - ${keep}`),
    sessions: await sql.run(
      `delete from sessions where expires_at < now() - ${keep} or revoked_at < now() - ${keep}`,
    ),
    handleReservations: await sql.run('delete from handle_reservations where expires_at < now()'),
    userActivity: await sql.run(
      `delete from user_activity where created_at < now() - interval '${ACTIVITY_LOG_KEEP}'`,
    ),
    // What visitors sent through the public forms, at most 2 years after the last exchange (the Privacy
    // Policy, "How long we keep it"): contact messages, job applications with their resumes, and vulnerability
    // reports, except those credited in the hall of fame (accepted or fixed, not anonymous), which stay there.
    contactMessages: await sql.run(
      `delete from contact_messages where created_at < now() - interval '${ACTIVITY_LOG_KEEP}'`,
    ),
    jobApplications: await sql.run(
      `delete from job_applications where created_at < now() - interval '${ACTIVITY_LOG_KEEP}'`,
    ),
    vulnerabilityReports: await sql.run(
      `delete from vulnerability_reports
        where updated_at < now() - interval '${ACTIVITY_LOG_KEEP}'
          and not (status in ('ACCEPTED', 'FIXED') and not is_anonymous)`,
    ),
  };
}

/** Runs purgeExpired at start and then every `intervalMs`; the timer never holds the process open. */
export function startHousekeeping(orm: Orm, logger: Logger, intervalMs = 60 * 60 * 1000): () => void {
  const log = logger.child({ component: 'housekeeping' });
  const run = () => {
    purgeExpired(orm).then(
      (deleted) => {
        if (Object.values(deleted).some((n) => n > 0)) log.info({ deleted }, 'Purged expired account data');
      },
      (err: unknown) => log.error({ err }, 'Purging expired account data failed'),
    );
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
