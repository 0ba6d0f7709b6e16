import type { EntityManager } from '@mikro-orm/postgresql';
import type { AgentExecEvent, AgentHeartbeat, AgentReport } from '../contracts/agent.ts';
import { agentTokenHash } from '../boxes/agent-token.ts';
import type { VpnService } from '../vpn/service.ts';
import type { BoxService } from '../boxes/service.ts';
import type { RouterWitness, WitnessedFlow } from '../boxes/witness.ts';
import { Sql } from '../db/sql.ts';
import type { Orm } from '../db/orm.ts';
import { unauthorized } from '../http/errors.ts';
import { KeyedLock } from '../keyed-lock.ts';
import type { Logger } from '../logger.ts';
import type { AttackService } from './service.ts';

/** A heartbeat counts as the agent reporting when its time is this close to ours (a spooled one is not). */
const FRESH_MS = 10_000;
/** How long an agent's event waits for the routers to tell of its flow before it is dropped. */
const WITNESS_WAIT_MS = 6000;
/** Slack for the routers' clock (they tell ages to the second) against the attack's start. */
const WITNESS_SLACK_MS = 1500;
/**
 * A flow counts against a heartbeat that leaves it out when the box sent on it this shortly
 * before the heartbeat came, and it opened this long before (the agent looks every 500 ms and
 * sends every second).
 */
const ACTIVE_RECENT_MS = 2000;
const SETTLED_MS = 5000;
/** Heartbeats in a row that leave out a flow the box talks on before the defender forfeits. */
const MISMATCH_STRIKES = 3;
/** A silence counts only while another box's agent got through this recently (the agents' path works). */
const PATH_RECENT_MS = 10_000;

interface RunningAttack {
  id: string;
  attackerId: string;
  targetId: string;
  boxId: string;
  boxIp: string | null;
  createdAt: number;
}

/** Programs of the attacker waiting for the routers' word, per attack at most (the oldest go). */
const MAX_WAITING = 5000;

interface Waiting {
  event: AgentExecEvent;
  deadline: number;
}

interface Heartbeat {
  event: AgentHeartbeat;
  receivedAt: number;
  fresh: boolean;
}

/**
 * The referee of virtual machines (the Kubernetes runtime; docs/detection.md): only an agent in
 * the box can see inside it, and box root can stop or patch that agent, so its word counts only
 * where the platform's own routers back it.
 *
 * - A program the agent gives to the attacker counts (COMMAND, FOOTHOLD, OWN) only on a flow the
 *   routers carried between that attacker address and port and the box, opened in the attack's
 *   window; it waits a few seconds for the routers' report, then is dropped (without holding up
 *   the others). Heartbeats say which peers still run something (held, evicted, root without an
 *   exec), for such peers only.
 * - The agent must keep reporting: a box whose agent sends no fresh heartbeat for the silence
 *   limit during an attack, while other boxes' agents get through, forfeits the defense.
 * - Its heartbeats must list the box's connections with the attacker (the answer to each report
 *   names the addresses to watch): one that leaves out, heartbeat after heartbeat, a flow the
 *   box keeps sending on as the router sees it forfeits the defense.
 *
 * The owner's own activity never becomes an attack event. A box can only ever write to the
 * attack on itself: the secret names the box.
 */
export class AgentIngest {
  readonly #orm: Orm;
  readonly #boxes: BoxService;
  readonly #vpn: Pick<VpnService, 'addressesOf'>;
  readonly #attacks: AttackService;
  readonly #witness: RouterWitness | null;
  readonly #log: Logger;
  readonly #silenceMs: number;
  readonly #startedAt = Date.now();
  /** Programs of each running attack's attacker that wait for the routers' report of their flow. */
  readonly #waiting = new Map<string, { attack: RunningAttack; items: Waiting[] }>();
  /** Each attack's events are judged one report at a time. */
  readonly #judging = new KeyedLock();
  /** Per attack: flows (`client:port`) that heartbeats in a row left out. */
  readonly #strikes = new Map<string, Map<string, number>>();
  /** When each box's agent last sent a fresh heartbeat (epoch ms). */
  readonly #fresh = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;

