import { Migration } from '@mikro-orm/migrations';

/**
 * The first-hour checklist (docs/onboarding.md): what the platform saw a player do for the first time, where no
 * other table keeps it.
 * - `first_tunnel_at`: the first VPN client of the player a VPN server admitted (its connect hook);
 * - `first_box_login_at`: the first time the runtime saw the player's VPN address hold a connection to their
 *   own box's ssh port;
 * - `onboarding_completed_at`: when the checklist was first complete; from then on it stays complete (a box
 *   deleted later does not bring it back). Players who fought before the checklist existed are past their
 *   first hour: theirs is their first attack.
 */
export class Migration20261127100000_onboarding extends Migration {
  override up(): void {
    this.addSql(`
      alter table users
        add column first_tunnel_at timestamptz,
        add column first_box_login_at timestamptz,
        add column onboarding_completed_at timestamptz;`);
    this.addSql(`
      update users u set onboarding_completed_at = least(
          (select min(created_at) from attacks a where a.attacker_id = u.id),
          (select min(created_at) from attacks a where a.target_id = u.id))
       where exists (select 1 from attacks a where a.attacker_id = u.id or a.target_id = u.id);`);
  }

  override down(): void {
    this.addSql(`
      alter table users
        drop column onboarding_completed_at,
        drop column first_box_login_at,
        drop column first_tunnel_at;`);
  }
}
