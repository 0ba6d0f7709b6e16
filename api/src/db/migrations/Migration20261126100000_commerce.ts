import { Migration } from '@mikro-orm/migrations';

/**
 * Credits that players buy and gifts they redeem (docs/credits.md):
 * - `purchases`: written before a payment provider is called, with the amount; the provider's references
 *   point back to it, and only its webhook credits it, once (`credited_entry_id`);
 * - `payment_events`: every provider event handled, by the provider's own id, so a repeated delivery is a no-op;
 * - `gift_tokens`: minted by staff (CLI), stored as a hash, redeemed at most once;
 * - the ledger learns REFUND and CHARGEBACK.
 */
export class Migration20261126100000_commerce extends Migration {
  override up(): void {
    this.addSql(`
      create table purchases (
        id uuid primary key default gen_random_uuid(),
        user_id uuid not null references users (id) on delete restrict,
        provider text not null check (provider in ('stripe', 'paddle')),
        amount_cents bigint not null check (amount_cents between 500 and 100000),
        currency text not null default 'usd',
        credits_cents bigint not null check (credits_cents > 0),
        tier text not null check (tier in ('BASIC', 'HACKER', 'ELITE', 'TEAM')),
        status text not null default 'pending'
          check (status in ('pending', 'paid', 'held', 'canceled', 'expired', 'refunded', 'partially_refunded', 'disputed')),
        provider_ref text,
        provider_customer text,
        credited_entry_id bigint references credit_ledger (id),
        refunded_cents bigint not null default 0 check (refunded_cents >= 0),
        debited_credits_cents bigint not null default 0 check (debited_credits_cents >= 0),
        created_at timestamptz not null default now(),
        paid_at timestamptz,
        updated_at timestamptz not null default now()
      );`);
    this.addSql('create unique index purchases_provider_ref_idx on purchases (provider, provider_ref);');
    this.addSql('create index purchases_user_idx on purchases (user_id, created_at);');
    this.addSql(`
      create table payment_events (
        provider text not null,
        event_id text not null,
        type text not null,
        purchase_id uuid references purchases (id),
        received_at timestamptz not null default now(),
        primary key (provider, event_id)
      );`);
    this.addSql(`
      create table gift_tokens (
        id uuid primary key default gen_random_uuid(),
        token_hash bytea not null unique,
        hint text not null,
        free_credits_cents bigint not null check (free_credits_cents > 0),
        expires_at timestamptz,
        note text,
        created_by text not null,
        created_at timestamptz not null default now(),
        redeemed_by uuid references users (id) on delete set null,
        redeemed_at timestamptz
      );`);
    this.addSql('alter table credit_ledger drop constraint credit_ledger_reason_check;');
    this.addSql(`
      alter table credit_ledger add constraint credit_ledger_reason_check check (reason in
        ('SIGNUP_GIFT', 'BOX_TIME', 'ATTACK', 'PURCHASE', 'GIFT_TOKEN', 'ADJUSTMENT', 'REFUND', 'CHARGEBACK'));`);
  }

  override down(): void {
    this.addSql('drop table gift_tokens;');
    this.addSql('drop table payment_events;');
    this.addSql('drop table purchases;');
    this.addSql('alter table credit_ledger drop constraint credit_ledger_reason_check;');
    this.addSql(`
      alter table credit_ledger add constraint credit_ledger_reason_check check (reason in
        ('SIGNUP_GIFT', 'BOX_TIME', 'ATTACK', 'PURCHASE', 'GIFT_TOKEN', 'ADJUSTMENT'));`);
  }
}
