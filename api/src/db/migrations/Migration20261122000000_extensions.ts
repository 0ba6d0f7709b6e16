import { Migration } from '@mikro-orm/migrations';

/**
 * Case-insensitive text (citext) for identifiers people type in any case, such as
 * handles and email addresses. citext is a trusted extension: no superuser needed.
 */
export class Migration20261122000000_extensions extends Migration {
  override up(): void {
    this.addSql('create extension if not exists citext;');
  }

  override down(): void {
    this.addSql('drop extension if exists citext;');
  }
}
