import { Migration } from '@mikro-orm/migrations';

/**
 * Boxes (one per user), the VPN identities of players, and box time per day (BASIC limit).
 * Desired state (`desired_power`) lives here; the orchestrator loop converges the runtime to it
 * and writes what it observes into `status`.
 */
export class Migration20261122040000_boxes extends Migration {
  override up(): void {
    this.addSql(`
      create table boxes (
        id uuid primary key default gen_random_uuid(),
        user_id uuid not null unique references users (id) on delete cascade,
        slot integer not null unique check (slot >= 0),
        hostname citext not null unique,
        ip text,
        desired_power boolean not null default false,
        status text not null default 'STOPPED' check (status in ('PROVISIONING', 'RUNNING', 'STOPPED', 'CRASHED')),
        status_reason text,
        open_ports jsonb not null default '{}',
        ssh_password_enc text not null,
        ssh_public_key text,
        accumulated_usage_seconds bigint not null default 0 check (accumulated_usage_seconds >= 0),
        last_powered_at timestamptz,
        usage_counted_until timestamptz,
        session_started_at timestamptz,
        session_charged_minutes integer not null default 0,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table box_daily_usage (
        user_id uuid not null references users (id) on delete cascade,
        day date not null,
        seconds integer not null default 0 check (seconds >= 0),
        primary key (user_id, day)
      );`);
    this.addSql(`
      create table vpn_identities (
        user_id uuid primary key references users (id) on delete cascade,
        serial_number text not null unique,
        certificate_pem text not null,
        private_key_enc text not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table vpn_revocations (
        serial_number text primary key,
        user_id uuid not null references users (id) on delete cascade,
        revoked_at timestamptz not null default now()
      );`);
    this.addSql('alter table users add column vpn_revoked_at timestamptz;');
  }

  override down(): void {
    this.addSql('alter table users drop column vpn_revoked_at;');
    this.addSql('drop table vpn_revocations;');
    this.addSql('drop table vpn_identities;');
    this.addSql('drop table box_daily_usage;');
    this.addSql('drop table boxes;');
  }
}
