import { EventEmitter } from 'node:events';
import { randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  GRID_MESSAGES,
  type EngageResponse,
  type MatchExpiredPayload,
  type MatchProposal,
  type QueueInfo,
} from '../contracts/index.ts';
import type { AttackService } from '../attacks/service.ts';
import type { BoxService } from '../boxes/service.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { HttpError, conflict, notFound } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import type { VpnService } from '../vpn/service.ts';

export interface MatchmakingOptions {
  orm: Orm;
  boxes: Pick<BoxService, 'whoCanRunFor'>;
  vpn: Pick<VpnService, 'isConnected'>;
  attacks: Pick<AttackService, 'consent' | 'launch'>;
  logger: Logger;
  /** How long an attack runs: a defender's box must be able to pay for that long. */
  attackSeconds: number;
  /** Whether the player is on the grid (a queued player who left it is taken out). */
  isOnline: (userId: string) => boolean;
  tickMs: number;
  /** How long both players have to engage (the spec's 30 s). */
  proposalMs: number;
  /** After the MMR window reached its cap, how long with nobody eligible before `queue:noMatch`. */
  noMatchAfterMs: number;
  window?: Partial<MmrWindow>;
}

/** The MMR distance a queued player accepts: base + perSecond × seconds waited, at most cap. */
export interface MmrWindow {
  base: number;
  perSecond: number;
  cap: number;
}
export const DEFAULT_WINDOW: MmrWindow = { base: 100, perSecond: 25, cap: 800 };

/** The estimate when no match has been made yet (core-app section 9: default queue estimate 3 s). */
const DEFAULT_ESTIMATE_SECONDS = 3;

export interface MatchmakingEvents {
  /** A proposal for both players. */
  found: [MatchProposal];
  /** A proposal ended without an attack, for one player. */
  expired: [string, MatchExpiredPayload];
  /** Nobody eligible within the widest window for a while: the player left the queue. */
  noMatch: [string, string];
}

/** A queued player as the tick sees them. */
export interface Candidate {
  userId: string;
  mmr: number;
  waitedSeconds: number;
  /** Paired last time with this player: not again in a row. */
  lastOpponentId: string | null;
  /** Whether their box can pay for a whole attack's time, as a defender's must. */
  canDefend: boolean;
}

interface ProposalRow {
  id: string;
  attacker_id: string;
  defender_id: string;
  attacker_handle: string;
  defender_handle: string;
  expires_at: string;
  attacker_engaged: boolean;
  defender_engaged: boolean;
  attacker_joined_at: string;
  defender_joined_at: string;
}

const LOCK_KEY = 'exploit-grid:matchmaking';
/** Proposals one tick makes at most; the rest are made by the next ones. */
const MAX_PROPOSALS_PER_TICK = 500;

/** The opponent of user `u`'s last proposal (whatever became of it): kept on the queue row at join. */
const LAST_OPPONENT = `(
  select case when p.attacker_id = u.id then p.defender_id else p.attacker_id end
    from (select attacker_id, defender_id, created_at from match_proposals where attacker_id = u.id
          union all
          select attacker_id, defender_id, created_at from match_proposals where defender_id = u.id
          order by created_at desc limit 1) p)`;

/**
 * Matchmaking (docs/grid.md): the queue and its proposals live in PostgreSQL; a tick (one API replica at
 * a time, under an advisory lock) pairs eligible players by MMR with a window that widens as they wait,
 * never a blocked pair nor the same pair twice in a row, and expires proposals nobody engaged in time.
 */
export class Matchmaking {
  readonly events = new EventEmitter<MatchmakingEvents>();
  readonly #o: MatchmakingOptions;
  readonly #window: MmrWindow;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | null = null;
  #ticking: Promise<void> | null = null;

  constructor(options: MatchmakingOptions) {
    this.#o = options;
    this.#window = { ...DEFAULT_WINDOW, ...options.window };
    this.#log = options.logger.child({ component: 'matchmaking' });
  }

