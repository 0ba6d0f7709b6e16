import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ATTACK_MESSAGES,
  TIER_PERKS,
  type Attack,
  type AttackEndedPayload,
  type AttackEvent,
  type AttackHistoryItem,
  type AttackOutcome,
  type BoxStatus,
  type CommandLog,
  type StartAttackResponse,
  type TargetBox,
  type ServiceState,
  type Tier,
} from '../contracts/index.ts';
import type { VpnService } from '../vpn/service.ts';
import type { BoxService } from '../boxes/service.ts';
import type { BoxOrchestrator } from '../boxes/orchestrator.ts';
import { Ledger } from '../credits/ledger.ts';
import { isUuid } from '../ids.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { Sql, uniqueViolation } from '../db/sql.ts';
import type { Orm } from '../db/orm.ts';
import { HttpError, conflict, forbidden, notFound, serviceUnavailable } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import {
  CONSENT_MS,
  FREE_BAIL_MS,
  RATED_RESULTS_PER_PAIR_PER_DAY,
  attackerScore,
  mmrChange,
  winnerOf,
} from './rating.ts';

interface AttackRow {
  id: string;
  attacker_id: string;
  target_id: string;
  box_id: string | null;
  status: AttackOutcome;
  foothold_at: string | null;
  foothold_held: boolean;
  owned_at: string | null;
  winner_id: string | null;
  loser_id: string | null;
  mmr_change: number | null;
  rated: boolean;
  services: ServiceState[];
  services_up: boolean;
  created_at: string;
  ends_at: string;
  ended_at: string | null;
  attacker_handle: string;
  target_handle: string;
  box_hostname: string | null;
  box_ip: string | null;
  box_status: BoxStatus | null;
  box_open_ports: Record<string, string> | null;
}

const SELECT_ATTACK = `
  select a.*, au.handle as attacker_handle, tu.handle as target_handle,
         b.hostname as box_hostname, b.ip as box_ip, b.status as box_status, b.open_ports as box_open_ports
    from attacks a
    join users au on au.id = a.attacker_id
    join users tu on tu.id = a.target_id
    left join boxes b on b.id = a.box_id`;

const iso = (value: string | null) => (value ? new Date(value).toISOString() : null);

export interface AttackServiceOptions {
  orm: Orm;
  boxes: BoxService;
  /** Both players must hold a tunnel when an attack starts. */
  vpn: Pick<VpnService, 'isConnected'>;
  orchestrator: BoxOrchestrator;
  logger: Logger;
  timeLimitMs: number;
  mmrK: number;
  footholdScore: number;
  tickMs: number;
}

export interface AttackServiceEvents {
  attackStarted: [Attack];
  attackEnded: [AttackEndedPayload & { attackerId: string; targetId: string }];
  /** The target box of a running attack changed (status, address, open ports): for both players. */
  attackBoxUpdated: [{ attackId: string; attackerId: string; targetId: string; box: TargetBox }];
  /** A round of checks of the target's services (service-checks.ts): for both players. */
  attackServices: [{ attackId: string; attackerId: string; targetId: string; services: ServiceState[] }];
}

import type { RecordedCommand } from '../referee/host.ts';

export type { RecordedCommand };

/** How long settlement waits for the referee to catch up at most (a stuck one must not hold attacks open). */
const REFEREE_SETTLE_MS = 5000;

/**
 * The attack lifecycle (DESIGN.md "Game rules"): start (checks, cost, attack window), shells
 * seen by the referee (FOOTHOLD, OWN), cancel, and settlement at the time limit — each attack
 * settled exactly once, with its Elo change, by a conditional update in one transaction.
 */
