import { Migration } from '@mikro-orm/migrations';

/**
 * What a purchase needs to follow its payment after checkout (docs/payments.md):
 * - `provider_payment_ref`: the provider's payment behind the checkout (Stripe's PaymentIntent), which
 *   refunds and disputes name instead of the checkout session;
 * - `paid_cents`: what the provider says it collected (taxes included), the base a partial refund is a
 *   share of. Unknown until the payment's webhook lands; `amount_cents` stands in until then.
 */
export class Migration20261126110000_purchase_payments extends Migration {
  override up(): void {
    this.addSql(`
      alter table purchases
        add column provider_payment_ref text,
        add column paid_cents bigint check (paid_cents > 0);`);
    this.addSql(
      'create unique index purchases_provider_payment_ref_idx on purchases (provider, provider_payment_ref);',
    );
  }

  override down(): void {
    this.addSql('drop index purchases_provider_payment_ref_idx;');
    this.addSql('alter table purchases drop column provider_payment_ref, drop column paid_cents;');
  }
}
