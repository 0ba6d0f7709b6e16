import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActivityType, Tier, User, UserStats } from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { notFound } from '../http/errors.ts';
import { PLAYER_SQL, RANK_OF_MMR_SQL } from '../leaderboard/service.ts';

interface UserRow {
  id: string;
  handle: string;
  email: string;
  mmr: number;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  is_online: boolean;
  credits_cents: string;
  free_credits_cents: string;
  tier: Tier;
}

/** Balances are integer hundredths in the database and credits with 2 decimals on the wire. */
export const centsToCredits = (cents: string | number | bigint) => Number(cents) / 100;

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    handle: row.handle,
    email: row.email,
    mmr: row.mmr,
    country: row.country,
    latitude: row.latitude,
    longitude: row.longitude,
    isOnline: row.is_online,
    credits: centsToCredits(row.credits_cents),
    freeCredits: centsToCredits(row.free_credits_cents),
    subscription: { tier: row.tier },
  };
}

export class UserService {
  readonly #orm: Orm;

  constructor(orm: Orm) {
    this.#orm = orm;
  }

  #sql() {
    return new Sql(this.#orm.em.fork() as EntityManager);
  }

  async get(userId: string): Promise<User> {
    const row = await this.#sql().one<UserRow>('select * from users where id = ?', [userId]);
    if (!row) throw notFound('User not found');
    return toUser(row);
  }

  /**
   * The leaderboard's rank (1 = best; ties share a rank; null for an account that is not on it: its
   * address is not verified) and the counters the attack service keeps when attacks settle.
   */
  async stats(userId: string): Promise<UserStats> {
    const row = await this.#sql().one<{ rank: number | null; attacks_won: number; defenses_won: number }>(
      `select case when ${PLAYER_SQL} then ${RANK_OF_MMR_SQL.replace('?', 'u.mmr')} end as rank,
              attacks_won, defenses_won
         from users u where u.id = ?`,
      [userId],
    );
    if (!row) throw notFound('User not found');
    return { rank: row.rank, attacksWon: row.attacks_won, defensesWon: row.defenses_won };
  }

  async logActivity(userId: string, activityType: ActivityType): Promise<void> {
    await this.#sql().run('insert into user_activity (user_id, activity_type) values (?, ?)', [
      userId,
      activityType,
    ]);
  }
}
