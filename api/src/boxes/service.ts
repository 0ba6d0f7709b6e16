import { randomBytes, randomInt } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DEFAULT_LOADOUT_SIZE,
  chooseLoadout,
  loadCatalogue,
  publishedServices,
  type CatalogueEntry,
  type LoadoutSize,
} from '@exploit-grid/operator/catalogue';
import {
  ACCOUNT_BANNED,
  ATTACK_MESSAGES,
  BOX_MESSAGES,
  type Box,
  type BoxRuntime,
  type BoxServiceInfo,
  type BoxStatus,
  type BoxUpdatePayload,
} from '../contracts/index.ts';
import type { BalanceEvents } from '../credits/balance-events.ts';
import { Ledger } from '../credits/ledger.ts';
import type { Notifications } from '../notifications/notifications.ts';
import { isUuid } from '../ids.ts';
import { KeyedLock } from '../keyed-lock.ts';
import type { Sealer } from '../crypto/sealer.ts';
import { Sql, uniqueViolation } from '../db/sql.ts';
import type { Orm } from '../db/orm.ts';
import { HttpError, conflict, forbidden, notFound, serviceUnavailable } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import type { Throttle } from '../auth/throttle.ts';
import { recordFirstBoxLogin } from '../onboarding/milestones.ts';
import { agentTokenHash } from './agent-token.ts';
import type { VpnService } from '../vpn/service.ts';
import type { BoxObservation, BoxOrchestrator, BoxResources, BoxSpec } from './orchestrator.ts';
import { BoxBilling } from './billing.ts';
import { SELECT_BOX, type BoxRow } from './box-row.ts';

export type { BoxRow } from './box-row.ts';

export interface BoxServiceOptions {
  orm: Orm;
  orchestrator: BoxOrchestrator;
  /** Players' VPN access: their clients are part of their box's payload. */
  vpn: VpnService;
  sealer: Sealer;
  logger: Logger;
  resources: BoxResources;
  tickMs: number;
  /** How many ways in and up a new box is given (BOX_LOADOUT_IN, BOX_LOADOUT_UP); 3 and 2 when absent. */
  loadout?: LoadoutSize;
  /** The catalogue loadouts are drawn from (operator/catalogue when absent). */
  catalogue?: CatalogueEntry[];
  basicDailyLimitSeconds: number;
  /** Minutes charged at each power-on, up front, however soon the box stops (BOX_MINIMUM_CHARGE_MINUTES). */
  minimumChargeMinutes: number;
  /** The cooldown of box creation and deletion (boxCooldown, boxChanges); none when absent. */
  throttle?: Throttle;
  /** Told of the balance after each charge of box time, so the player's sidebar follows. */
  balances?: BalanceEvents;
  /** Where the credit alerts go (credits running low, a box stopped for credits or the daily limit). */
  notifications?: Pick<Notifications, 'send'>;
}

export interface BoxServiceEvents {
  boxUpdate: [userId: string, payload: BoxUpdatePayload];
  /** The services a player's box publishes changed (a new box, a reset, a snapshot restored). */
  loadoutChanged: [userId: string];
}

/** A loadout (entry ids) as a statement parameter: its JSON, made a text[] by the database. */
export const LOADOUT_PARAM = 'array(select jsonb_array_elements_text(?::jsonb))';
/**
 * Boxes: the player's calls, and the loop that converges the runtime to the desired state in the
 * database and has box time charged (billing.ts: per minute, the BASIC daily limit).
 */
export class BoxService {
  readonly events = new EventEmitter<BoxServiceEvents>();
  readonly #o: BoxServiceOptions;
  readonly #catalogue: CatalogueEntry[];
  readonly #loadoutSize: LoadoutSize;
  readonly #log: Logger;
  readonly #locks = new KeyedLock();
  readonly #billing: BoxBilling;
  /** Owners whose first ssh login is recorded (see noteOwnerSsh). */
  readonly #loggedIn = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #ticking: Promise<void> | null = null;
  #stopped = false;

