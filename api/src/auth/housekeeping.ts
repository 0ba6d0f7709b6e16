import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import type { Logger } from '../logger.ts';

/** How long ended things are kept for investigation before they are deleted. */
const KEEP_DAYS = 30;

/**
 * Deletes what can no longer be used: expired throttle counters, one-time tokens past their
 * expiry, ended sessions (with their refresh tokens) and lapsed handle reservations.
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