export class AttackService {
  readonly events = new EventEmitter<AttackServiceEvents>();
  readonly #o: AttackServiceOptions;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | null = null;
  #settling: Promise<void> | null = null;
  #stopped = false;
  /** Consents to attack (`attacker>target` → until, epoch ms); see consent(). */
  readonly #consents = new Map<string, number>();
  readonly #forfeits = new KeyedLock();
  /** Why attacks cannot start (no referee can watch them), or null. */
  refereeProblem: string | null = null;
  /**
   * Waits until the referee has judged everything that happened so far (its verdicts written),
   * before attacks whose time is up are settled: a root shell in the last second still counts.
   */
  refereeSettled: (() => Promise<void>) | null = null;

  /** The target box as last published, by attack (only changes are published). */
  readonly #publishedBoxes = new Map<string, string>();

  /** How long an attack runs before it is settled. */
  get timeLimitMs(): number {
    return this.#o.timeLimitMs;
  }

  constructor(options: AttackServiceOptions) {
    this.#o = options;
    this.#log = options.logger.child({ component: 'attacks' });
    options.boxes.events.on('boxUpdate', (_userId, update) => {
      if (this.#stopped) return;
      // Only what the box did: stopped, crashed or gone (a runtime that is unavailable for a moment
      // reports boxes PROVISIONING; that is no forfeit).
      if (update.deleted || update.status === 'STOPPED' || update.status === 'CRASHED') {
        this.#targetDown(update.id, update.deleted ? 'deleted' : update.status).catch((err: unknown) =>
          this.#log.error({ err }, 'Could not end an attack on a box that went down'),
        );
        if (update.deleted) return;
      }
      this.#boxChanged({
        id: update.id,
        hostname: update.hostname,
        ip: update.vpnIp,
        status: update.status,
        openPorts: update.openPorts,
      }).catch((err: unknown) => this.#log.error({ err }, 'Could not publish a target box change'));
    });
    this.events.on('attackEnded', ({ attackId }) => this.#publishedBoxes.delete(attackId));
  }

