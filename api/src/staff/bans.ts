import type pg from 'pg';
import { StaffError, inTransaction, logStaffAction } from './cli.ts';

/**
 * Bans, written by the staff CLI (a process of its own) and acted on by every running API replica, which
 * LISTENs on this channel: it cuts the account's sockets and VPN tunnels and stops its box at once.
 */
export const BANS_CHANNEL = 'eg_account_bans';

/** The payload of a notification on BANS_CHANNEL. */
export interface BanNotice {
  userId: string;
  banned: boolean;
}

export interface Account {
  id: string;
  handle: string;
  email: string;
  bannedAt: string | null;
  bannedReason: string | null;
}

/** What a staff command changed, for its output and the audit log. */
export interface BanOutcome {
  account: Account;
  /** False when the account already was in that state (the action is still logged). */
  changed: boolean;
  sessionsEnded: number;
  certificatesRevoked: number;
  boxesStopped: number;
}

/** A staff member's action, as `staff_actions` keeps it. */
export interface StaffAction {
  at: string;
  actor: string;
  action: string;
  target: string;
  userId: string | null;
  reason: string | null;
  details: Record<string, unknown>;
}

type Db = Pick<pg.ClientBase, 'query'>;

/** The account with this handle or (when it has an `@`) email address, letter case ignored; null if none. */
export async function findAccount(db: Db, who: string): Promise<Account | null> {
  const column = who.includes('@') ? 'email' : 'handle';
  const { rows } = await db.query<{
    id: string;
    handle: string;
    email: string;
    banned_at: Date | null;
    banned_reason: string | null;
  }>(`select id, handle, email, banned_at, banned_reason from users where ${column} = $1`, [who.trim()]);
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    handle: row.handle,
    email: row.email,
    bannedAt: row.banned_at?.toISOString() ?? null,
    bannedReason: row.banned_reason,
  };
}

/**
 * Bans an account in one transaction: the ban itself, every session ended, its VPN certificates on the
 * revocation list, its box told to power off, the action logged; then every API replica is notified.
 */
export async function banAccount(
  db: Db,
  input: { who: string; reason: string; actor: string },
): Promise<BanOutcome> {
  return inTransaction(db, async () => {
    const account = await lockAccount(db, input.who);
    const changed = account.bannedAt === null;
    if (changed)
      await db.query(
        `update users set banned_at = now(), banned_reason = $2, vpn_revoked_at = coalesce(vpn_revoked_at, now()),
                updated_at = now()
          where id = $1`,
        [account.id, input.reason],
      );
    const sessions = await db.query(
      "update sessions set revoked_at = now(), revoked_reason = 'banned' where user_id = $1 and revoked_at is null",
      [account.id],
    );
    const certificates = await db.query(
      `insert into vpn_revocations (serial_number, user_id)
       select serial_number, user_id from vpn_identities where user_id = $1 on conflict do nothing`,
      [account.id],
    );
    // The box stops even under attack: a ban is staff's call, and the attack settles as a forfeit.
    const boxes = await db.query(
      `update boxes set desired_power = false, status_reason = 'Stopped by staff', updated_at = now()
        where user_id = $1 and desired_power`,
      [account.id],
    );
    const outcome: BanOutcome = {
      account: await lockAccount(db, input.who),
      changed,
      sessionsEnded: sessions.rowCount ?? 0,
      certificatesRevoked: certificates.rowCount ?? 0,
      boxesStopped: boxes.rowCount ?? 0,
    };
    await logAction(db, { ...input, action: 'BAN', account, outcome });
    await notify(db, { userId: account.id, banned: true });
    return outcome;
  });
}

/**
 * Lifts a ban: the account may sign in again and gets a new VPN certificate when it asks for a config (the
 * old ones stay revoked). Its box stays off until its owner starts it.
 */
export async function unbanAccount(
  db: Db,
  input: { who: string; reason: string; actor: string },
): Promise<BanOutcome> {
  return inTransaction(db, async () => {
    const account = await lockAccount(db, input.who);
    const changed = account.bannedAt !== null;
    if (changed) {
      await db.query(
        `update users set banned_at = null, banned_reason = null, vpn_revoked_at = null, updated_at = now()
          where id = $1`,
        [account.id],
      );
      await db.query('delete from vpn_identities where user_id = $1', [account.id]);
    }
    const outcome: BanOutcome = {
      account: await lockAccount(db, input.who),
      changed,
      sessionsEnded: 0,
      certificatesRevoked: 0,
      boxesStopped: 0,
    };
    await logAction(db, { ...input, action: 'UNBAN', account, outcome });
    await notify(db, { userId: account.id, banned: false });
    return outcome;
  });
}

/** The latest staff actions, newest first (of one account when `who` is given). */
export async function staffActions(db: Db, options: { who?: string; limit: number }): Promise<StaffAction[]> {
  let userId: string | null = null;
  if (options.who) {
    const account = await findAccount(db, options.who);
    if (!account) throw new StaffError(`No account with the handle or email ${options.who}.`);
    userId = account.id;
  }
  const { rows } = await db.query<{
    at: Date;
    actor: string;
    action: string;
    target: string;
    user_id: string | null;
    reason: string | null;
    details: Record<string, unknown>;
  }>(
    `select at, actor, action, target, user_id, reason, details from staff_actions
      where $1::uuid is null or user_id = $1 order by at desc, id desc limit $2`,
    [userId, options.limit],
  );
  return rows.map((r) => ({
    at: r.at.toISOString(),
    actor: r.actor,
    action: r.action,
    target: r.target,
    userId: r.user_id,
    reason: r.reason,
    details: r.details,
  }));
}

async function lockAccount(db: Db, who: string): Promise<Account> {
  const account = await findAccount(db, who);
  if (!account) throw new StaffError(`No account with the handle or email ${who}.`);
  await db.query('select 1 from users where id = $1 for update', [account.id]);
  return (await findAccount(db, who))!;
}

async function logAction(
  db: Db,
  input: {
    actor: string;
    action: string;
    who: string;
    reason: string;
    account: Account;
    outcome: BanOutcome;
  },
): Promise<void> {
  const { changed, sessionsEnded, certificatesRevoked, boxesStopped } = input.outcome;
  await logStaffAction(db, {
    actor: input.actor,
    action: input.action,
    userId: input.account.id,
    target: input.who,
    reason: input.reason,
    details: { handle: input.account.handle, changed, sessionsEnded, certificatesRevoked, boxesStopped },
  });
}

/** Delivered by PostgreSQL when the transaction commits, to every session LISTENing (the API replicas). */
async function notify(db: Db, notice: BanNotice): Promise<void> {
  await db.query('select pg_notify($1, $2)', [BANS_CHANNEL, JSON.stringify(notice)]);
}
