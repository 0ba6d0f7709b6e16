import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ATTACK_MESSAGES,
  GRID_MESSAGES,
  type Attack,
  type PlayerRef,
  type PvpIncomingPayload,
} from '../contracts/index.ts';
import type { AttackService } from '../attacks/service.ts';
import type { VpnService } from '../vpn/service.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { HttpError, badRequest, conflict, notFound } from '../http/errors.ts';
import type { Blocks } from '../users/blocks.ts';

interface Request {
  requester: PlayerRef & { mmr: number };
  targetId: string;
  expiresAt: Date;
  timer: NodeJS.Timeout;
}

export interface PvpEvents {
  /** To the target: someone challenges them. */
  incoming: [string, PvpIncomingPayload];
  /** To both: the challenge was accepted and the attack runs. */
  accepted: [Attack];
  /** To the requester: the target said no. */
  declined: [string, PlayerRef];
  /** To the requester: the target accepted but the attack could not start. */
  failed: [string, PlayerRef, string];
}

export interface PvpOptions {
  orm: Orm;
  attacks: Pick<AttackService, 'consent' | 'launch' | 'runningFor'>;
  vpn: Pick<VpnService, 'isConnected'>;
  blocks: Pick<Blocks, 'eitherBlocked'>;
  isOnline: (userId: string) => boolean;
  /** How long a challenge stays open (the spec's 30 s prompt). */
  requestMs: number;
}

/**
 * Direct challenges (PVP): open for `requestMs` in this process's memory (a restart drops them; the
 * prompt would have closed by then anyway). Accepting starts the attack with the requester attacking.
 */
export class Pvp {
  readonly events = new EventEmitter<PvpEvents>();
  readonly #o: PvpOptions;
  readonly #requests = new Map<string, Request>();

  constructor(options: PvpOptions) {
    this.#o = options;
  }

  #sql() {
    return new Sql(this.#o.orm.em.fork() as EntityManager);
  }

  async request(requesterId: string, targetId: string): Promise<void> {
    if (requesterId === targetId) throw badRequest(GRID_MESSAGES.pvpSelf);
    if (!this.#o.isOnline(targetId)) throw conflict(GRID_MESSAGES.pvpOffline);
    if (await this.#o.blocks.eitherBlocked(requesterId, targetId)) throw conflict(GRID_MESSAGES.pvpBlocked);
    const key = keyOf(requesterId, targetId);
    if (this.#requests.has(key)) throw conflict(GRID_MESSAGES.pvpPending);
    if (!this.#o.vpn.isConnected(requesterId)) throw conflict(ATTACK_MESSAGES.attackerNoVpn);
    if (await this.#o.attacks.runningFor(requesterId)) throw conflict(ATTACK_MESSAGES.attackerBusy);
    if (await this.#o.attacks.runningFor(targetId)) throw conflict(ATTACK_MESSAGES.targetBusy);
    const requester = await this.#sql().one<PlayerRef & { mmr: number }>(
      'select id, handle, mmr from users where id = ?',
      [requesterId],
    );
    if (!requester) throw notFound(GRID_MESSAGES.playerNotFound);
    if (this.#requests.has(key)) throw conflict(GRID_MESSAGES.pvpPending);
    const expiresAt = new Date(Date.now() + this.#o.requestMs);
    const timer = setTimeout(() => this.#requests.delete(key), this.#o.requestMs);
    timer.unref();
    this.#requests.set(key, { requester, targetId, expiresAt, timer });
    this.events.emit('incoming', targetId, { requester, expiresAt: expiresAt.toISOString() });
  }

  /** The target accepts: the attack starts (its checks and cost apply to the requester). */
  async accept(targetId: string, requesterId: string): Promise<Attack> {
    const request = this.#take(targetId, requesterId);
    const target = await this.#sql().one<{ box_id: string | null; handle: string }>(
      'select (select id from boxes where user_id = u.id) as box_id, handle from users u where u.id = ?',
      [targetId],
    );
    try {
      if (await this.#o.blocks.eitherBlocked(requesterId, targetId)) throw conflict(GRID_MESSAGES.pvpBlocked);
      if (!target?.box_id) throw conflict(ATTACK_MESSAGES.targetNotRunning);
      // Accepting is the target's consent (it outlives a start that fails, for a retry).
      this.#o.attacks.consent(request.requester.id, targetId);
      const { attack } = await this.#o.attacks.launch(request.requester.id, target.box_id, 'PVP');
      this.events.emit('accepted', attack);
      return attack;
    } catch (err) {
      const message = err instanceof HttpError ? err.message : 'The attack could not be started.';
      this.events.emit('failed', requesterId, { id: targetId, handle: target?.handle ?? '' }, message);
      throw err;
    }
  }

  async decline(targetId: string, requesterId: string): Promise<void> {
    this.#take(targetId, requesterId);
    const decliner = await this.#sql().one<PlayerRef>('select id, handle from users where id = ?', [
      targetId,
    ]);
    if (decliner) this.events.emit('declined', requesterId, decliner);
  }

  close(): void {
    for (const r of this.#requests.values()) clearTimeout(r.timer);
    this.#requests.clear();
  }

  #take(targetId: string, requesterId: string): Request {
    const key = keyOf(requesterId, targetId);
    const request = this.#requests.get(key);
    if (!request || request.expiresAt.getTime() <= Date.now()) throw notFound(GRID_MESSAGES.pvpNotFound);
    clearTimeout(request.timer);
    this.#requests.delete(key);
    return request;
  }
}

const keyOf = (requesterId: string, targetId: string) => `${requesterId}>${targetId}`;
