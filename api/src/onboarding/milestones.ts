import type { Sql } from '../db/sql.ts';

/**
 * What the platform records the first time it sees a player do it, for the first-hour checklist
 * (docs/onboarding.md). Each is written once: later calls change nothing (and answer false).
 */

/** A VPN server admitted a client of the player (its connect hook): their tunnel was up at `at`. */
export async function recordFirstTunnel(sql: Sql, userId: string, at: Date): Promise<boolean> {
  const changed = await sql.run(
    'update users set first_tunnel_at = ? where id = ? and first_tunnel_at is null',
    [at.toISOString(), userId],
  );
  return changed > 0;
}

/** The box runtime saw the player's VPN address hold a connection to their own box's ssh port. */
export async function recordFirstBoxLogin(sql: Sql, userId: string, at: Date): Promise<boolean> {
  const changed = await sql.run(
    'update users set first_box_login_at = ? where id = ? and first_box_login_at is null',
    [at.toISOString(), userId],
  );
  return changed > 0;
}
