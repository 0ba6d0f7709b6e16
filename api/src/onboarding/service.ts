import type { EntityManager } from '@mikro-orm/postgresql';
import type { Onboarding, OnboardingStep, OnboardingStepStatus } from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { notFound } from '../http/errors.ts';

interface Row {
  box_at: string | null;
  config_at: string | null;
  first_tunnel_at: string | null;
  first_box_login_at: string | null;
  match_at: string | null;
  onboarding_completed_at: string | null;
}

const iso = (value: string | null) => (value === null ? null : new Date(value).toISOString());

/**
 * The first-hour checklist (docs/onboarding.md), read from what the platform itself saw:
 * - BOX_DEPLOYED: the player has a box (its creation);
 * - VPN_CONFIG_DOWNLOADED: a VPN identity was issued to the player (the first config download makes it) and is
 *   still good: a ban revokes its certificate and an unban deletes it, so the player then needs a new file;
 * - TUNNEL_UP: a VPN server admitted a client of theirs once (`users.first_tunnel_at`, from the connect hook);
 * - FIRST_SSH: the runtime saw their VPN address hold a connection to their own box's ssh port once
 *   (`users.first_box_login_at`); only where the runtime can see it;
 * - FIRST_MATCH: an attack with the player as attacker or target exists.
 * Once every step is done the checklist is complete for good (`users.onboarding_completed_at`).
 */
export class OnboardingService {
  readonly #orm: Orm;
  readonly #seesSsh: () => boolean;

  /** `seesSsh`: whether the box runtime can see who connects to a box's ssh port (BoxService.seesOwnerSsh). */
  constructor(orm: Orm, options: { seesSsh: () => boolean }) {
    this.#orm = orm;
    this.#seesSsh = options.seesSsh;
  }

  #sql(): Sql {
    return new Sql(this.#orm.em.fork() as EntityManager);
  }

  async status(userId: string): Promise<Onboarding> {
    const sql = this.#sql();
    const row = await sql.one<Row>(
      `select (select b.created_at from boxes b where b.user_id = u.id) as box_at,
              (select i.created_at from vpn_identities i
                where i.user_id = u.id
                  and not exists (select 1 from vpn_revocations r where r.serial_number = i.serial_number)
              ) as config_at,
              u.first_tunnel_at, u.first_box_login_at,
              least((select min(a.created_at) from attacks a where a.attacker_id = u.id),
                    (select min(a.created_at) from attacks a where a.target_id = u.id)) as match_at,
              u.onboarding_completed_at
         from users u where u.id = ?`,
      [userId],
    );
    if (!row) throw notFound('User not found');
    const seen: Record<OnboardingStep, string | null> = {
      BOX_DEPLOYED: row.box_at,
      VPN_CONFIG_DOWNLOADED: row.config_at,
      TUNNEL_UP: row.first_tunnel_at,
      FIRST_SSH: row.first_box_login_at,
      FIRST_MATCH: row.match_at,
    };
    const steps: OnboardingStepStatus[] = (Object.keys(seen) as OnboardingStep[])
      .filter((step) => step !== 'FIRST_SSH' || this.#seesSsh() || seen.FIRST_SSH !== null)
      .map((step) => ({ step, done: seen[step] !== null, doneAt: iso(seen[step]) }));
    let completedAt = row.onboarding_completed_at;
    if (completedAt === null && steps.every((s) => s.done)) {
      // Remembered the first time it is seen complete, so that it stays over (a box deleted later, a ban).
      const marked = await sql.one<{ onboarding_completed_at: string }>(
        `update users set onboarding_completed_at = coalesce(onboarding_completed_at, now())
          where id = ? returning onboarding_completed_at`,
        [userId],
      );
      completedAt = marked?.onboarding_completed_at ?? null;
    }
    return { steps, complete: completedAt !== null, completedAt: iso(completedAt) };
  }
}