  /**
   * No winning by walking away: a defender's box that goes down during an attack (shut down
   * from inside, crashed, deleted) forfeits the defense at once.
   */
  async #targetDown(boxId: string, status: string): Promise<void> {
    const attack = await this.#sql().one<{ id: string }>(
      `select id from attacks where box_id = ? and status = 'PENDING'`,
      [boxId],
    );
    if (!attack) return;
    await this.forfeit(
      attack.id,
      `The defender's box went down during the attack (${status.toLowerCase()}): the defender forfeits.`,
    );
  }

  /**
   * The defender forfeits a running attack (their box went down, its agent went silent or hid
   * what the router saw): a win for the attacker at once, with the reason in its timeline.
   * Answers whether this call settled it.
   */
  forfeit(attackId: string, message: string): Promise<boolean> {
    // One at a time per attack, so that two reasons at once write one FORFEIT event.
    return this.#forfeits.run(attackId, async () => {
      const running = await this.#sql().one<{ id: string }>(
        `select id from attacks where id = ? and status = 'PENDING'`,
        [attackId],
      );
      if (!running) return false;
      await this.addEvent(attackId, 'FORFEIT', { message });
      return this.settle(attackId, 'OWNED');
    });
  }

  /** Publishes `attackBoxUpdated` when the box is the target of a running attack and looks different. */
  async #boxChanged(box: TargetBox): Promise<void> {
    const attack = await this.#sql().one<{ id: string; attacker_id: string; target_id: string }>(
      `select id, attacker_id, target_id from attacks where box_id = ? and status = 'PENDING'`,
      [box.id],
    );
    if (!attack) return;
    const json = JSON.stringify(box);
    if (this.#publishedBoxes.get(attack.id) === json) return;
    this.#publishedBoxes.set(attack.id, json);
    this.events.emit('attackBoxUpdated', {
      attackId: attack.id,
      attackerId: attack.attacker_id,
      targetId: attack.target_id,
      box,
    });
  }

  #sql(): Sql {
    return new Sql(this.#o.orm.em.fork() as EntityManager);
  }

  /** Re-opens the windows of attacks still running (the runtime forgets them on restart) and starts the clock. */
  async run(): Promise<void> {
    const running = await this.#sql().all<{ attacker_id: string; box_id: string | null; ends_at: string }>(
      `select attacker_id, box_id, ends_at from attacks where status = 'PENDING' and box_id is not null`,
    );
    for (const a of running)
      await this.#o.orchestrator
        .openAttackWindow(a.attacker_id, a.box_id!, new Date(a.ends_at))
        .catch((err: unknown) => this.#log.error({ err }, 'Could not re-open an attack window'));
    this.#timer = setInterval(() => void this.settleDue(), this.#o.tickMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#settling;
  }

  // ---- start and cancel ---------------------------------------------------------------

  /**
   * Starts an attack on a running box whose owner is on the VPN, with the target's consent
   * (see consent()); refused between players where either blocked the other, and for a target
   * whose box cannot pay for the whole time limit. Past the pair's rated results of the day it
   * runs unrated.
   */
  async launch(
    attackerId: string,
    targetBoxId: string,
    source: 'DIRECT' | 'MATCH' | 'PVP' = 'DIRECT',
  ): Promise<StartAttackResponse> {
    if (!isUuid(targetBoxId)) throw notFound(ATTACK_MESSAGES.targetNotFound);
    if (this.refereeProblem) throw serviceUnavailable(this.refereeProblem);
    const sql = this.#sql();
    const target = await sql.one<{ id: string; user_id: string; status: BoxStatus }>(
      'select id, user_id, status from boxes where id = ?',
      [targetBoxId],
    );
    if (!target) throw notFound(ATTACK_MESSAGES.targetNotFound);
    if (target.user_id === attackerId) throw forbidden(ATTACK_MESSAGES.ownBox);
    const consentKey = `${attackerId}>${target.user_id}`;
    if ((this.#consents.get(consentKey) ?? 0) <= Date.now()) throw forbidden(ATTACK_MESSAGES.noConsent);
    if (target.status !== 'RUNNING') throw conflict(ATTACK_MESSAGES.targetNotRunning);
    if (!this.#o.vpn.isConnected(target.user_id)) throw conflict(ATTACK_MESSAGES.targetOffline);
    const own = await sql.one<{ status: BoxStatus }>('select status from boxes where user_id = ?', [
      attackerId,
    ]);
    if (own?.status !== 'RUNNING') throw conflict(ATTACK_MESSAGES.attackerNoBox);
    if (!this.#o.vpn.isConnected(attackerId)) throw conflict(ATTACK_MESSAGES.attackerNoVpn);
    if (!(await this.#o.boxes.canRunFor(target.user_id, this.#o.timeLimitMs / 1000)))
      throw conflict(ATTACK_MESSAGES.targetCannotPay);

    let attackId: string;
    let rated = true;
    try {
      attackId = await sql.transaction(async (tx) => {
        // Both players, in a fixed order, so two attacks cannot claim either of them at once.
        for (const id of [attackerId, target.user_id].sort())
          await tx.run('select pg_advisory_xact_lock(hashtext(?))', [`attack-player:${id}`]);
        const busy = await tx.all<{ attacker_id: string; target_id: string }>(
          `select attacker_id, target_id from attacks
            where status = 'PENDING' and (attacker_id in (?, ?) or target_id in (?, ?))`,
          [attackerId, target.user_id, attackerId, target.user_id],
        );
        if (busy.some((b) => b.attacker_id === attackerId || b.target_id === attackerId))
          throw conflict(ATTACK_MESSAGES.attackerBusy);
        if (busy.length) throw conflict(ATTACK_MESSAGES.targetBusy);
        const blocked = await tx.one(
          `select 1 from user_blocks
            where (blocker_id = ? and blocked_id = ?) or (blocker_id = ? and blocked_id = ?)`,
          [attackerId, target.user_id, target.user_id, attackerId],
        );
        if (blocked) throw conflict(ATTACK_MESSAGES.blocked);
        // A pair's rated results are capped per day (a second account cannot farm MMR).
        const recent = await tx.one<{ n: number }>(
          `select count(*)::int as n from attacks
            where least(attacker_id, target_id) = least(?::uuid, ?::uuid)
              and greatest(attacker_id, target_id) = greatest(?::uuid, ?::uuid)
              and rated and winner_id is not null and ended_at > now() - interval '24 hours'`,
          [attackerId, target.user_id, attackerId, target.user_id],
        );
        rated = (recent?.n ?? 0) < RATED_RESULTS_PER_PAIR_PER_DAY;
        const tier = (await tx.one<{ tier: Tier }>('select tier from users where id = ?', [attackerId]))!
          .tier;
        const cost = TIER_PERKS[tier].attackCost * 100;
        const row = await tx.one<{ id: string }>(
          `insert into attacks (attacker_id, target_id, box_id, source, cost_cents, rated, ends_at)
           values (?, ?, ?, ?, ?, ?, now() + make_interval(secs => ?)) returning id`,
          [attackerId, target.user_id, targetBoxId, source, cost, rated, this.#o.timeLimitMs / 1000],
        );
        if (cost > 0 && !(await Ledger.charge(tx, attackerId, cost, 'ATTACK', `attack:${row!.id}`)))
          throw new HttpError(402, ATTACK_MESSAGES.cannotPay, { code: 'INSUFFICIENT_CREDITS' });
        return row!.id;
      });
    } catch (err) {
      if (uniqueViolation(err) !== null) throw conflict(ATTACK_MESSAGES.attackerBusy);
      throw err;
    }
    this.#consents.delete(consentKey);
    if (!rated)
      await this.addEvent(attackId, 'UNRATED', {
        message: `Unrated: you two have had ${RATED_RESULTS_PER_PAIR_PER_DAY} rated fights in the last 24 hours.`,
      });
    const attack = (await this.get(attackId))!;
    try {
      await this.#o.orchestrator.openAttackWindow(attackerId, targetBoxId, new Date(attack.endsAt));
    } catch (err) {
      // An attack the attacker cannot reach is no attack: it ends at once (CANCELLED: nobody's MMR moves).
      this.#log.error({ err, attackId }, 'Could not open the attack window');
      await this.settle(attackId, 'CANCELLED');
      await this.#refund(attackId, attackerId);
      throw serviceUnavailable('The attack could not be started. Try again in a moment.');
    }
    this.#log.info({ attackId, attackerId, targetId: target.user_id }, 'Attack started');
    this.events.emit('attackStarted', attack);
    return { attack, box: attack.box! };
  }

  /** Gives back what starting the attack cost, exactly as it was paid (free credits as free credits). */
  async #refund(attackId: string, attackerId: string): Promise<void> {
    const sql = this.#sql();
    const paid = await sql.one<{ credits_delta_cents: string; free_credits_delta_cents: string }>(
      `select credits_delta_cents, free_credits_delta_cents from credit_ledger
        where user_id = ? and reason = 'ATTACK' and reference = ?`,
      [attackerId, `attack:${attackId}`],
    );
    if (!paid) return;
    const creditsCents = -Number(paid.credits_delta_cents);
    const freeCreditsCents = -Number(paid.free_credits_delta_cents);
    if (creditsCents + freeCreditsCents > 0)
      await Ledger.grant(
        sql,
        attackerId,
        { creditsCents: creditsCents || undefined, freeCreditsCents: freeCreditsCents || undefined },
        'ADJUSTMENT',
        `refund:attack:${attackId}`,
      );
  }

  /**
   * 'Too Hard For Me': the attacker gives up (CANCELLED); the cost is not refunded. Within the
   * first FREE_BAIL_MS nobody's MMR moves (a mis-click); later it moves like a TIMEOUT loss.
   */
  async cancel(callerId: string, attackId: string): Promise<Attack> {
    const attack = await this.#participantAttack(callerId, attackId);
    if (attack.attacker.id !== callerId) throw forbidden(ATTACK_MESSAGES.notAttacker);
    if (attack.outcome !== 'PENDING') throw conflict(ATTACK_MESSAGES.alreadyEnded);
    const bailed = Date.now() - new Date(attack.createdAt).getTime() > FREE_BAIL_MS;
    if (!(await this.settle(attackId, 'CANCELLED', { bailed }))) throw conflict(ATTACK_MESSAGES.alreadyEnded);
    if (bailed)
      await this.addEvent(attackId, 'BAILED', {
        message: `The attacker bailed after ${Math.round(FREE_BAIL_MS / 1000)} s: the defender wins.`,
      });
    return (await this.get(attackId))!;
  }

  /**
   * The consent an attack needs (an engaged match, an accepted challenge): the attacker may
   * start one attack on the target within CONSENT_MS. Matchmaking and challenges give it and
   * start the attack at once; POST /attack/{boxId} may use it when that start failed.
   */
  consent(attackerId: string, targetId: string): void {
    const now = Date.now();
    for (const [key, until] of this.#consents) if (until <= now) this.#consents.delete(key);
    this.#consents.set(`${attackerId}>${targetId}`, now + CONSENT_MS);
  }

  // ---- shells (from the agent) --------------------------------------------------------

  /** A non-root process of the attacker on the target: the first one marks the foothold. */
  async recordFoothold(attackId: string, message: string): Promise<boolean> {
    const sql = this.#sql();
    const first = await sql.run(
      `update attacks set foothold_at = coalesce(foothold_at, now()), foothold_held = true
        where id = ? and status = 'PENDING' and foothold_at is null`,
      [attackId],
    );
    if (first) await this.addEvent(attackId, 'FOOTHOLD', { message });
    else
      await sql.run(`update attacks set foothold_held = true where id = ? and status = 'PENDING'`, [
        attackId,
      ]);
    return first > 0;
  }

  /** The attacker lost every user-level session on the target. */
  async recordEviction(attackId: string, message: string): Promise<void> {
    const changed = await this.#sql().run(
      `update attacks set foothold_held = false where id = ? and status = 'PENDING' and foothold_held`,
      [attackId],
    );
    if (changed) await this.addEvent(attackId, 'EVICTED', { message });
  }

  /** A root process of the attacker on the target: OWNED, settled at once. */
  async recordOwn(attackId: string, message: string): Promise<boolean> {
    const sql = this.#sql();
    const first = await sql.run(
      `update attacks set owned_at = now(), foothold_at = coalesce(foothold_at, now())
        where id = ? and status = 'PENDING' and owned_at is null`,
      [attackId],
    );
    if (!first) return false;
    await this.addEvent(attackId, 'OWN', { message });
    return this.settle(attackId, 'OWNED');
  }

  /**
   * A program the attacker ran on the target: a line of the kill chain and a COMMAND event.
   * `key` names the exec it came from (the same exec read twice is stored once); answers whether
   * it was new.
   */
  async recordCommand(attackId: string, command: RecordedCommand): Promise<boolean> {
    return (await this.recordCommands(attackId, [command]))[0]!;
  }

  /**
   * Programs the attacker ran, in order, with two statements for them all (a storm of programs
   * is a storm of rows); answers, for each, whether it was new. Nothing is stored once the
   * attack has ended.
   */
  async recordCommands(attackId: string, commands: RecordedCommand[]): Promise<boolean[]> {
    if (commands.length === 0) return [];
    const json = JSON.stringify(
      commands.map((c, n) => ({
        n,
        executed_at: c.time,
        username: c.user,
        cwd: c.cwd,
        command: c.command,
        exec_key: c.key,
        details: {
          message: c.command.slice(0, 500),
          user: c.user,
          uid: c.uid,
          cwd: c.cwd,
          pid: c.pid,
          peer: c.peer,
        },
      })),
    );
    // One statement (one round trip): the programs new to a running attack, the first of each
    // exec told twice, go into the kill chain and the timeline in their order.
    const fresh = await this.#sql().all<{ n: number }>(
      `with input as (
         select * from jsonb_to_recordset(?::jsonb)
           as r(n int, executed_at timestamptz, username text, cwd text, command text, exec_key text, details jsonb)
       ), fresh as (
         select distinct on (coalesce(i.exec_key, i.n::text)) i.* from input i
          where exists (select 1 from attacks where id = ? and status = 'PENDING')
            and (i.exec_key is null or not exists (
              select 1 from attack_command_logs l where l.attack_id = ? and l.exec_key = i.exec_key))
          order by coalesce(i.exec_key, i.n::text), i.n
       ), logs as (
         insert into attack_command_logs (attack_id, executed_at, username, cwd, command, exec_key)
         select ?, executed_at, username, cwd, command, exec_key from fresh order by n
         on conflict (attack_id, exec_key) where exec_key is not null do nothing
       ), events as (
         insert into attack_events (attack_id, type, details)
         select ?, 'COMMAND', details from fresh order by n
       )
       select n from fresh`,
      [json, attackId, attackId, attackId, attackId],
    );
    const stored = new Set(fresh.map((r) => r.n));
    return commands.map((_, n) => stored.has(n));
  }

  async addEvent(
    attackId: string,
    type: AttackEvent['type'],
    details: { message: string } & Record<string, unknown>,
  ) {
    await this.#sql().run('insert into attack_events (attack_id, type, details) values (?, ?, ?::jsonb)', [
      attackId,
      type,
      JSON.stringify(details),
    ]);
  }

  // ---- settlement ---------------------------------------------------------------------

  /** Settles every attack whose time is up: FOOTHOLD if still held, DEFENDED if evicted, else TIMEOUT. */
  settleDue(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#settling ??= (async () => {
      try {
        const anyDue = await this.#sql().one<{ id: string }>(
          `select id from attacks where status = 'PENDING' and ends_at <= now() limit 1`,
        );
        if (!anyDue) return;
        // What the referee has still to say about the time before now (at most a few seconds).
        if (this.refereeSettled) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            this.refereeSettled().catch((err: unknown) =>
              this.#log.warn({ err }, 'The referee could not settle before attacks ended'),
            ),
            new Promise((resolve) => (timer = setTimeout(resolve, REFEREE_SETTLE_MS))),
          ]).finally(() => clearTimeout(timer));
        }
        const due = await this.#sql().all<{ id: string; foothold_at: string | null; foothold_held: boolean }>(
          `select id, foothold_at, foothold_held from attacks where status = 'PENDING' and ends_at <= now()`,
        );
        for (const a of due)
          await this.settle(a.id, a.foothold_held ? 'FOOTHOLD' : a.foothold_at ? 'DEFENDED' : 'TIMEOUT');
      } catch (err) {
        this.#log.error({ err }, 'Attack settlement pass failed');
      } finally {
        this.#settling = null;
      }
    })();
    return this.#settling;
  }

  /**
   * Ends a running attack with `outcome`, once: the conditional update decides which of
   * racing callers settles it; MMR moves in the same transaction. Answers whether this call did it.
   */
  async settle(
    attackId: string,
    outcome: Exclude<AttackOutcome, 'PENDING'>,
    options: { bailed?: boolean } = {},
  ): Promise<boolean> {
    // Racing settlements were seen to deadlock under load (make test, once): the victim's transaction
    // changed nothing, so it is run again; the conditional update still settles the attack once.
    const settled = await retryDeadlock(() => this.#settleRow(attackId, outcome, options));
    if (!settled) return false;
    return this.#afterSettled(attackId, outcome, settled);
  }

  /** The settlement's transaction: null when the attack was settled already. */
  #settleRow(attackId: string, outcome: Exclude<AttackOutcome, 'PENDING'>, options: { bailed?: boolean }) {
    return this.#sql().transaction(async (tx) => {
      const row = await tx.one<{
        attacker_id: string;
        target_id: string;
        box_id: string | null;
        rated: boolean;
        services_up: boolean;
      }>(
        `update attacks set status = ?, ended_at = now() where id = ? and status = 'PENDING'
          returning attacker_id, target_id, box_id, rated, services_up`,
        [outcome, attackId],
      );
      if (!row) return null;
      const mmr = await tx.all<{ id: string; mmr: number }>(
        'select id, mmr from users where id in (?, ?) order by id for update',
        [row.attacker_id, row.target_id],
      );
      const attackerMmr = mmr.find((m) => m.id === row.attacker_id)?.mmr ?? 1000;
      const targetMmr = mmr.find((m) => m.id === row.target_id)?.mmr ?? 1000;
      // A late bail is a loss like a TIMEOUT (the outcome stays CANCELLED); an unrated fight has a
      // winner but moves no MMR and no leaderboard counter.
      const score = options.bailed ? 0 : attackerScore(outcome, this.#o.footholdScore);
      const change =
        score === null || !row.rated ? null : mmrChange(attackerMmr, targetMmr, score, this.#o.mmrK);
      const side = options.bailed ? 'target' : winnerOf(outcome);
      const winner = side === 'attacker' ? row.attacker_id : side === 'target' ? row.target_id : null;
      const loser = side === 'attacker' ? row.target_id : side === 'target' ? row.attacker_id : null;
      // An attack with a winner counts on the leaderboard; a defence counts as won only where the
      // services stayed up (docs/game-rules.md). MMR and counters of both players in one statement:
      // the MMR counts its trigger keeps are locked in one order (no deadlocks).
      if (winner && row.rated)
        await tx.run(
          `update users set mmr = mmr + case when id = ? then ?::int else ?::int end,
                  total_attacks = total_attacks + (id = ?)::int,
                  attacks_won = attacks_won + (id = ? and id = ?)::int,
                  total_defenses = total_defenses + (id = ?)::int,
                  defenses_won = defenses_won + (id = ? and id = ? and ?::boolean)::int,
                  updated_at = now()
            where id in (?, ?)`,
          [
            ...[row.attacker_id, change ?? 0, -(change ?? 0)],
            ...[row.attacker_id, row.attacker_id, winner],
            ...[row.target_id, row.target_id, winner, row.services_up],
            ...[row.attacker_id, row.target_id],
          ],
        );
      await tx.run(
        `update attacks set winner_id = ?, loser_id = ?, mmr_change = ?, attacker_mmr_before = ?, target_mmr_before = ?
          where id = ?`,
        [winner, loser, change, attackerMmr, targetMmr, attackId],
      );
      return { ...row, winner, loser };
    });
  }

  /** The tail of settle(): what follows the committed settlement. */
  async #afterSettled(
    attackId: string,
    outcome: Exclude<AttackOutcome, 'PENDING'>,
    settled: {
      attacker_id: string;
      target_id: string;
      box_id: string | null;
      winner: string | null;
      loser: string | null;
    },
  ): Promise<boolean> {
    if (settled.box_id)
      await this.#o.orchestrator
        .closeAttackWindow(settled.attacker_id, settled.box_id)
        .catch((err: unknown) => this.#log.error({ err, attackId }, 'Could not close the attack window'));
    this.#log.info({ attackId, outcome }, 'Attack settled');
    this.events.emit('attackEnded', {
      attackId,
      result: outcome,
      winnerId: settled.winner,
      loserId: settled.loser,
      attackerId: settled.attacker_id,
      targetId: settled.target_id,
    });
    return true;
  }

  // ---- reading ------------------------------------------------------------------------

  async get(attackId: string): Promise<Attack | null> {
    if (!isUuid(attackId)) return null;
    const row = await this.#sql().one<AttackRow>(`${SELECT_ATTACK} where a.id = ?`, [attackId]);
    return row ? toAttack(row) : null;
  }

  /** The running attack a player takes part in, if any (the box agent's ingestion asks this too). */
  async runningFor(userId: string): Promise<Attack | null> {
    const row = await this.#sql().one<AttackRow>(
      `${SELECT_ATTACK} where a.status = 'PENDING' and (a.attacker_id = ? or a.target_id = ?)`,
      [userId, userId],
    );
    return row ? toAttack(row) : null;
  }

  async running(): Promise<Attack[]> {
    const rows = await this.#sql().all<AttackRow>(
      `${SELECT_ATTACK} where a.status = 'PENDING' order by a.created_at`,
    );
    return rows.map(toAttack);
  }

  /** An attack the caller took part in; anyone else gets 404 (its existence is not theirs to know). */
  async #participantAttack(callerId: string, attackId: string): Promise<Attack> {
    const attack = await this.get(attackId);
    if (!attack || (attack.attacker.id !== callerId && attack.target.id !== callerId))
      throw notFound(ATTACK_MESSAGES.notFound);
    return attack;
  }

  async history(userId: string, limit: number): Promise<AttackHistoryItem[]> {
    const rows = await this.#sql().all<AttackRow>(
      `${SELECT_ATTACK} where a.attacker_id = ? or a.target_id = ? order by a.created_at desc, a.id limit ?`,
      [userId, userId, limit],
    );
    return rows.map((row) => {
      const a = toAttack(row);
      return {
        id: a.id,
        attacker: a.attacker,
        target: a.target,
        outcome: a.outcome,
        rated: a.rated,
        targetIp: row.box_ip,
        services: a.services,
        servicesUp: a.servicesUp,
        createdAt: a.createdAt,
        endedAt: a.endedAt,
      };
    });
  }

  async commandLogs(callerId: string, attackId: string): Promise<CommandLog[]> {
    await this.#participantAttack(callerId, attackId);
    const rows = await this.#sql().all<{
      id: string;
      executed_at: string;
      username: string;
      cwd: string;
      command: string;
    }>('select * from attack_command_logs where attack_id = ? order by executed_at, id limit 5000', [
      attackId,
    ]);
    return rows.map((r) => ({
      id: String(r.id),
      timestamp: new Date(r.executed_at).toISOString(),
      user: r.username,
      cwd: r.cwd,
      command: r.command,
    }));
  }

  async attackEvents(callerId: string, attackId: string): Promise<AttackEvent[]> {
    await this.#participantAttack(callerId, attackId);
    const rows = await this.#sql().all<{
      id: string;
      type: AttackEvent['type'];
      details: AttackEvent['details'];
      created_at: string;
    }>('select * from attack_events where attack_id = ? order by id limit 5000', [attackId]);
    return rows.map((r) => ({
      id: String(r.id),
      type: r.type,
      details: r.details,
      createdAt: new Date(r.created_at).toISOString(),
    }));
  }
}

function toAttack(row: AttackRow): Attack {
  const box: TargetBox | null =
    row.box_id && row.box_hostname
      ? {
          id: row.box_id,
          hostname: row.box_hostname,
          ip: row.box_ip,
          status: row.box_status ?? 'STOPPED',
          openPorts: row.box_open_ports ?? {},
        }
      : null;
  return {
    id: row.id,
    attacker: { id: row.attacker_id, handle: row.attacker_handle },
    target: { id: row.target_id, handle: row.target_handle },
    box,
    outcome: row.status,
    winnerId: row.winner_id,
    loserId: row.loser_id,
    mmrChange: row.mmr_change,
    rated: row.rated,
    services: row.services,
    servicesUp: row.services_up,
    createdAt: iso(row.created_at)!,
    endsAt: iso(row.ends_at)!,
    endedAt: iso(row.ended_at),
  };
}

/** Runs `fn` again (up to three times) when PostgreSQL ended its transaction as a deadlock's victim. */
async function retryDeadlock<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 3 || (err as { code?: string }).code !== '40P01') throw err;
    }
  }
}