  #sql() {
    return new Sql(this.#o.orm.em.fork() as EntityManager);
  }

  start(): void {
    this.#timer = setInterval(() => void this.tick(), this.#o.tickMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#ticking;
  }

  // ---- the player's calls ---------------------------------------------------------------

  /** POST /attack/queue/join: queues an eligible player (joining again keeps their place). */
  async join(userId: string): Promise<QueueInfo> {
    const sql = this.#sql();
    const state = await sql.one<{ box_status: string | null; in_attack: boolean; in_proposal: boolean }>(
      `select (select status from boxes where user_id = u.id) as box_status,
              exists (select 1 from attacks where status = 'PENDING' and (attacker_id = u.id or target_id = u.id))
                as in_attack,
              exists (select 1 from match_proposals where state = 'OPEN' and (attacker_id = u.id or defender_id = u.id))
                as in_proposal
         from users u where u.id = ?`,
      [userId],
    );
    if (!state) throw notFound(GRID_MESSAGES.playerNotFound);
    if (state.in_attack) throw conflict(GRID_MESSAGES.busyAttack);
    if (state.in_proposal) throw conflict(GRID_MESSAGES.busyProposal);
    if (state.box_status !== 'RUNNING') throw conflict(GRID_MESSAGES.needBox);
    if (!this.#o.vpn.isConnected(userId)) throw conflict(GRID_MESSAGES.needVpn);
    await sql.run(
      `insert into match_queue (user_id, mmr, last_opponent_id) select u.id, u.mmr, ${LAST_OPPONENT}
         from users u where u.id = ? on conflict do nothing`,
      [userId],
    );
    return this.info(userId);
  }

  /**
   * POST /attack/queue/leave, or the player left the grid: out of the queue, and out of an open
   * proposal, whose other player goes back to the queue (OPPONENT_LEFT) with their place.
   */
  async leave(userId: string): Promise<void> {
    const ended = await this.#sql().transaction(async (tx) => {
      await tx.run('delete from match_queue where user_id = ?', [userId]);
      const proposal = await tx.one<ProposalRow>(
        `update match_proposals set state = 'LEFT', ended_at = now()
          where state = 'OPEN' and (attacker_id = ? or defender_id = ?) returning *`,
        [userId, userId],
      );
      if (!proposal) return null;
      const other = proposal.attacker_id === userId ? proposal.defender_id : proposal.attacker_id;
      const joinedAt =
        proposal.attacker_id === userId ? proposal.defender_joined_at : proposal.attacker_joined_at;
      await tx.run(
        `insert into match_queue (user_id, mmr, joined_at, last_opponent_id)
         select u.id, u.mmr, ?, ${LAST_OPPONENT} from users u where u.id = ? on conflict do nothing`,
        [joinedAt, other],
      );
      return { proposalId: proposal.id, other };
    });
    if (ended)
      this.events.emit('expired', ended.other, { proposalId: ended.proposalId, reason: 'OPPONENT_LEFT' });
  }

  /** Their MMR changed (an attack settled): a queued player is matched by the new one. */
  async refreshMmr(userIds: string[]): Promise<void> {
    await this.#sql().run(
      `update match_queue q set mmr = u.mmr from users u
        where u.id = q.user_id and q.user_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))`,
      [JSON.stringify(userIds)],
    );
  }

  /**
   * The player's open proposal, if any: sent again as `match:found` when they (re)load the grid, so a match
   * found while they were away is not lost.
   */
  async openProposal(userId: string): Promise<MatchProposal | null> {
    const row = await this.#sql().one<{
      id: string;
      attacker_id: string;
      attacker_handle: string;
      defender_id: string;
      defender_handle: string;
      expires_at: Date;
    }>(
      `select p.id, p.attacker_id, a.handle as attacker_handle, p.defender_id, d.handle as defender_handle, p.expires_at
         from match_proposals p
         join users a on a.id = p.attacker_id
         join users d on d.id = p.defender_id
        where p.state = 'OPEN' and p.expires_at > now() and (p.attacker_id = ? or p.defender_id = ?)
        limit 1`,
      [userId, userId],
    );
    if (!row) return null;
    return {
      proposalId: row.id,
      attacker: { id: row.attacker_id, handle: row.attacker_handle },
      defender: { id: row.defender_id, handle: row.defender_handle },
      expiresAt: new Date(row.expires_at).toISOString(),
    };
  }

  /** Place and estimate of a queued player; estimate -1 and position 0 when not queued. */
  async info(userId: string): Promise<QueueInfo> {
    const row = await this.#sql().one<{ position: number; waited: number }>(
      `select (select count(*) from match_queue o where (o.joined_at, o.user_id) < (q.joined_at, q.user_id))::int + 1
                as position,
              extract(epoch from now() - q.joined_at)::float8 as waited
         from match_queue q where q.user_id = ?`,
      [userId],
    );
    if (!row) return { estimateSeconds: -1, position: 0, queued: false };
    return { estimateSeconds: await this.#estimate(row.waited), position: row.position, queued: true };
  }

  /** Median wait of the last 50 matches, less what the player already waited; at least 1 s. */
  async #estimate(waitedSeconds: number): Promise<number> {
    const row = await this.#sql().one<{ median: number | null }>(
      `with recent as (
         select created_at, attacker_joined_at, defender_joined_at from match_proposals
          order by created_at desc limit 50)
       select percentile_cont(0.5) within group (order by w)::float8 as median from (
         select extract(epoch from created_at - attacker_joined_at) as w from recent
         union all select extract(epoch from created_at - defender_joined_at) from recent) waits`,
    );
    if (row?.median == null) return DEFAULT_ESTIMATE_SECONDS;
    return Math.max(1, Math.round(row.median - waitedSeconds));
  }

  /**
   * POST /attack/queue/engage: the caller is ready. The second of the two to engage starts the attack
   * (the AttackService's checks and cost apply); if it cannot start, the proposal ends for both.
   */
  async engage(userId: string, proposalId: string): Promise<EngageResponse> {
    const sql = this.#sql();
    const proposal = await sql.one<ProposalRow>(
      `update match_proposals
          set attacker_engaged = attacker_engaged or attacker_id = ?,
              defender_engaged = defender_engaged or defender_id = ?
        where id = ? and state = 'OPEN' and expires_at > now() and (attacker_id = ? or defender_id = ?)
        returning *`,
      [userId, userId, proposalId, userId, userId],
    );
    if (!proposal) throw notFound(GRID_MESSAGES.proposalNotFound);
    if (!proposal.attacker_engaged || !proposal.defender_engaged)
      return { started: false, attack: null, box: null };
    // Both engaged: exactly one caller moves it on (two engaging at once both see both flags).
    const mine = await sql.run(
      `update match_proposals set state = 'STARTED', ended_at = now() where id = ? and state = 'OPEN'`,
      [proposalId],
    );
    if (!mine) return { started: false, attack: null, box: null };
    try {
      const box = await sql.one<{ id: string }>('select id from boxes where user_id = ?', [
        proposal.defender_id,
      ]);
      if (!box) throw conflict("The defender's box is gone.");
      // Both engaged: the defender's consent (it outlives a start that fails, for a retry).
      this.#o.attacks.consent(proposal.attacker_id, proposal.defender_id);
      const { attack, box: target } = await this.#o.attacks.launch(proposal.attacker_id, box.id, 'MATCH');
      await sql.run('update match_proposals set attack_id = ? where id = ?', [attack.id, proposalId]);
      return { started: true, attack, box: target };
    } catch (err) {
      await sql.run(`update match_proposals set state = 'UNAVAILABLE' where id = ?`, [proposalId]);
      const message = err instanceof HttpError ? err.message : 'The attack could not be started.';
      for (const id of [proposal.attacker_id, proposal.defender_id])
        this.events.emit('expired', id, { proposalId, reason: 'UNAVAILABLE', message });
      throw err;
    }
  }

  /** POST /attack/queue/dismiss: the proposal ends for both; neither stays queued. */
  async dismiss(userId: string, proposalId: string): Promise<void> {
    const proposal = await this.#sql().one<ProposalRow>(
      `update match_proposals set state = 'DISMISSED', ended_at = now()
        where id = ? and state = 'OPEN' and (attacker_id = ? or defender_id = ?) returning *`,
      [proposalId, userId, userId],
    );
    if (!proposal) throw notFound(GRID_MESSAGES.proposalNotFound);
    const other = proposal.attacker_id === userId ? proposal.defender_id : proposal.attacker_id;
    this.events.emit('expired', userId, { proposalId, reason: 'DISMISSED' });
    this.events.emit('expired', other, { proposalId, reason: 'OPPONENT_DISMISSED' });
  }

  // ---- the tick -------------------------------------------------------------------------

  /** One pass: expire proposals, pair who can be paired, let go of who waited in vain. Never overlaps itself. */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick()
      .catch((err: unknown) => this.#log.error({ err }, 'Matchmaking tick failed'))
      .finally(() => (this.#ticking = null));
    return this.#ticking;
  }

  async #tick(): Promise<void> {
    const after: (() => void)[] = [];
    await this.#sql().transaction(async (tx) => {
      const lock = await tx.one<{ locked: boolean }>(
        'select pg_try_advisory_xact_lock(hashtext(?)) as locked',
        [LOCK_KEY],
      );
      if (!lock?.locked) return; // another replica ticks now
      // A crash may lose the last tick's work (proposals no one engaged yet): not worth a disk flush.
      await tx.run('set local synchronous_commit = off');

      const expired = await tx.all<{ id: string; attacker_id: string; defender_id: string }>(
        `update match_proposals set state = 'EXPIRED', ended_at = now()
          where state = 'OPEN' and expires_at <= now() returning id, attacker_id, defender_id`,
      );
      for (const p of expired)
        after.push(() => {
          for (const id of [p.attacker_id, p.defender_id])
            this.events.emit('expired', id, { proposalId: p.id, reason: 'EXPIRED' });
        });

      const queued = await tx.all<{
        user_id: string;
        joined_at: string;
        mmr: number;
        waited: number;
        capped_since: string | null;
        box_running: boolean;
        last_opponent_id: string | null;
      }>(
        `select q.user_id, q.joined_at, q.mmr, extract(epoch from now() - q.joined_at)::float8 as waited,
                q.capped_since, coalesce(b.status = 'RUNNING', false) as box_running, q.last_opponent_id
           from match_queue q left join boxes b on b.user_id = q.user_id`,
      );
      // Players in a running attack wait (they may be attacked while queued).
      const busy = new Set(
        (
          await tx.all<{ attacker_id: string; target_id: string }>(
            `select attacker_id, target_id from attacks where status = 'PENDING'`,
          )
        ).flatMap((a) => [a.attacker_id, a.target_id]),
      );
      // First come, first served (sorted here: cheaper than in the query).
      queued.sort((a, b) => b.waited - a.waited || (a.user_id < b.user_id ? -1 : 1));
      const rowOf = new Map(queued.map((q) => [q.user_id, q]));
      const ready = queued.filter(
        (q) =>
          q.box_running &&
          !busy.has(q.user_id) &&
          this.#o.vpn.isConnected(q.user_id) &&
          this.#o.isOnline(q.user_id),
      );
      // Who can defend: a box that cannot pay for a whole attack would end the match at Engage.
      const defenders = await this.#o.boxes.whoCanRunFor(
        ready.map((q) => q.user_id),
        this.#o.attackSeconds,
      );
      const eligible: Candidate[] = ready.map((q) => ({
        userId: q.user_id,
        mmr: q.mmr,
        waitedSeconds: q.waited,
        lastOpponentId: q.last_opponent_id,
        canDefend: defenders.has(q.user_id),
      }));
      // Blocks between queued players (either direction), read from the queue itself.
      const blocks = eligible.length
        ? await tx.all<{ blocker_id: string; blocked_id: string }>(
            `select b.blocker_id, b.blocked_id from user_blocks b
               join match_queue qa on qa.user_id = b.blocker_id join match_queue qb on qb.user_id = b.blocked_id`,
          )
        : [];
      const blocked = new Set(blocks.map((b) => pairKey(b.blocker_id, b.blocked_id)));
      // A bounded amount of writing per tick: a burst (an API restart with a full queue) drains over a
      // few ticks instead of one long transaction (docs/benchmarks.md).
      const possible = pairPlayers(eligible, this.#window, (a, b) => blocked.has(pairKey(a, b)));
      let pairs = possible.slice(0, MAX_PROPOSALS_PER_TICK);

      if (pairs.length) {
        // Out of the queue; someone who left it meanwhile (leave() does not wait for the tick) is gone,
        // and their partner goes back with their place.
        const taken = new Set(
          (
            await tx.all<{ user_id: string }>(
              `delete from match_queue where user_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))
               returning user_id`,
              [JSON.stringify(pairs.flatMap((p) => [p.attacker.userId, p.defender.userId]))],
            )
          ).map((r) => r.user_id),
        );
        const broken = pairs.filter((p) => !taken.has(p.attacker.userId) || !taken.has(p.defender.userId));
        const back = broken.flatMap((p) => [p.attacker, p.defender]).filter((c) => taken.has(c.userId));
        if (back.length)
          await tx.run(
            `insert into match_queue (user_id, mmr, joined_at, last_opponent_id)
             select user_id, mmr, joined_at, last_opponent_id
               from jsonb_to_recordset(?::jsonb) as b(user_id uuid, mmr int, joined_at timestamptz, last_opponent_id uuid)
             on conflict do nothing`,
            [JSON.stringify(back.map((c) => ({ ...rowOf.get(c.userId)!, user_id: c.userId })))],
          );
        pairs = pairs.filter((p) => !broken.includes(p));
        const created = await tx.all<{
          id: string;
          attacker_id: string;
          defender_id: string;
          expires_at: string;
        }>(
          `insert into match_proposals (attacker_id, defender_id, expires_at, attacker_joined_at, defender_joined_at)
           select attacker_id, defender_id, now() + make_interval(secs => ?), attacker_joined_at, defender_joined_at
             from jsonb_to_recordset(?::jsonb)
               as p(attacker_id uuid, defender_id uuid, attacker_joined_at timestamptz, defender_joined_at timestamptz)
           returning id, attacker_id, defender_id, expires_at`,
          [
            this.#o.proposalMs / 1000,
            JSON.stringify(
              pairs.map((p) => ({
                attacker_id: p.attacker.userId,
                defender_id: p.defender.userId,
                attacker_joined_at: rowOf.get(p.attacker.userId)!.joined_at,
                defender_joined_at: rowOf.get(p.defender.userId)!.joined_at,
              })),
            ),
          ],
        );
        const handles = new Map(
          (
            await tx.all<{ id: string; handle: string }>(
              'select id, handle from users where id in (select value::uuid from jsonb_array_elements_text(?::jsonb))',
              [JSON.stringify(created.flatMap((p) => [p.attacker_id, p.defender_id]))],
            )
          ).map((u) => [u.id, u.handle]),
        );
        for (const p of created) {
          const proposal: MatchProposal = {
            proposalId: p.id,
            attacker: { id: p.attacker_id, handle: handles.get(p.attacker_id) ?? '' },
            defender: { id: p.defender_id, handle: handles.get(p.defender_id) ?? '' },
            expiresAt: new Date(p.expires_at).toISOString(),
          };
          after.push(() => this.events.emit('found', proposal));
        }
      }

      // Whoever had nobody: the window at its cap starts the no-match clock; long enough at the cap, out.
      const paired = new Set(possible.flatMap((p) => [p.attacker.userId, p.defender.userId]));
      const capSeconds = (this.#window.cap - this.#window.base) / this.#window.perSecond;
      const capped = queued.filter((q) => !paired.has(q.user_id) && q.waited >= capSeconds);
      if (capped.length) {
        const ids = JSON.stringify(capped.map((q) => q.user_id));
        await tx.run(
          `update match_queue set capped_since = now()
            where capped_since is null and user_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))`,
          [ids],
        );
        const givenUp = await tx.all<{ user_id: string }>(
          `delete from match_queue
            where user_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))
              and capped_since <= now() - make_interval(secs => ?)
           returning user_id`,
          [ids, this.#o.noMatchAfterMs / 1000],
        );
        for (const g of givenUp)
          after.push(() => this.events.emit('noMatch', g.user_id, GRID_MESSAGES.noMatch));
      }
    });
    for (const emit of after) emit();
  }
}

const pairKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);

/**
 * Pairs queued players (given in the order they joined): each unpaired player in turn takes the closest
 * MMR within their window among the unpaired, skipping blocked pairs, their last opponent and a pair of
 * which neither can defend. The one who waited longer attacks, unless only they can defend; equal waits
 * are settled by a coin flip. O(n log n) for spread-out MMRs:
 * paired players leave a linked list over the MMR order, so a search only walks unpaired neighbours.
 */
export function pairPlayers(
  candidates: Candidate[],
  window: MmrWindow,
  blocked: (a: string, b: string) => boolean,
): { attacker: Candidate; defender: Candidate }[] {
  const n = candidates.length;
  const byMmr = candidates.map((_, i) => i).sort((a, b) => candidates[a]!.mmr - candidates[b]!.mmr);
  const rankOf = new Int32Array(n);
  byMmr.forEach((candidate, rank) => (rankOf[candidate] = rank));
  // Neighbours in MMR order among the unpaired (-1: none).
  const prev = new Int32Array(n).map((_, r) => r - 1);
  const next = new Int32Array(n).map((_, r) => (r + 1 < n ? r + 1 : -1));
  const paired = new Uint8Array(n);
  const unlink = (r: number) => {
    if (prev[r]! >= 0) next[prev[r]!] = next[r]!;
    if (next[r]! >= 0) prev[next[r]!] = prev[r]!;
  };
  const acceptable = (c: Candidate, o: Candidate) =>
    (c.canDefend || o.canDefend) &&
    c.lastOpponentId !== o.userId &&
    o.lastOpponentId !== c.userId &&
    !blocked(c.userId, o.userId);

  const pairs: { attacker: Candidate; defender: Candidate }[] = [];
  for (let i = 0; i < n; i++) {
    if (paired[i]) continue;
    const c = candidates[i]!;
    const reach = Math.min(window.base + window.perSecond * c.waitedSeconds, window.cap);
    const r = rankOf[i]!;
    let down = prev[r]!;
    let up = next[r]!;
    let best = -1;
    // Walk outwards from c's place, nearest first, while someone is still within reach.
    while (down >= 0 || up >= 0) {
      const downGap = down >= 0 ? c.mmr - candidates[byMmr[down]!]!.mmr : Infinity;
      const upGap = up >= 0 ? candidates[byMmr[up]!]!.mmr - c.mmr : Infinity;
      if (Math.min(downGap, upGap) > reach) break;
      const takeDown = downGap <= upGap;
      const r2 = takeDown ? down : up;
      const other = candidates[byMmr[r2]!]!;
      if (acceptable(c, other)) {
        best = r2;
        break;
      }
      if (takeDown) down = prev[down]!;
      else up = next[up]!;
    }
    if (best < 0) continue;
    const j = byMmr[best]!;
    paired[i] = 1;
    paired[j] = 1;
    unlink(r);
    unlink(best);
    const o = candidates[j]!;
    // The one who waited longer attacks, unless only they can defend.
    const cFirst = !c.canDefend
      ? true
      : !o.canDefend
        ? false
        : c.waitedSeconds > o.waitedSeconds || (c.waitedSeconds === o.waitedSeconds && randomInt(2) === 0);
    pairs.push(cFirst ? { attacker: c, defender: o } : { attacker: o, defender: c });
  }
  return pairs;
}
