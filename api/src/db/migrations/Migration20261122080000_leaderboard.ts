import { Migration } from '@mikro-orm/migrations';

/** Only accounts that can play are on the leaderboard: signing in needs a verified address. */
const PLAYER = 'email_verified_at is not null';

/**
 * The leaderboard (docs/leaderboard.md): counters on users, kept by the attack service when an
 * attack settles; rates as stored generated columns; one index per sort column (both orders, id as
 * the tiebreak); a trigram index for the handle search; and `leaderboard_mmr_counts`, players per
 * MMR value, kept exact by statement triggers on users, so that a rank (1 + players with a higher
 * MMR) is a sum over a few hundred rows instead of a count over a million.
 */
export class Migration20261122080000_leaderboard extends Migration {
  override up(): void {
    // pg_trgm is a trusted extension (PostgreSQL 13+): no superuser needed.
    this.addSql('create extension if not exists pg_trgm;');
    this.addSql(`
      alter table users
        add column attacks_won integer not null default 0,
        add column total_attacks integer not null default 0,
        add column defenses_won integer not null default 0,
        add column total_defenses integer not null default 0;`);
    // Attacks that got a winner count (CANCELLED and PENDING do not: nobody's MMR moved).
    this.addSql(`
      update users u
         set attacks_won = c.attacks_won, total_attacks = c.total_attacks,
             defenses_won = c.defenses_won, total_defenses = c.total_defenses
        from (
          select id,
                 count(*) filter (where attacker and status in ('OWNED', 'FOOTHOLD'))::int as attacks_won,
                 count(*) filter (where attacker)::int as total_attacks,
                 count(*) filter (where not attacker and status in ('DEFENDED', 'TIMEOUT'))::int as defenses_won,
                 count(*) filter (where not attacker)::int as total_defenses
            from (
              select attacker_id as id, true as attacker, status from attacks
               where status in ('OWNED', 'FOOTHOLD', 'DEFENDED', 'TIMEOUT')
              union all
              select target_id, false, status from attacks
               where status in ('OWNED', 'FOOTHOLD', 'DEFENDED', 'TIMEOUT')
            ) a
           group by id
        ) c
       where c.id = u.id;`);
    this.addSql(`
      alter table users
        add column win_rate numeric(4, 1) generated always as (
          case when total_attacks = 0 then 0 else round(attacks_won * 100.0 / total_attacks, 1) end
        ) stored,
        add column defense_rate numeric(4, 1) generated always as (
          case when total_defenses = 0 then 0 else round(defenses_won * 100.0 / total_defenses, 1) end
        ) stored;`);

    // Handles in lower case as a column of their own: the search, the handle order and their
    // indexes use it, and an index-only scan can read it (it cannot read an expression index's value).
    this.addSql(
      'alter table users add column handle_lower text generated always as (lower(handle::text)) stored;',
    );

    // Each sort column descending with id ascending: a forward scan serves `desc` (ties by id
    // ascending), a backward scan serves `asc` (ties by id descending), so asc is desc reversed.
    for (const column of [
      'mmr',
      'handle_lower',
      'attacks_won',
      'total_attacks',
      'win_rate',
      'defenses_won',
      'total_defenses',
      'defense_rate',
    ])
      this.addSql(`create index users_lb_${column}_idx on users (${column} desc, id) where ${PLAYER};`);
    // Search: a prefix (1-2 characters) by a range of this index, read without the table (the
    // count, and every sort column for the top of the page); a substring by trigrams.
    this.addSql(`
      create index users_lb_handle_prefix_idx on users (handle_lower text_pattern_ops)
        include (id, mmr, attacks_won, total_attacks, win_rate, defenses_won, total_defenses, defense_rate)
        where ${PLAYER};`);
    this.addSql(
      `create index users_lb_handle_trgm_idx on users using gin (handle_lower gin_trgm_ops) where ${PLAYER};`,
    );

    this.addSql(`
      create table leaderboard_mmr_counts (
        mmr integer primary key,
        players integer not null
      );`);
    this.addSql(`
      insert into leaderboard_mmr_counts (mmr, players)
      select mmr, count(*) from users where ${PLAYER} group by mmr;`);
    // One statement per change, its rows applied in MMR order: two transactions lock the counts
    // they share in the same order, so they cannot deadlock on them.
    this.addSql(`
      create function leaderboard_count_players() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into leaderboard_mmr_counts as c (mmr, players)
          select mmr, count(*) from new_rows where email_verified_at is not null group by mmr order by mmr
          on conflict (mmr) do update set players = c.players + excluded.players;
        elsif tg_op = 'DELETE' then
          update leaderboard_mmr_counts c set players = c.players - d.players
            from (select mmr, count(*)::int as players from old_rows
                   where email_verified_at is not null group by mmr order by mmr) d
           where c.mmr = d.mmr;
        elsif tg_op = 'UPDATE' then
          insert into leaderboard_mmr_counts as c (mmr, players)
          select mmr, sum(delta) from (
            select o.mmr, -1 as delta from old_rows o join new_rows n on n.id = o.id
             where o.email_verified_at is not null and (n.email_verified_at is null or n.mmr <> o.mmr)
            union all
            select n.mmr, 1 from old_rows o join new_rows n on n.id = o.id
             where n.email_verified_at is not null and (o.email_verified_at is null or n.mmr <> o.mmr)
          ) d
          group by mmr having sum(delta) <> 0 order by mmr
          on conflict (mmr) do update set players = c.players + excluded.players;
        elsif tg_op = 'TRUNCATE' then
          delete from leaderboard_mmr_counts;
        end if;
        return null;
      end $$;`);
    this.addSql(`
      create trigger users_leaderboard_insert after insert on users
        referencing new table as new_rows for each statement execute function leaderboard_count_players();`);
    this.addSql(`
      create trigger users_leaderboard_update after update on users
        referencing old table as old_rows new table as new_rows
        for each statement execute function leaderboard_count_players();`);
    this.addSql(`
      create trigger users_leaderboard_delete after delete on users
        referencing old table as old_rows for each statement execute function leaderboard_count_players();`);
    this.addSql(`
      create trigger users_leaderboard_truncate after truncate on users
        for each statement execute function leaderboard_count_players();`);
  }

  override down(): void {
    this.addSql('drop trigger users_leaderboard_truncate on users;');
    this.addSql('drop trigger users_leaderboard_delete on users;');
    this.addSql('drop trigger users_leaderboard_update on users;');
    this.addSql('drop trigger users_leaderboard_insert on users;');
    this.addSql('drop function leaderboard_count_players();');
    this.addSql('drop table leaderboard_mmr_counts;');
    this.addSql('drop index users_lb_mmr_idx;');
    this.addSql(`
      alter table users
        drop column handle_lower, drop column defense_rate, drop column win_rate,
        drop column total_defenses, drop column defenses_won,
        drop column total_attacks, drop column attacks_won;`);
  }
}
