import { Migration } from '@mikro-orm/migrations';

/**
 * Snapshots of boxes (the tiers' snapshot slots, docs/boxes.md): a saved disk and the loadout the box had,
 * restored in place of a fresh reset. `size_bytes` is null while the snapshot is being taken.
 */
export class Migration20261129110000_box_snapshots extends Migration {
  override up(): void {
    this.addSql(`create table box_snapshots (
        id uuid primary key default gen_random_uuid(),
        box_id uuid not null references boxes (id) on delete cascade,
        name text not null,
        loadout text[] not null,
        size_bytes bigint,
        created_at timestamptz not null default now(),
        constraint box_snapshots_name_key unique (box_id, name)
      );`);
  }

  override down(): void {
    this.addSql('drop table box_snapshots;');
  }
}
