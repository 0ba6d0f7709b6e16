import { Migration } from '@mikro-orm/migrations';

/** Users, their one-time tokens, sessions (refresh token families), social identities, activity, throttling. */
export class Migration20261122010000_accounts extends Migration {
  override up(): void {
    this.addSql(`
      create table users (
        id uuid primary key,
        handle citext not null,
        email citext not null,
        password_hash text,
        email_verified_at timestamptz,
        password_changed_at timestamptz,
        mmr integer not null default 1000,
        country text,
        latitude double precision,
        longitude double precision,
        is_online boolean not null default false,
        credits_cents bigint not null default 0 check (credits_cents >= 0),
        free_credits_cents bigint not null default 0 check (free_credits_cents >= 0),
        tier text not null default 'BASIC' check (tier in ('BASIC', 'HACKER', 'ELITE', 'TEAM')),
        utm_source text not null default '',
        utm_medium text not null default '',
        utm_campaign text not null default '',
        referral_code text not null default '',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint users_handle_key unique (handle),
        constraint users_email_key unique (email),
        constraint users_handle_format check (handle ~ '^[A-Za-z0-9_-]{3,24}$')
      );`);
    this.addSql(`
      create table user_tokens (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        purpose text not null check (purpose in ('VERIFY_EMAIL', 'RESET_PASSWORD', 'SOCIAL_LOGIN')),
        token_hash bytea not null unique,
        expires_at timestamptz not null,
        used_at timestamptz,
        created_at timestamptz not null default now()
      );`);
    this.addSql('create index user_tokens_user_purpose_idx on user_tokens (user_id, purpose);');
    this.addSql(`
      create table sessions (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        expires_at timestamptz not null,
        revoked_at timestamptz,
        revoked_reason text,
        user_agent text,
        ip text,
        created_at timestamptz not null default now(),
        last_used_at timestamptz not null default now()
      );`);
    this.addSql('create index sessions_user_idx on sessions (user_id);');
    this.addSql(`
      create table refresh_tokens (
        id uuid primary key,
        session_id uuid not null references sessions (id) on delete cascade,
        token_hash bytea not null unique,
        rotated_at timestamptz,
        created_at timestamptz not null default now()
      );`);
    this.addSql('create index refresh_tokens_session_idx on refresh_tokens (session_id);');
    this.addSql(`
      create table social_identities (
        provider text not null check (provider in ('google', 'github', 'linkedin')),
        subject text not null,
        user_id uuid not null references users (id) on delete cascade,
        email citext,
        created_at timestamptz not null default now(),
        primary key (provider, subject)
      );`);
    this.addSql(`
      create table user_activity (
        id bigserial primary key,
        user_id uuid not null references users (id) on delete cascade,
        activity_type text not null check (activity_type in ('LEADERBOARD_VIEW', 'SUBSCRIPTIONS_VIEW', 'PAYMENT_CANCELLED', 'PROFILE_VIEW')),
        created_at timestamptz not null default now()
      );`);
    this.addSql('create index user_activity_user_idx on user_activity (user_id, created_at);');
    // rate-limiter-flexible's table (RateLimiterPostgres), created here so the limiter never does DDL.
    this.addSql(`
      create table rate_limits (
        key varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      );`);
  }

  override down(): void {
    this.addSql(
      'drop table if exists rate_limits, user_activity, social_identities, refresh_tokens, sessions, user_tokens, users;',
    );
  }
}
