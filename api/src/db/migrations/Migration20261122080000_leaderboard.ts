import { Migration } from '@mikro-orm/migrations';

/** The leaderboard (docs/grid.md): counters on users and a maintained ranking. */
export class Migration20261122080000_leaderboard extends Migration {
  override up(): void {}

  override down(): void {}
}
