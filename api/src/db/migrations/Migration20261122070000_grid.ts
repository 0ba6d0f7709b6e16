import { Migration } from '@mikro-orm/migrations';

/**
 * The Grid (docs/grid.md): blocks between players, the matchmaking queue and its proposals (state in
 * PostgreSQL so any API replica can serve a player), and notifications kept until the player's client acknowledges them.
 */
export class Migration20261122070000_grid extends Migration {
  override up(): void {
    this.addSql(`
      create table user_blocks (
        blocker_id uuid not null references users (id) on delete cascade,
        blocked_id uuid not null references users (id) on delete cascade,
        created_at timestamptz not null default now(),
        primary key (blocker_id, blocked_id),
        check (blocker_id <> blocked_id)
      );`);
    this.addSql('create index user_blocks_blocked_idx on user_blocks (blocked_id);');
    this.addSql(`
      create table match_queue (
        user_id uuid primary key references users (id) on delete cascade,
        mmr integer not null,
        joined_at timestamptz not null default now(),
        -- the opponent of the player's last match: not again in a row
        last_opponent_id uuid,
        -- when the MMR window reached its cap (nobody eligible since: queue:noMatch after a while)
        capped_since timestamptz
      );`);
    this.addSql('create index match_queue_joined_idx on match_queue (joined_at, user_id);');
    this.addSql('create index match_queue_mmr_idx on match_queue (mmr);');
    this.addSql(`
      create table match_proposals (
        id uuid primary key default gen_random_uuid(),
        -- No foreign keys to users: a tick inserts thousands of proposals at once and each key check
        -- locks a users row (docs/benchmarks.md); a deleted user's proposals are deleted with them by
        -- the trigger below.
        attacker_id uuid not null,
        defender_id uuid not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        attacker_engaged boolean not null default false,
        defender_engaged boolean not null default false,
        -- when each had joined the queue (back in the queue with it if the other leaves; estimates)
        attacker_joined_at timestamptz not null,
        defender_joined_at timestamptz not null,
        state text not null default 'OPEN'
          check (state in ('OPEN', 'STARTED', 'EXPIRED', 'DISMISSED', 'LEFT', 'UNAVAILABLE')),
        attack_id uuid references attacks (id) on delete set null,
        ended_at timestamptz,
        check (attacker_id <> defender_id),
        check ((state = 'OPEN') = (ended_at is null))
      );`);
    this.addSql(
      `create unique index match_proposals_open_attacker on match_proposals (attacker_id) where state = 'OPEN';`,
    );
    this.addSql(
      `create unique index match_proposals_open_defender on match_proposals (defender_id) where state = 'OPEN';`,
    );
    this.addSql(
      `create index match_proposals_open_expiry on match_proposals (expires_at) where state = 'OPEN';`,
    );
    this.addSql(`
      create function match_proposals_forget_user() returns trigger language plpgsql as $$
      begin
        delete from match_proposals where attacker_id = old.id or defender_id = old.id;
        return old;
      end $$;`);
    this.addSql(`
      create trigger users_forget_match_proposals after delete on users
        for each row execute function match_proposals_forget_user();`);
    this.addSql('create index match_proposals_created_idx on match_proposals (created_at desc);');
    this.addSql(
      'create index match_proposals_attacker_idx on match_proposals (attacker_id, created_at desc);',
    );
    this.addSql(
      'create index match_proposals_defender_idx on match_proposals (defender_id, created_at desc);',
    );
    this.addSql(`
      create table notifications (
        id uuid primary key default gen_random_uuid(),
        user_id uuid not null references users (id) on delete cascade,
        type text not null check (type in ('ATTACK_INBOUND', 'ATTACK_OWNED', 'ATTACK_FOOTHOLD',
          'ATTACK_DEFENDED', 'ATTACK_TIMEOUT', 'CHAT_REQUEST', 'PRIVATE_MESSAGE', 'GENERIC', 'ERROR')),
        title text not null,
        body text not null,
        initiator_id uuid references users (id) on delete set null,
        chat_id uuid,
        attack_id uuid references attacks (id) on delete cascade,
        created_at timestamptz not null default now(),
        delivered_at timestamptz
      );`);
    this.addSql(
      'create index notifications_undelivered_idx on notifications (user_id, created_at) where delivered_at is null;',
    );
    this.addSql(
      'create unique index notifications_once_per_attack on notifications (user_id, attack_id, type) where attack_id is not null;',
    );
  }

  override down(): void {
    this.addSql('drop trigger if exists users_forget_match_proposals on users;');
    this.addSql('drop function if exists match_proposals_forget_user();');
    this.addSql('drop table if exists notifications, match_proposals, match_queue, user_blocks;');
  }
}