  constructor(options: BoxServiceOptions) {
    this.#o = options;
    this.#log = options.logger.child({ component: 'boxes' });
    this.#catalogue = options.catalogue ?? loadCatalogue();
    this.#loadoutSize = options.loadout ?? DEFAULT_LOADOUT_SIZE;
    this.#billing = new BoxBilling(options);
    // A size the catalogue cannot fill is a configuration error: found at start, not at a player's first box.
    chooseLoadout(this.#catalogue, this.#loadoutSize);
    // The box's payload shows the owner's VPN clients.
    options.vpn.events.on('status', (userId) => void this.#publishFor(userId));
    options.orchestrator.events.on('boxChanged', (id) => void this.kick(id));
  }

  #sql(): Sql {
    return new Sql(this.#o.orm.em.fork() as EntityManager);
  }

  /**
   * Whether the platform can see who connects to a box's ssh port (the checklist's first ssh login): the
   * runtime itself (the local runtime reads the boxes' socket tables), or the box agents of a runtime with
   * virtual machines (their heartbeats list the boxes' connections with the owner: `AgentIngest`).
   */
  get seesOwnerSsh(): boolean {
    return this.#o.orchestrator.seesSshClients === true || this.#o.orchestrator.witness !== undefined;
  }

  /** Whether the owner's first ssh login is known to be recorded (by this API process). */
  ownerSshSeen(userId: string): boolean {
    return this.#loggedIn.has(userId);
  }

  /**
   * The owner's first ssh login to their box: something saw one of the owner's VPN addresses hold a connection
   * to the box's port 22 (`peers`: the addresses seen there). Written once per owner (remembered here, so a
   * long session costs one statement per API process).
   */
  async noteOwnerSsh(userId: string, boxId: string, peers: readonly string[]): Promise<void> {
    if (!peers.length || this.#loggedIn.has(userId)) return;
    const owner = new Set(this.#o.vpn.addressesOf(userId));
    if (!peers.some((address) => owner.has(address))) return;
    if (await recordFirstBoxLogin(this.#sql(), userId, new Date()))
      this.#log.info({ userId, box: boxId }, 'First ssh login of a player to their box');
    this.#loggedIn.add(userId);
  }

  /** Starts the convergence loop. */
  async start(): Promise<void> {
    this.#timer = setInterval(() => void this.tick(), this.#o.tickMs);
    this.#timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#ticking;
    await this.#locks.idle();
  }

  // ---- player calls -------------------------------------------------------------------

  async my(userId: string): Promise<Box | null> {
    const row = await this.#sql().one<BoxRow>(`${SELECT_BOX} where b.user_id = ?`, [userId]);
    return row ? this.#toBox(row) : null;
  }

  async create(userId: string, request: { sshPublicKey?: string }): Promise<Box> {
    const sql = this.#sql();
    const user = await sql.one<{ handle: string; banned_at: string | null }>(
      'select handle, banned_at from users where id = ?',
      [userId],
    );
    if (!user) throw notFound('User not found');
    if (user.banned_at) throw forbidden(ACCOUNT_BANNED, 'ACCOUNT_BANNED');
    if (await sql.one('select 1 from boxes where user_id = ?', [userId]))
      throw conflict(BOX_MESSAGES.alreadyHaveBox);
    await this.churn(userId);
    const base = hostnameBase(user.handle);
    const password = randomBytes(12).toString('base64url');
    // The box agent's secret: what it reports is taken as coming from this box.
    const agentToken = randomBytes(32).toString('base64url');
    // The services the box will defend (docs/catalogue.md), installed at its first boot.
    const loadout = chooseLoadout(this.#catalogue, this.#loadoutSize);
    // A taken hostname gets a suffix; a slot taken by a concurrent creation is just retried.
    let suffix = 0;
    for (let attempt = 0; attempt < 20; attempt++) {
      const hostname = suffix === 0 ? base : `${base}-${suffix < 5 ? suffix + 1 : randomInt(100, 10_000)}`;
      try {
        await sql.run(
          `insert into boxes (user_id, slot, hostname, ssh_password_enc, ssh_public_key, agent_token_hash, agent_token_enc, loadout)
           select ?, coalesce((select min(s) from generate_series(0, (select coalesce(max(slot) + 1, 0) from boxes)) s
                               where not exists (select 1 from boxes where slot = s)), 0), ?, ?, ?, ?, ?, ${LOADOUT_PARAM}`,
          [
            userId,
            hostname,
            this.#o.sealer.seal(password),
            request.sshPublicKey ?? null,
            agentTokenHash(agentToken),
            this.#o.sealer.seal(agentToken),
            JSON.stringify(loadout),
          ],
        );
        this.#log.info({ userId, hostname }, 'Box created');
        await this.#takeSpareLoadout(userId);
        this.events.emit('loadoutChanged', userId);
        const box = await this.my(userId);
        if (!box) throw notFound(BOX_MESSAGES.noBox);
        void this.kick(box.id);
        return box;
      } catch (err) {
        const constraint = uniqueViolation(err);
        if (constraint === 'boxes_user_id_key') throw conflict(BOX_MESSAGES.alreadyHaveBox);
        if (constraint === 'boxes_hostname_key') suffix++;
        if (constraint === 'boxes_hostname_key' || constraint === 'boxes_slot_key') continue;
        throw err;
      }
    }
    throw serviceUnavailable('Could not allocate a box. Try again.');
  }

  /**
   * A new box takes the loadout of the runtime's spare at its slot (its first start takes the spare over,
   * booted and installed already: docs/boxes.md, the warm pool). The spare's loadout was drawn the same way
   * as the box's; one that names an entry this catalogue lacks is not taken.
   */
  async #takeSpareLoadout(userId: string): Promise<void> {
    const row = await this.#sql().one<{ id: string; slot: number }>(
      'select id, slot from boxes where user_id = ?',
      [userId],
    );
    if (!row || !this.#o.orchestrator.spareLoadout) return;
    const loadout = await this.#o.orchestrator.spareLoadout(row.slot).catch(() => null);
    const known = new Set(this.#catalogue.map((entry) => entry.id));
    if (!loadout || new Set(loadout).size !== loadout.length || !loadout.every((id) => known.has(id))) return;
    await this.#sql().run(`update boxes set loadout = ${LOADOUT_PARAM} where id = ?`, [
      JSON.stringify(loadout),
      row.id,
    ]);
  }

  async power(userId: string, hostname: string, on: boolean): Promise<Box> {
    const sql = this.#sql();
    const row = await sql.one<BoxRow>(`${SELECT_BOX} where b.user_id = ? and b.hostname = ?`, [
      userId,
      hostname,
    ]);
    if (!row) throw notFound(BOX_MESSAGES.noBox);
    if (on) {
      if (await sql.one('select 1 from users where id = ? and banned_at is not null', [userId]))
        throw forbidden(ACCOUNT_BANNED, 'ACCOUNT_BANNED');
      const runtime = this.#o.orchestrator.status();
      if (!runtime.available) throw serviceUnavailable(runtime.reason ?? BOX_MESSAGES.runtimeUnavailable);
      if (
        this.#billing.dailyLimitFor(row.tier) !== null &&
        (await this.#billing.dailyRemaining(sql, row)) <= 0
      )
        throw forbidden(BOX_MESSAGES.dailyLimit, 'DAILY_LIMIT');
      const balances = await Ledger.balances(sql, userId);
      // A start is charged its minimum up front: the owner must be able to pay it.
      const minimum = this.#billing.minimumCharge(row.tier);
      if (!balances || balances.creditsCents + balances.freeCreditsCents < minimum)
        throw new HttpError(402, BOX_MESSAGES.cannotPay, { code: 'INSUFFICIENT_CREDITS' });
      // The ban is checked again in the same statement: a ban committed since the check above wins.
      const powered = await sql.run(
        `update boxes set desired_power = true, last_powered_at = case when desired_power then last_powered_at else now() end,
                status = case when status in ('STOPPED', 'CRASHED') then 'PROVISIONING' else status end,
                status_reason = null, updated_at = now()
          where id = ? and not exists (select 1 from users where id = ? and banned_at is not null)`,
        [row.id, userId],
      );
      if (powered === 0) {
        if (await sql.one('select 1 from users where id = ? and banned_at is not null', [userId]))
          throw forbidden(ACCOUNT_BANNED, 'ACCOUNT_BANNED');
        throw notFound(BOX_MESSAGES.noBox);
      }
    } else {
      // No walking away from a fight: the box of a defender stays up until the attack ends
      // (under the player's attack lock, so an attack starting at the same time is seen).
      const stopped = await sql.transaction(async (tx) => {
        await tx.run('select pg_advisory_xact_lock(hashtext(?))', [`attack-player:${userId}`]);
        return tx.run(
          `update boxes set desired_power = false, status_reason = null, updated_at = now()
            where id = ? and not exists (select 1 from attacks where box_id = boxes.id and status = 'PENDING')`,
          [row.id],
        );
      });
      if (!stopped) throw conflict(ATTACK_MESSAGES.underAttack);
    }
    await this.#publish(row.id);
    void this.kick(row.id);
    // Deleted meanwhile (another tab): said, not answered with null.
    const box = await this.my(userId);
    if (!box) throw notFound(BOX_MESSAGES.noBox);
    return box;
  }

  async delete(userId: string, id: string): Promise<void> {
    if (!isUuid(id)) throw notFound(BOX_MESSAGES.noBox);
    const sql = this.#sql();
    const row = await sql.one<BoxRow>(`${SELECT_BOX} where b.id = ? and b.user_id = ?`, [id, userId]);
    if (!row) throw notFound(BOX_MESSAGES.noBox);
    await this.churn(userId);
    const snapshots = await sql.all<{ id: string }>('select id from box_snapshots where box_id = ?', [id]);
    await this.#locks.run(id, async () => {
      await this.#account(row.id, new Date());
      const deleted = await sql.transaction(async (tx) => {
        await tx.run('select pg_advisory_xact_lock(hashtext(?))', [`attack-player:${userId}`]);
        return tx.run(
          `delete from boxes where id = ?
              and not exists (select 1 from attacks where box_id = boxes.id and status = 'PENDING')`,
          [id],
        );
      });
      if (!deleted) throw conflict(ATTACK_MESSAGES.underAttack);
    });
    this.events.emit('boxUpdate', userId, { ...this.#payloadOf(this.#rowToPayloadBase(row)), deleted: true });
    // The runtime removes it now; the loop also removes anything it holds that the database does not.
    void this.#locks
      .run(id, () => this.#o.orchestrator.deleteBox(id))
      .catch((err: unknown) => this.#log.error({ err, box: id }, 'Box removal failed; the loop will retry'));
    // Its snapshots go with it (a reset keeps them).
    for (const snapshot of snapshots)
      void this.#o.orchestrator
        .deleteSnapshot?.(id, snapshot.id)
        .catch((err: unknown) =>
          this.#log.error({ err, box: id }, 'Could not remove a deleted box’s snapshot'),
        );
    this.#log.info({ userId, box: id }, 'Box deleted');
  }

  /**
   * A fresh start: the box's disk is wiped and it gets a new loadout (never the one it had while another
   * exists), installed at its next first boot; hostname, address and root password stay. It powers off
   * (the loop ends its session as for a stop). Refused while the box is under attack, and counted like a
   * creation (the host prepares a new disk).
   */
  async reset(userId: string, hostname: string): Promise<Box> {
    const row = await this.ownBox(userId, hostname);
    const loadout = chooseLoadout(this.#catalogue, this.#loadoutSize, { previous: row.loadout });
    return this.rebuild(userId, row, {
      loadout,
      reason: BOX_MESSAGES.reset,
      failure: BOX_MESSAGES.resetFailed,
      // Its disk goes now; the next start provisions a new one with the new loadout.
      disk: () => this.#o.orchestrator.deleteBox(row.id),
      done: 'Box reset to a fresh loadout',
    });
  }

  /** The caller's box by hostname (404 for anyone else's: its existence is not theirs to know). */
  async ownBox(userId: string, hostname: string): Promise<BoxRow> {
    const row = await this.#sql().one<BoxRow>(`${SELECT_BOX} where b.user_id = ? and b.hostname = ?`, [
      userId,
      hostname,
    ]);
    if (!row) throw notFound(BOX_MESSAGES.noBox);
    return row;
  }

  /**
   * Gives a box another disk (a reset's fresh one, a snapshot's saved one) with the loadout that comes with
   * it: refused while the box is under attack (no wiping the evidence mid-fight) and counted like a creation
   * (the host prepares a disk). The box powers off (the loop ends its session as for a stop), `disk` has the
   * runtime replace the disk, and where it cannot, the box keeps the loadout it has (what its owner is told
   * stays true) and its power, and the call answers `failure` (503) or the HTTP error `disk` threw.
   */
  async rebuild(
    userId: string,
    row: BoxRow,
    change: {
      loadout: string[];
      reason: string;
      failure: string;
      disk: () => Promise<void>;
      done: string;
    },
  ): Promise<Box> {
    const sql = this.#sql();
    if (await sql.one('select 1 from attacks where box_id = ? and status = ?', [row.id, 'PENDING']))
      throw conflict(ATTACK_MESSAGES.underAttack);
    await this.churn(userId);
    await this.#locks.run(row.id, async () => {
      await this.#account(row.id, new Date());
      const changed = await sql.transaction(async (tx) => {
        await tx.run('select pg_advisory_xact_lock(hashtext(?))', [`attack-player:${userId}`]);
        return tx.run(
          `update boxes set loadout = ${LOADOUT_PARAM}, desired_power = false,
                  status_reason = ?, updated_at = now()
            where id = ? and not exists (select 1 from attacks where box_id = boxes.id and status = 'PENDING')`,
          [JSON.stringify(change.loadout), change.reason, row.id],
        );
      });
      if (!changed) throw conflict(ATTACK_MESSAGES.underAttack);
      try {
        await change.disk();
      } catch (err) {
        // A refused restore (its image gone) must not switch a running box off either.
        await sql.run(
          `update boxes set loadout = ${LOADOUT_PARAM}, desired_power = ?, status_reason = null where id = ?`,
          [JSON.stringify(row.loadout), row.desired_power, row.id],
        );
        if (err instanceof HttpError) throw err;
        this.#log.error({ err, box: row.id }, 'The runtime could not replace a box’s disk');
        throw serviceUnavailable(change.failure);
      }
    });
    this.#log.info({ userId, box: row.id }, change.done);
    this.events.emit('loadoutChanged', userId);
    await this.kick(row.id);
    const box = await this.my(userId);
    if (!box) throw notFound(BOX_MESSAGES.noBox);
    return box;
  }

  /**
   * Creating, resetting or deleting a box, or taking or restoring a snapshot, costs the host a disk to
   * prepare, shift or copy: a cooldown between two, and a budget an hour (429 with Retry-After). Counted
   * only for calls that would go through.
   */
  async churn(userId: string): Promise<void> {
    await this.#o.throttle?.consume(['boxCooldown', userId], ['boxChanges', userId]);
  }

  /**
   * A staff ban or unban of this user (staff CLI, through the database's notification): the revocation
   * list goes to the runtime, which cuts live tunnels of revoked certificates at once, and the box
   * converges (the CLI already told it to power off).
   */
  async banChanged(userId: string): Promise<void> {
    await this.#o.vpn.syncRevocations();
    const box = await this.#sql().one<{ id: string }>('select id from boxes where user_id = ?', [userId]);
    if (box) {
      await this.#publish(box.id);
      await this.kick(box.id);
    }
    this.#log.warn({ userId }, 'Applied a staff ban change');
  }

  runtime(): BoxRuntime {
    const status = this.#o.orchestrator.status();
    return { available: status.available, reason: status.reason, image: status.image };
  }

  // ---- the loop -----------------------------------------------------------------------

  /** One pass over every box (and removal of boxes the runtime holds but nobody owns). */
  tick(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#ticking ??= (async () => {
      try {
        const rows = await this.#sql().all<{ id: string; slot: number }>(
          'select id, slot from boxes order by slot',
        );
        const wanted = new Set(rows.map((r) => r.id));
        // A box whose lock is held (a restore waiting for its runtime, a power change) is converged by
        // whoever holds it: the pass does not wait for it, so one slow box does not hold up the others.
        await Promise.all(rows.filter((r) => !this.#locks.busy(r.id)).map((r) => this.kick(r.id)));
        this.#o.orchestrator.prepareSpares?.(rows.map((r) => r.slot));
        if (this.#o.orchestrator.status().available) {
          for (const id of await this.#o.orchestrator.boxIds()) {
            if (!wanted.has(id)) {
              // Asked again under the box's lock: a box created since the list above was read
              // (and already prepared by the runtime) is wanted, not an orphan.
              await this.#locks.run(id, async () => {
                if (await this.#sql().one('select 1 from boxes where id = ?', [id])) return;
                this.#log.warn({ box: id }, 'Removing a box nobody owns');
                await this.#o.orchestrator.deleteBox(id);
              });
            }
          }
        }
      } catch (err) {
        this.#log.error({ err }, 'Box loop pass failed');
      } finally {
        this.#ticking = null;
      }
    })();
    return this.#ticking;
  }

  /** Converges one box now (after a power change, or from the loop). */
  kick(id: string): Promise<void> {
    // After stop() nothing new starts: the database and runtime are being closed.
    if (this.#stopped) return Promise.resolve();
    return this.#locks
      .run(id, () => this.#converge(id))
      .catch((err: unknown) => this.#log.error({ err, box: id }, 'Box convergence failed'));
  }

  async #converge(id: string): Promise<void> {
    const sql = this.#sql();
    let row = await sql.one<BoxRow>(`${SELECT_BOX} where b.id = ?`, [id]);
    if (!row) return;
    // Only running boxes have time to count (a transaction holding the row): the rest of the
    // boxes cost the loop one read.
    if (row.status === 'RUNNING') {
      await this.#account(id, new Date());
      row = await sql.one<BoxRow>(`${SELECT_BOX} where b.id = ?`, [id]);
      if (!row) return;
    }
    const spec: BoxSpec = {
      id: row.id,
      slot: row.slot,
      hostname: row.hostname,
      ownerId: row.user_id,
      ownerHandle: row.handle,
      power: row.desired_power,
      rootPassword: this.#o.sealer.open(row.ssh_password_enc),
      sshPublicKey: row.ssh_public_key,
      agentToken: row.agent_token_enc ? this.#o.sealer.open(row.agent_token_enc) : null,
      loadout: row.loadout,
      resources: this.#o.resources,
    };
    const seen = await this.#o.orchestrator.applyBox(spec);
    await this.#record(row, seen);
  }

  /** Writes what the runtime reports; starts and ends billing sessions. */
  async #record(row: BoxRow, seen: BoxObservation): Promise<void> {
    await this.noteOwnerSsh(row.user_id, row.id, seen.sshClients ?? []).catch((err: unknown) =>
      this.#log.error({ err, box: row.id }, 'Could not record a first ssh login'),
    );
    let status: BoxStatus = seen.phase;
    let desired = row.desired_power;
    let reason = seen.reason;
    if (seen.phase === 'CRASHED' || seen.poweredOffInside) desired = false;
    if (!row.desired_power && seen.phase === 'STOPPED' && row.status === 'CRASHED') {
      status = 'CRASHED';
      reason = row.status_reason;
    }
    if (!row.desired_power && seen.phase === 'STOPPED' && row.status_reason && row.status !== 'CRASHED')
      reason = row.status_reason;
    const running = status === 'RUNNING';
    const changed =
      status !== row.status ||
      desired !== row.desired_power ||
      reason !== row.status_reason ||
      seen.ip !== row.ip ||
      JSON.stringify(seen.openPorts) !== JSON.stringify(row.open_ports ?? {});
    if (!changed && (running ? row.session_started_at !== null : row.session_started_at === null)) return;
    await this.#sql().run(
      `update boxes set status = ?, desired_power = ?, status_reason = ?, ip = ?, open_ports = ?::jsonb,
              session_started_at = case when ? then coalesce(session_started_at, now()) else null end,
              usage_counted_until = case when ? then coalesce(usage_counted_until, now()) else null end,
              session_charged_minutes = case when ? then session_charged_minutes else 0 end,
              updated_at = now()
        where id = ? and desired_power = ?`,
      [
        status,
        desired,
        reason,
        seen.ip,
        JSON.stringify(seen.openPorts),
        running,
        running,
        running,
        row.id,
        row.desired_power,
      ],
    );
    if (running && row.session_started_at === null) await this.#account(row.id, new Date());
    if (status !== row.status)
      this.#log.info({ box: row.id, from: row.status, to: status, reason }, 'Box status changed');
    await this.#publish(row.id);
    if (desired !== row.desired_power) void this.kick(row.id);
  }

  /** Charges the box's time up to `now` (billing.ts); a box stopped for it converges, one charged is shown. */
  async #account(id: string, now: Date): Promise<void> {
    const { stopped, charged } = await this.#billing.account(id, now);
    if (stopped) void this.kick(id);
    // Balances and usage moved: the owner's pages follow (about once a minute per running box).
    // (Not awaited: a failure is logged, never left as an unhandled rejection that ends the process.)
    else if (charged)
      void this.#publish(id).catch((err: unknown) =>
        this.#log.error({ err, box: id }, 'Could not publish the box after a charge'),
      );
  }

  /** Whether a player's running box can pay for `seconds` more box time (billing.ts). */
  canRunFor(userId: string, seconds: number): Promise<boolean> {
    return this.#billing.canRunFor(userId, seconds);
  }

  /** Of these players, those whose running box can pay for `seconds` more box time (billing.ts). */
  whoCanRunFor(userIds: string[], seconds: number): Promise<Set<string>> {
    return this.#billing.whoCanRunFor(userIds, seconds);
  }

  // ---- views --------------------------------------------------------------------------

  async #toBox(row: BoxRow): Promise<Box> {
    const remaining = await this.#billing.dailyRemaining(this.#sql(), row);
    const runtime = this.#o.orchestrator.status();
    return {
      id: row.id,
      hostname: row.hostname,
      ip: row.ip,
      status: row.status,
      ssh_password: this.#o.sealer.open(row.ssh_password_enc),
      accumulatedUsageSeconds: this.#liveUsage(row),
      lastPoweredAt: row.last_powered_at ? new Date(row.last_powered_at).toISOString() : null,
      vpnClients: this.#o.vpn.clientsOf(row.user_id),
      openPorts: row.open_ports ?? {},
      owner: { id: row.user_id, handle: row.handle },
      dailyRemainingSeconds: Number.isFinite(remaining) ? remaining : null,
      statusReason: row.status_reason,
      unavailableReason: runtime.available ? null : runtime.reason,
      services: this.#servicesOf(row),
    };
  }

