import { Migration } from '@mikro-orm/migrations';

/**
 * Attacks and their kill chain. An attack is PENDING while it runs and gets its outcome once,
 * by a conditional update (`where status = 'PENDING'`), so racing settlements cannot both win.
 * A player takes part in one running attack at a time (checked under advisory locks at start;
 * the partial unique indexes back it up per role).
 */
export class Migration20261122050000_attacks extends Migration {
  override up(): void {
    this.addSql(`
      create table attacks (
        id uuid primary key default gen_random_uuid(),
        attacker_id uuid not null references users (id) on delete cascade,
        target_id uuid not null references users (id) on delete cascade,
        box_id uuid references boxes (id) on delete set null,
        status text not null default 'PENDING'
          check (status in ('OWNED', 'DEFENDED', 'TIMEOUT', 'PENDING', 'FOOTHOLD', 'CANCELLED')),
        source text not null default 'DIRECT' check (source in ('DIRECT', 'MATCH', 'PVP')),
        cost_cents integer not null check (cost_cents >= 0),
        foothold_at timestamptz,
        foothold_held boolean not null default false,
        owned_at timestamptz,
        winner_id uuid references users (id) on delete set null,
        loser_id uuid references users (id) on delete set null,
        attacker_mmr_before integer,
        target_mmr_before integer,
        mmr_change integer,
        created_at timestamptz not null default now(),
        ends_at timestamptz not null,
        ended_at timestamptz,
        check (attacker_id <> target_id),
        check ((status = 'PENDING') = (ended_at is null))
      );`);
    this.addSql(
      `create unique index attacks_one_running_attacker on attacks (attacker_id) where status = 'PENDING';`,
    );
    this.addSql(
      `create unique index attacks_one_running_target on attacks (target_id) where status = 'PENDING';`,
    );
    this.addSql('create index attacks_attacker_idx on attacks (attacker_id, created_at desc);');
    this.addSql('create index attacks_target_idx on attacks (target_id, created_at desc);');
    this.addSql(`create index attacks_running_idx on attacks (ends_at) where status = 'PENDING';`);
    this.addSql(`
      create table attack_events (
        id bigserial primary key,
        attack_id uuid not null references attacks (id) on delete cascade,
        type text not null check (type in ('COMMAND', 'FOOTHOLD', 'OWN', 'EVICTED', 'AGENT_SILENT', 'AGENT_BACK')),
        details jsonb not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql('create index attack_events_attack_idx on attack_events (attack_id, id);');
    this.addSql(`
      create table attack_command_logs (
        id bigserial primary key,
        attack_id uuid not null references attacks (id) on delete cascade,
        executed_at timestamptz not null,
        username text not null,
        cwd text not null,
        command text not null
      );`);
    this.addSql(
      'create index attack_command_logs_attack_idx on attack_command_logs (attack_id, executed_at, id);',
    );
  }

  override down(): void {
    this.addSql('drop table attack_command_logs;');
    this.addSql('drop table attack_events;');
    this.addSql('drop table attacks;');
  }
}
