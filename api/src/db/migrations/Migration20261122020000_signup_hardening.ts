import { Migration } from '@mikro-orm/migrations';

/**
 * Handle reservations (a sign-up with an address that already has an account still holds
 * its handle for a day, so the handle cannot tell whether the address was taken) and the
 * browser binding of social sign-in codes.
 */
export class Migration20261122020000_signup_hardening extends Migration {
  override up(): void {
    this.addSql(`
      create table handle_reservations (
        handle citext primary key,
        expires_at timestamptz not null
      );`);
    this.addSql('alter table user_tokens add column binding_hash bytea;');
  }

  override down(): void {
    this.addSql('alter table user_tokens drop column binding_hash;');
    this.addSql('drop table handle_reservations;');
  }
}