  /** What the owner is told to keep up: the published services of the box's loadout, never the weaknesses. */
  #servicesOf(row: BoxRow): BoxServiceInfo[] {
    return publishedServices(this.#catalogue, row.loadout);
  }

  /** Usage including the seconds of the running session not yet counted. */
  #liveUsage(row: BoxRow): number {
    const counted = Number(row.accumulated_usage_seconds);
    if (row.status !== 'RUNNING' || !row.usage_counted_until) return counted;
    return (
      counted + Math.max(0, Math.floor((Date.now() - new Date(row.usage_counted_until).getTime()) / 1000))
    );
  }

  #rowToPayloadBase(row: BoxRow): Box {
    return {
      id: row.id,
      hostname: row.hostname,
      ip: row.ip,
      status: row.status,
      ssh_password: '',
      accumulatedUsageSeconds: this.#liveUsage(row),
      lastPoweredAt: row.last_powered_at ? new Date(row.last_powered_at).toISOString() : null,
      vpnClients: this.#o.vpn.clientsOf(row.user_id),
      openPorts: row.open_ports ?? {},
      owner: { id: row.user_id, handle: row.handle },
      dailyRemainingSeconds: null,
      statusReason: row.status_reason,
      unavailableReason: null,
      services: this.#servicesOf(row),
    };
  }

  #payloadOf(box: Box): BoxUpdatePayload {
    return {
      id: box.id,
      hostname: box.hostname,
      status: box.status,
      accumulatedUsageSeconds: box.accumulatedUsageSeconds,
      lastPoweredAt: box.lastPoweredAt,
      vpnIp: box.ip,
      vpnClients: box.vpnClients,
      dailyRemainingSeconds: box.dailyRemainingSeconds,
      statusReason: box.statusReason,
      openPorts: box.openPorts,
    };
  }

  async #publish(id: string): Promise<void> {
    const row = await this.#sql().one<BoxRow>(`${SELECT_BOX} where b.id = ?`, [id]);
    if (row) this.events.emit('boxUpdate', row.user_id, this.#payloadOf(await this.#toBox(row)));
  }

  async #publishFor(userId: string): Promise<void> {
    const box = await this.my(userId).catch(() => null);
    if (box) this.events.emit('boxUpdate', userId, this.#payloadOf(box));
  }

  /** The box update a newly connected socket gets (or null without a box). */
  async currentUpdate(userId: string): Promise<BoxUpdatePayload | null> {
    const box = await this.my(userId);
    return box ? this.#payloadOf(box) : null;
  }
}

/** `alice-box` from a handle: lowercase letters, digits and dashes. */
export function hostnameBase(handle: string): string {
  const cleaned = handle
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 24);
  return `${cleaned || 'operator'}-box`;
}
