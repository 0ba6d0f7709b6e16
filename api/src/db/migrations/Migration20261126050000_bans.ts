import { Migration } from '@mikro-orm/migrations';

/**
 * Staff bans (docs/accounts.md, "Bans"): a banned account cannot sign in, use the VPN or run a
 * box. Every staff action is kept in `staff_actions`, also after the account is deleted.
 */
export class Migration20261126050000_bans extends Migration {
  override up(): void {
    this.addSql('alter table users add column banned_at timestamptz, add column banned_reason text;');
    this.addSql(`
      create table staff_actions (
        id bigserial primary key,
        at timestamptz not null default now(),
        actor text not null,
        action text not null,
        user_id uuid references users (id) on delete set null,
        target text not null,
        reason text,
        details jsonb not null default '{}'::jsonb
      );`);
    this.addSql('create index staff_actions_user_idx on staff_actions (user_id, at);');
  }

  override down(): void {
    this.addSql('drop table staff_actions;');
    this.addSql('alter table users drop column banned_at, drop column banned_reason;');
  }
}
