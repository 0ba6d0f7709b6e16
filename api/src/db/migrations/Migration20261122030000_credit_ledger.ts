import { Migration } from '@mikro-orm/migrations';

/**
 * The credit ledger: every change of a balance is a row, in integer hundredths of a credit.
 * Balances live on `users` (never negative, by constraint) and always equal the sum of
 * their ledger rows.
 */
export class Migration20261122030000_credit_ledger extends Migration {
  override up(): void {
    this.addSql(`
      create table credit_ledger (
        id bigserial primary key,
        user_id uuid not null references users (id) on delete cascade,
        credits_delta_cents bigint not null,
        free_credits_delta_cents bigint not null,
        credits_after_cents bigint not null check (credits_after_cents >= 0),
        free_credits_after_cents bigint not null check (free_credits_after_cents >= 0),
        reason text not null check (reason in ('SIGNUP_GIFT', 'BOX_TIME', 'ATTACK', 'PURCHASE', 'GIFT_TOKEN', 'ADJUSTMENT')),
        reference text,
        created_at timestamptz not null default now(),
        check (credits_delta_cents <> 0 or free_credits_delta_cents <> 0)
      );`);
    this.addSql('create index credit_ledger_user_idx on credit_ledger (user_id, id);');
  }

  override down(): void {
    this.addSql('drop table credit_ledger;');
  }
}
