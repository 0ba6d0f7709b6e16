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

/** From this offset on, rank and MMR pages seek through the MMR counts (before it, skipping is cheaper). */
export const SEEK_FROM = 3000;

/** Search terms shorter than this match the start of a handle; longer ones anywhere in it. */
export const SUBSTRING_MIN_LENGTH = 3;

const COLUMNS: Record<Exclude<LeaderboardSortField, 'rank'>, string> = {
  handle: 'handle_lower',
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
  win_rate: number;
  defenses_won: number;
  total_defenses: number;
  defense_rate: number;
}

/** `%`, `_` and `\` are literal in a search (`_` is common in handles). */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The pattern a search term matches `handle_lower` with. */
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
  readonly #seekFrom: number;

  constructor(orm: Orm, options: { seekFrom?: number } = {}) {
    this.#orm = orm;
    this.#seekFrom = options.seekFrom ?? SEEK_FROM;
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
    const order = (t = '') =>
      descending ? `${t}${column} desc, ${t}id asc` : `${t}${column} asc, ${t}id desc`;

    let ids: string;
    let params: unknown[];
    // Everyone: the sum of the MMR counts (no count over a million rows).
    let total = 'select coalesce(sum(players), 0) from leaderboard_mmr_counts';
    if (search) {
      const pattern = handlePattern(search);
      const where = `${PLAYER_SQL} and handle_lower like ?`;
      ids = `select id from users where ${where} order by ${order()} offset ? limit ?`;
      total = `select count(*) from users where ${where}`;
      params = [pattern, offset, query.limit, pattern];
    } else if (column === 'mmr' && offset >= this.#seekFrom) {
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
         order by ${order()} offset (select skip from start) limit ?`;
      params = [offset, offset, offset, query.limit];
    } else {
      ids = `select id from users where ${PLAYER_SQL} order by ${order()} offset ? limit ?`;
      params = [offset, query.limit];
    }
    // One statement: the ids (an index-only scan past the offset), then their rows, their ranks
    // (players of a higher MMR, summed from the page's lowest MMR up) and the total.
    const row = await this.#sql().one<{ data: Row[]; total: string }>(
      `with page as materialized (${ids}),
        rows as materialized (select u.* from page p join users u on u.id = p.id),
        ranks as (
          select mmr, (1 + coalesce(sum(players) over (order by mmr desc
                         rows between unbounded preceding and 1 preceding), 0))::int as rank
            from leaderboard_mmr_counts where mmr >= (select min(mmr) from rows)
        )
      select (select coalesce(json_agg(json_build_object(
                'id', r.id, 'rank', k.rank, 'handle', r.handle, 'mmr', r.mmr,
                'attacks_won', r.attacks_won, 'total_attacks', r.total_attacks, 'win_rate', r.win_rate,
                'defenses_won', r.defenses_won, 'total_defenses', r.total_defenses,
                'defense_rate', r.defense_rate) order by ${order('r.')}), '[]')
                from rows r join ranks k on k.mmr = r.mmr) as data,
             (${total}) as total`,
      params,
    );
    return { data: row!.data.map(toLeaderboardRow), total: Number(row!.total) };
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
    winRate: row.win_rate,
    defensesWon: row.defenses_won,
    totalDefenses: row.total_defenses,
    defenseRate: row.defense_rate,
  };
}
