import { Migration } from '@mikro-orm/migrations';

/**
 * The in-box agent: a secret per box (looked up by its SHA-256, kept sealed so the runtime can
 * hand it to the box), the last event sequence number stored (deliveries are retried, events
 * are stored once), and when the agent was last heard.
 */
export class Migration20261122060000_agent extends Migration {
  override up(): void {
    this.addSql(`
      alter table boxes
        add column agent_token_hash text unique,
        add column agent_token_enc text,
        add column agent_last_seq bigint not null default 0,
        add column agent_seen_at timestamptz,
        add column agent_silent boolean not null default false;`);
  }

  override down(): void {
    this.addSql(`
      alter table boxes drop column agent_token_hash, drop column agent_token_enc, drop column agent_last_seq,
        drop column agent_seen_at, drop column agent_silent;`);
  }
}
