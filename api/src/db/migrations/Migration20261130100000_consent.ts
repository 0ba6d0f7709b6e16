import { Migration } from '@mikro-orm/migrations';

/**
 * Consent at sign-up (docs/legal.md): when a new account confirmed the minimum age (13) and accepted the Terms of
 * Service and the Privacy Policy, and which revision of them (their last-updated date, `LEGAL_REVISION`).
 * Accounts made before this migration keep nulls: nobody is asked again, and nothing is made up for them.
 *
 * With it, the index that lets housekeeping delete the activity log past the 2 years the Privacy Policy states.
 */
export class Migration20261130100000_consent extends Migration {
  override up(): void {
    this.addSql(`
      alter table users
        add column age_confirmed_at timestamptz,
        add column terms_accepted_at timestamptz,
        add column terms_revision text,
        add constraint users_terms_revision_check check (
          (terms_accepted_at is null) = (terms_revision is null)
          and (terms_revision is null or terms_revision ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'));`);
    this.addSql('create index user_activity_created_idx on user_activity (created_at);');
  }

  override down(): void {
    this.addSql('drop index user_activity_created_idx;');
    this.addSql(`
      alter table users
        drop constraint users_terms_revision_check,
        drop column terms_revision,
        drop column terms_accepted_at,
        drop column age_confirmed_at;`);
  }
}
