import { Migration } from '@mikro-orm/migrations';

/**
 * A box agent that goes silent during an attack forfeits the defense now (docs/detection.md), so
 * boxes no longer keep whether their agent was silent (AGENT_SILENT / AGENT_BACK events).
 */
export class Migration20261125020000_agent_witness extends Migration {
  override up(): void {
    this.addSql('alter table boxes drop column agent_silent;');
  }

  override down(): void {
    this.addSql('alter table boxes add column agent_silent boolean not null default false;');
  }
}
