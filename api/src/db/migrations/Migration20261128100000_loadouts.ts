import { Migration } from '@mikro-orm/migrations';

/**
 * A box's loadout (docs/catalogue.md): the catalogue entries chosen for it when it was created,
 * installed at its first boot. Boxes made before loadouts existed have none.
 */
export class Migration20261128100000_loadouts extends Migration {
  override up(): void {
    this.addSql(`alter table boxes add column loadout text[] not null default '{}';`);
  }

  override down(): void {
    this.addSql('alter table boxes drop column loadout;');
  }
}
