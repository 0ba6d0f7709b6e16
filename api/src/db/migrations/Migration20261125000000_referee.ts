import { Migration } from '@mikro-orm/migrations';

/**
 * The referee (docs/detection.md): a kill-chain line names the exec it came from, so reading
 * the host's trace again after an API restart stores each command once.
 */
export class Migration20261125000000_referee extends Migration {
  override up(): void {
    this.addSql('alter table attack_command_logs add column exec_key text;');
    this.addSql(
      `create unique index attack_command_logs_exec_key on attack_command_logs (attack_id, exec_key)
        where exec_key is not null;`,
    );
  }

  override down(): void {
    this.addSql('drop index attack_command_logs_exec_key;');
    this.addSql('alter table attack_command_logs drop column exec_key;');
  }
}
