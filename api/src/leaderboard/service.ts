import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import type {
  LeaderboardPage,
  LeaderboardRow,
  LeaderboardSortField,
  leaderboardQuery,
} from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';

export type LeaderboardRequest = z.output<typeof leaderboardQuery>;

/** Who is on the leaderboard: accounts that can play (signing in needs a verified address). */
export const PLAYER_SQL = 'email_verified_at is not null';

/**
 * A player's rank from their MMR: 1 + players with a higher MMR (ties share a rank), summed over
 * `leaderboard_mmr_counts` (one row per MMR value, kept by triggers on users). One `?`: the MMR.
 */
export const RANK_OF_MMR_SQL =
  '(1 + coalesce((select sum(c.players) from leaderboard_mmr_counts c where c.mmr > ?), 0))::int';

/** Search terms shorter than this match the start of a handle; longer ones anywhere in it. */
export const SUBSTRING_MIN_LENGTH = 3;

const COLUMNS: Record<Exclude<LeaderboardSortField, 'rank'>, string> = {
  handle: 'handle',
  mmr: 'mmr',
  attacksWon: 'attacks_won',
  totalAttacks: 'total_attacks',
  winRate: 'win_rate',
  defensesWon: 'defenses_won',
  totalDefenses: 'total_defenses',
  defenseRate: 'defense_rate',
};

interface Row {
  id: string;
  rank: number;
  handle: string;
  mmr: number;
  attacks_won: number;
  total_attacks: number;
  win_rate: string;
  defenses_won: number;
  total_defenses: number;
  defense_rate: string;
}

/** `%`, `_` and `\` are literal in a search (`_` is common in handles). */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The pattern a search term matches handles with (lower case: the trigram index is on lower(handle)). */
export function handlePattern(search: string): string {
  const term = escapeLike(search.toLowerCase());
  return search.length < SUBSTRING_MIN_LENGTH ? `${term}%` : `%${term}%`;
}

/**
 * GET /leaderboard (docs/leaderboard.md). Every order is an index scan: one index per sort column
 * (descending, id ascending), read forwards for `desc` and backwards for `asc`, so ties are broken
 * by id and `asc` is exactly `desc` reversed. Rank and MMR pages seek to their first row through the
 * MMR counts instead of skipping the rows before them, so a deep page costs what the first does.
 */
export class LeaderboardService {
  readonly #orm: Orm;

  constructor(orm: Orm) {
    this.#orm = orm;
  }

  #sql(): Sql {
    return new Sql(this.#orm.em.fork() as EntityManager);
  }

  async page(query: LeaderboardRequest): Promise<LeaderboardPage> {
    const search = query.search?.trim() ?? '';
    const offset = (query.page - 1) * query.limit;
    // Rank ascending is MMR descending.
    const column = query.sortBy === 'rank' ? 'mmr' : COLUMNS[query.sortBy];
    const descending = query.sortBy === 'rank' ? query.sortOrder === 'asc' : query.sortOrder === 'desc';
    const order = descending ? `${column} desc, id asc` : `${column} asc, id desc`;

    let ids: string;
    let params: unknown[];
    let total: Promise<number>;
    if (search) {
      const pattern = handlePattern(search);
      const where = `${PLAYER_SQL} and lower(handle::text) like ?`;
      ids = `select id from users where ${where} order by ${order} offset ? limit ?`;
      params = [pattern, offset, query.limit];
      total = this.#count(`select count(*) as n from users where ${where}`, [pattern]);
    } else if (column === 'mmr') {
      // Seek: the MMR value the page starts in and how many of its players come before the page.
      // Every player of a higher (ascending: lower) MMR comes before it; they are not read.
      ids = `
        with start as (
          select mmr, ? - before as skip
            from (select mmr, players,
                         coalesce(sum(players) over (order by mmr ${descending ? 'desc' : 'asc'}
                           rows between unbounded preceding and 1 preceding), 0) as before
                    from leaderboard_mmr_counts) h
           where before <= ? and ? < before + players
        )
        select id from users
         where ${PLAYER_SQL} and mmr ${descending ? '<=' : '>='} (select mmr from start)
         order by ${order} offset (select skip from start) limit ?`;
      params = [offset, offset, offset, query.limit];
      total = this.#count('select coalesce(sum(players), 0) as n from leaderboard_mmr_counts');
    } else {
      ids = `select id from users where ${PLAYER_SQL} order by ${order} offset ? limit ?`;
      params = [offset, query.limit];
      total = this.#count('select coalesce(sum(players), 0) as n from leaderboard_mmr_counts');
    }
    // Ids first (an index-only scan past the offset), then the 15 rows and their ranks.
    const rows = this.#sql().all<Row>(
      `with page as materialized (${ids}),
        rows as materialized (select u.* from page p join users u on u.id = p.id),
        ranks as (
          select mmr, (1 + coalesce(sum(players) over (order by mmr desc
                         rows between unbounded preceding and 1 preceding), 0))::int as rank
            from leaderboard_mmr_counts where mmr >= (select min(mmr) from rows)
        )
      select r.id, k.rank, r.handle, r.mmr, r.attacks_won, r.total_attacks, r.win_rate,
             r.defenses_won, r.total_defenses, r.defense_rate
        from rows r join ranks k on k.mmr = r.mmr
       order by ${order}`,
      params,
    );
    const [data, count] = await Promise.all([rows, total]);
    return { data: data.map(toLeaderboardRow), total: count };
  }

  async #count(sql: string, params: unknown[] = []): Promise<number> {
    return Number((await this.#sql().one<{ n: string }>(sql, params))?.n ?? 0);
  }
}

export function toLeaderboardRow(row: Row): LeaderboardRow {
  return {
    id: row.id,
    rank: row.rank,
    handle: row.handle,
    mmr: row.mmr,
    attacksWon: row.attacks_won,
    totalAttacks: row.total_attacks,
    winRate: Number(row.win_rate),
    defensesWon: row.defenses_won,
    totalDefenses: row.total_defenses,
    defenseRate: Number(row.defense_rate),
  };
}
