import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AgentExecEvent, AgentReport } from '../contracts/agent.ts';
import type { BoxService } from '../boxes/service.ts';
import { Sql } from '../db/sql.ts';
import type { Orm } from '../db/orm.ts';
import { unauthorized } from '../http/errors.ts';
import type { Logger } from '../logger.ts';
import type { AttackService } from './service.ts';

export const agentTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Turns what a box's agent reports into attack events: a process whose session comes from the
 * running attack's attacker is a COMMAND (and the kill chain's log line), the first non-root one
 * a FOOTHOLD, a root one OWN; heartbeats tell whether the attacker still holds a session. The
 * owner's own activity never becomes an attack event. A box can only ever write to the attack
 * on itself: the secret names the box.
 */
export class AgentIngest {
  readonly #orm: Orm;
  readonly #boxes: BoxService;
  readonly #attacks: AttackService;
  readonly #log: Logger;
  readonly #silenceMs: number;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: {
    orm: Orm;
    boxes: BoxService;
    attacks: AttackService;
    logger: Logger;
    silenceMs: number;
  }) {
    this.#orm = options.orm;
    this.#boxes = options.boxes;
    this.#attacks = options.attacks;
    this.#log = options.logger.child({ component: 'agent-ingest' });
    this.#silenceMs = options.silenceMs;
  }

  /** Watches for silent agents every `tickMs`. */
  run(tickMs: number): void {
    this.#timer = setInterval(() => {
      this.checkSilence().catch((err: unknown) => this.#log.error({ err }, 'Agent silence check failed'));
    }, tickMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  #sql(): Sql {
    return new Sql(this.#orm.em.fork() as EntityManager);
  }

  async report(token: string | null, report: AgentReport): Promise<{ lastSeq: number; stored: number }> {
    if (!token || token.length > 200) throw unauthorized('Unknown box secret.');
    const hash = agentTokenHash(token);
    const sql = this.#sql();
    const fresh = await sql.transaction(async (tx) => {
      const box = await tx.one<{
        id: string;
        user_id: string;
        agent_last_seq: string;
        agent_silent: boolean;
      }>(
        'select id, user_id, agent_last_seq, agent_silent from boxes where agent_token_hash = ? for update',
        [hash],
      );
      if (!box) throw unauthorized('Unknown box secret.');
      const last = Number(box.agent_last_seq);
      const events = report.events.filter((e) => e.seq > last).sort((a, b) => a.seq - b.seq);
      const lastSeq = events.length ? events[events.length - 1]!.seq : last;
      await tx.run(
        'update boxes set agent_last_seq = ?, agent_seen_at = now(), agent_silent = false where id = ?',
        [lastSeq, box.id],
      );
      return { box, events, lastSeq, wasSilent: box.agent_silent };
    });
    const attack = await this.#sql().one<{ id: string; attacker_id: string; target_id: string }>(
      `select id, attacker_id, target_id from attacks where box_id = ? and status = 'PENDING'`,
      [fresh.box.id],
    );
    if (attack && fresh.wasSilent)
      await this.#attacks.addEvent(attack.id, 'AGENT_BACK', { message: 'The box agent reports again.' });
    let stored = 0;
    if (attack) {
      const attackerPeers = new Set(this.#boxes.vpnAddressesOf(attack.attacker_id));
      const ownerPeers = new Set(this.#boxes.vpnAddressesOf(attack.target_id));
      const fromAttacker = (peer: string | null) =>
        peer !== null && attackerPeers.has(peer) && !ownerPeers.has(peer);
      // Within a batch (up to 500 events, a storm of commands) the attack's state is written once:
      // the first user shell marks the foothold, the first root shell settles; a heartbeat may
      // change it again (eviction), so it resets what the batch has written.
      let footholdWritten = false;
      let ownWritten = false;
      for (const event of fresh.events) {
        if (event.kind === 'exec') {
          if (!fromAttacker(event.peer)) continue;
          await this.#command(attack.id, event);
          stored++;
          if (event.uid === 0 || event.euid === 0) {
            if (!ownWritten)
              await this.#attacks.recordOwn(attack.id, `Root shell: ${event.command}`.slice(0, 500));
            ownWritten = true;
          } else if (!footholdWritten) {
            await this.#attacks.recordFoothold(
              attack.id,
              `User shell as ${event.user}: ${event.command}`.slice(0, 500),
            );
            footholdWritten = true;
          }
        } else {
          const held = event.sessions.filter((s) => fromAttacker(s.peer));
          if (held.length) await this.#attacks.recordFoothold(attack.id, 'The attacker holds a session.');
          else
            await this.#attacks.recordEviction(
              attack.id,
              'The attacker no longer holds a session on the box.',
            );
          footholdWritten = held.length > 0;
        }
      }
    }
    return { lastSeq: fresh.lastSeq, stored };
  }

  async #command(attackId: string, event: AgentExecEvent): Promise<void> {
    await this.#attacks.recordCommand(attackId, {
      key: null,
      time: event.time,
      user: event.user,
      uid: event.uid,
      cwd: event.cwd,
      command: event.command,
      pid: event.pid,
      peer: event.peer,
    });
  }

  /** A running attack whose box's agent has been silent too long gets an AGENT_SILENT event (once per silence). */
  async checkSilence(): Promise<void> {
    const silent = await this.#sql().all<{ attack_id: string; box_id: string }>(
      `update boxes b set agent_silent = true
         from attacks a
        where a.box_id = b.id and a.status = 'PENDING' and not b.agent_silent
          and coalesce(b.agent_seen_at, a.created_at) < now() - make_interval(secs => ?)
        returning a.id as attack_id, b.id as box_id`,
      [this.#silenceMs / 1000],
    );
    for (const s of silent) {
      this.#log.warn({ attackId: s.attack_id, box: s.box_id }, 'Box agent silent during an attack');
      await this.#attacks.addEvent(s.attack_id, 'AGENT_SILENT', {
        message: `The box agent has not reported for ${Math.round(this.#silenceMs / 1000)} s.`,
      });
    }
  }
}
