import { Migration } from '@mikro-orm/migrations';

/**
 * The checks of the target's services during an attack (docs/game-rules.md): the last result of each
 * service (`services`), and how many checks ran and failed, from which `services_up` tells whether a
 * defence counts as survived (at least 90% of the checks passed; an attack without checks counts).
 */
export class Migration20261129100000_service_checks extends Migration {
  override up(): void {
    this.addSql(`alter table attacks
        add column services jsonb not null default '[]',
        add column service_checks integer not null default 0,
        add column service_checks_failed integer not null default 0,
        add column services_up boolean generated always as (service_checks_failed * 10 <= service_checks) stored;`);
    this.addSql('alter table attack_events drop constraint attack_events_type_check;');
    this.addSql(`
      alter table attack_events add constraint attack_events_type_check check (type in
        ('COMMAND', 'FOOTHOLD', 'OWN', 'EVICTED', 'AGENT_SILENT', 'AGENT_BACK', 'FORFEIT', 'UNRATED', 'BAILED',
         'SERVICE_DOWN', 'SERVICE_UP'));`);
  }

  override down(): void {
    this.addSql("delete from attack_events where type in ('SERVICE_DOWN', 'SERVICE_UP');");
    this.addSql('alter table attack_events drop constraint attack_events_type_check;');
    this.addSql(`
      alter table attack_events add constraint attack_events_type_check check (type in
        ('COMMAND', 'FOOTHOLD', 'OWN', 'EVICTED', 'AGENT_SILENT', 'AGENT_BACK', 'FORFEIT', 'UNRATED', 'BAILED'));`);
    this.addSql(`alter table attacks drop column services_up, drop column services,
        drop column service_checks, drop column service_checks_failed;`);
  }
}
