import { Migration } from '@mikro-orm/migrations';

/**
 * Fair play (docs/game-rules.md): an attack may be unrated (a pair's rated results are capped per
 * day), and its timeline says why it ended when the defender's box went down (FORFEIT), why it
 * moves no MMR (UNRATED) and when the attacker bailed late (BAILED).
 */
export class Migration20261125010000_fair_play extends Migration {
  override up(): void {
    this.addSql('alter table attacks add column rated boolean not null default true;');
    this.addSql('alter table attack_events drop constraint attack_events_type_check;');
    this.addSql(`
      alter table attack_events add constraint attack_events_type_check check (type in
        ('COMMAND', 'FOOTHOLD', 'OWN', 'EVICTED', 'AGENT_SILENT', 'AGENT_BACK', 'FORFEIT', 'UNRATED', 'BAILED'));`);
    // The pair cap counts a pair's rated results of the last day.
    this.addSql(
      `create index attacks_pair_idx on attacks (least(attacker_id, target_id), greatest(attacker_id, target_id), ended_at)
        where rated and winner_id is not null;`,
    );
  }

  override down(): void {
    this.addSql('drop index attacks_pair_idx;');
    this.addSql("delete from attack_events where type in ('FORFEIT', 'UNRATED', 'BAILED');");
    this.addSql('alter table attack_events drop constraint attack_events_type_check;');
    this.addSql(`
      alter table attack_events add constraint attack_events_type_check check (type in
        ('COMMAND', 'FOOTHOLD', 'OWN', 'EVICTED', 'AGENT_SILENT', 'AGENT_BACK'));`);
    this.addSql('alter table attacks drop column rated;');
  }
}