  constructor(options: {
    orm: Orm;
    boxes: BoxService;
    /** Whose addresses the agents are told to watch. */
    vpn: Pick<VpnService, 'addressesOf'>;
    attacks: AttackService;
    witness: RouterWitness | null;
    logger: Logger;
    silenceMs: number;
  }) {
    this.#orm = options.orm;
    this.#boxes = options.boxes;
    this.#vpn = options.vpn;
    this.#attacks = options.attacks;
    this.#witness = options.witness;
    this.#log = options.logger.child({ component: 'agent-ingest' });
    this.#silenceMs = options.silenceMs;
    this.#witness?.events.on('report', () => this.#retryAll());
    this.#attacks.events.on('attackEnded', ({ attackId }) => {
      this.#waiting.delete(attackId);
      this.#strikes.delete(attackId);
    });
  }

  /** Watches for silent agents and for events that waited too long, every `tickMs`. */
  run(tickMs: number): void {
    this.#timer = setInterval(() => {
      this.#retryAll();
      this.checkSilence().catch((err: unknown) => this.#log.error({ err }, 'Agent silence check failed'));
    }, tickMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#judging.idle();
  }

  #sql(): Sql {
    return new Sql(this.#orm.em.fork() as EntityManager);
  }

  async report(
    token: string | null,
    report: AgentReport,
  ): Promise<{ lastSeq: number; stored: number; watch: string[] }> {
    if (!token || token.length > 200) throw unauthorized('Unknown box secret.');
    const hash = agentTokenHash(token);
    const now = Date.now();
    const fresh = (e: AgentHeartbeat) => Math.abs(Date.parse(e.time) - now) <= FRESH_MS;
    const stored = await this.#sql().transaction(async (tx) => {
      const box = await tx.one<{ id: string; user_id: string; agent_last_seq: string }>(
        'select id, user_id, agent_last_seq from boxes where agent_token_hash = ? for update',
        [hash],
      );
      if (!box) throw unauthorized('Unknown box secret.');
      const last = Number(box.agent_last_seq);
      const events = report.events.filter((e) => e.seq > last).sort((a, b) => a.seq - b.seq);
      const lastSeq = events.length ? events[events.length - 1]!.seq : last;
      const reporting = events.some((e) => e.kind === 'heartbeat' && fresh(e));
      await tx.run(
        `update boxes set agent_last_seq = ?, agent_seen_at = case when ? then now() else agent_seen_at end
          where id = ?`,
        [lastSeq, reporting, box.id],
      );
      return { boxId: box.id, ownerId: box.user_id, events, lastSeq, reporting };
    });
    if (stored.reporting) this.#fresh.set(stored.boxId, now);
    const attack = await this.#running(stored.boxId);
    if (!attack) {
      const beats = stored.events.filter((e): e is AgentHeartbeat => e.kind === 'heartbeat' && fresh(e));
      const watch = await this.#ownerLogin(stored.ownerId, stored.boxId, beats);
      return { lastSeq: stored.lastSeq, stored: 0, watch };
    }
    const { attacker } = this.#peers(attack);
    const execs = stored.events.filter((e): e is AgentExecEvent => e.kind === 'exec' && attacker.has(e.peer));
    const heartbeats = stored.events.filter((e): e is AgentHeartbeat => e.kind === 'heartbeat');
    await this.#judging.run(attack.id, async () => {
      const waiting = this.#waitingOf(attack);
      waiting.items.push(...execs.map((event) => ({ event, deadline: now + WITNESS_WAIT_MS })));
      if (waiting.items.length > MAX_WAITING) waiting.items.splice(0, waiting.items.length - MAX_WAITING);
      await this.#judgeWaiting(attack.id);
      for (const event of heartbeats)
        await this.#heartbeat(attack, { event, receivedAt: now, fresh: fresh(event) });
    });
    return { lastSeq: stored.lastSeq, stored: execs.length + heartbeats.length, watch: [...attacker] };
  }

  /**
   * Outside attacks, the owner's first ssh login to their box (the dashboard's checklist, docs/onboarding.md):
   * until it is seen, the answer asks the agent to list the box's connections with the owner's VPN addresses,
   * and a fresh heartbeat's connection from one of them to port 22 is that login. Root on the box can forge it, which
   * ticks that one step of the box's owner and nothing else: nothing of an attack reads it.
   */
  async #ownerLogin(ownerId: string, boxId: string, beats: AgentHeartbeat[]): Promise<string[]> {
    if (this.#boxes.ownerSshSeen(ownerId)) return [];
    const peers = beats.flatMap((beat) =>
      beat.connections.filter((c) => c.localPort === 22).map((c) => c.peer),
    );
    try {
      await this.#boxes.noteOwnerSsh(ownerId, boxId, peers);
    } catch (err) {
      this.#log.error({ err, box: boxId }, 'Could not record a first ssh login');
    }
    return this.#boxes.ownerSshSeen(ownerId) ? [] : this.#vpn.addressesOf(ownerId);
  }

  async #running(boxId: string): Promise<RunningAttack | null> {
    const row = await this.#sql().one<{
      id: string;
      attacker_id: string;
      target_id: string;
      ip: string | null;
      created_at: Date;
    }>(
      `select a.id, a.attacker_id, a.target_id, b.ip, a.created_at
         from attacks a join boxes b on b.id = a.box_id
        where a.box_id = ? and a.status = 'PENDING'`,
      [boxId],
    );
    if (!row) return null;
    return {
      id: row.id,
      attackerId: row.attacker_id,
      targetId: row.target_id,
      boxId,
      boxIp: row.ip,
      createdAt: new Date(row.created_at).getTime(),
    };
  }

  /** The attacker's VPN addresses now (none the owner holds too: a reused address is the owner's). */
  #peers(attack: RunningAttack): { attacker: Set<string> } {
    const owner = new Set(this.#vpn.addressesOf(attack.targetId));
    return {
      attacker: new Set(this.#vpn.addressesOf(attack.attackerId).filter((a) => !owner.has(a))),
    };
  }

  #waitingOf(attack: RunningAttack): { attack: RunningAttack; items: Waiting[] } {
    let waiting = this.#waiting.get(attack.id);
    if (!waiting) this.#waiting.set(attack.id, (waiting = { attack, items: [] }));
    return waiting;
  }

  /** The flows the routers saw between the box and the attacker, opened in the attack's window. */
  #flows(attack: RunningAttack): WitnessedFlow[] {
    if (!this.#witness || !attack.boxIp) return [];
    return this.#witness.flows(attack.boxIp).filter((f) => f.openedAt >= attack.createdAt - WITNESS_SLACK_MS);
  }

  #retryAll(): void {
    for (const attackId of this.#waiting.keys())
      void this.#judging
        .run(attackId, () => this.#judgeWaiting(attackId))
        .catch((err: unknown) => this.#log.error({ err, attackId }, 'Could not judge an agent report'));
  }

  /** The waiting programs whose flow the routers saw count now; those whose time is up are dropped. */
  async #judgeWaiting(attackId: string): Promise<void> {
    const waiting = this.#waiting.get(attackId);
    if (!waiting?.items.length) return;
    const { attack, items } = waiting;
    const flows = this.#flows(attack);
    const now = Date.now();
    const later: Waiting[] = [];
    for (const item of items) {
      const { event } = item;
      if (flows.some((f) => f.client === event.peer && f.clientPort === event.peerPort))
        await this.#exec(attack, event);
      else if (now < item.deadline) later.push(item);
      else
        this.#log.warn(
          { attackId, peer: event.peer, peerPort: event.peerPort },
          'An agent gave the attacker a program on a flow no router saw: not counted',
        );
      if (!this.#waiting.has(attackId)) return;
    }
    waiting.items = later;
  }

  async #exec(attack: RunningAttack, event: AgentExecEvent): Promise<void> {
    await this.#attacks.recordCommand(attack.id, {
      key: null,
      time: event.time,
      user: event.user,
      uid: event.uid,
      cwd: event.cwd,
      command: event.command,
      pid: event.pid,
      peer: event.peer,
    });
    // Root is the real uid (a set-user-ID program at its prompt is not root).
    if (event.uid === 0)
      await this.#attacks.recordOwn(attack.id, `Root shell: ${event.command}`.slice(0, 500));
    else
      await this.#attacks.recordFoothold(
        attack.id,
        `User shell as ${event.user}: ${event.command}`.slice(0, 500),
      );
  }

  async #heartbeat(attack: RunningAttack, item: Heartbeat): Promise<void> {
    const { attacker } = this.#peers(attack);
    const flows = this.#flows(attack).filter((f) => attacker.has(f.client));
    // By the connection that made the programs theirs (address and port), not the address alone:
    // what an earlier holder of the address left running is not the attacker's.
    const witnessed = new Set(flows.map((f) => `${f.client}:${f.clientPort}`));
    const held = item.event.sessions.filter((s) => witnessed.has(`${s.peer}:${s.peerPort}`));
    if (held.some((s) => s.uid === 0))
      await this.#attacks.recordOwn(attack.id, 'Root shell: a program of the attacker’s runs as root.');
    else if (held.length) await this.#attacks.recordFoothold(attack.id, 'The attacker holds a shell.');
    else await this.#attacks.recordEviction(attack.id, 'The attacker no longer runs anything on the box.');
    if (item.fresh) await this.#compare(attack, item, flows);
  }

  /**
   * A heartbeat must list every connection the box keeps talking on with the attacker (the
   * router's view); leaving one out MISMATCH_STRIKES times in a row forfeits the defense.
   */
  async #compare(attack: RunningAttack, item: Heartbeat, flows: WitnessedFlow[]): Promise<void> {
    const listed = new Set(item.event.connections.map((c) => `${c.peer}:${c.peerPort}`));
    let strikes = this.#strikes.get(attack.id);
    if (!strikes) this.#strikes.set(attack.id, (strikes = new Map()));
    for (const flow of flows) {
      const key = `${flow.client}:${flow.clientPort}`;
      if (listed.has(key)) {
        strikes.delete(key);
        continue;
      }
      const talking =
        flow.lastActiveAt !== null &&
        flow.lastActiveAt >= item.receivedAt - ACTIVE_RECENT_MS &&
        flow.openedAt <= item.receivedAt - SETTLED_MS;
      if (!talking) continue;
      const count = (strikes.get(key) ?? 0) + 1;
      strikes.set(key, count);
      if (count < MISMATCH_STRIKES) continue;
      this.#log.warn({ attackId: attack.id, flow: key }, 'A box agent hides a connection the router sees');
      await this.#attacks.forfeit(
        attack.id,
        `The box agent's reports leave out a connection from the attacker (port ${flow.clientPort} to ${flow.boxPort}) that the router sees the box use: the defender forfeits.`,
      );
      return;
    }
  }

  /**
   * A running attack whose box's agent sent no fresh heartbeat for the silence limit (counted
   * from the attack's start, or this process's) forfeits, while another box's agent got through
   * lately (else the agents' path is what failed, not the agent).
   */
  async checkSilence(): Promise<void> {
    if (!this.#witness) return;
    const silent = await this.#sql().all<{ attack_id: string; box_id: string }>(
      `select a.id as attack_id, a.box_id
         from attacks a join boxes b on b.id = a.box_id
        where a.status = 'PENDING'
          and greatest(coalesce(b.agent_seen_at, a.created_at), a.created_at, ?::timestamptz)
              < now() - make_interval(secs => ?)`,
      [new Date(this.#startedAt), this.#silenceMs / 1000],
    );
    const now = Date.now();
    for (const s of silent) {
      const pathWorks = [...this.#fresh].some(([box, at]) => box !== s.box_id && at >= now - PATH_RECENT_MS);
      if (!pathWorks) continue;
      this.#log.warn({ attackId: s.attack_id, box: s.box_id }, 'Box agent silent during an attack');
      await this.#attacks.forfeit(
        s.attack_id,
        `The box agent stopped reporting during the attack (${Math.round(this.#silenceMs / 1000)} s): the defender forfeits.`,
      );
    }
  }
}
