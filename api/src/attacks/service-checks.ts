import type { EntityManager } from '@mikro-orm/postgresql';
import {
  checkedServices,
  loadCatalogue,
  type CatalogueEntry,
  type CheckedService,
  type CheckResult,
} from '@exploit-grid/operator/catalogue';
import type { BoxStatus, ServiceState } from '../contracts/index.ts';
import type { BoxOrchestrator } from '../boxes/orchestrator.ts';
import { Sql } from '../db/sql.ts';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import type { AttackService } from './service.ts';

export interface ServiceChecksOptions {
  orm: Orm;
  orchestrator: BoxOrchestrator;
  attacks: AttackService;
  logger: Logger;
  /** How often the target's services are checked during an attack (SERVICE_CHECK_INTERVAL_SECONDS). */
  intervalMs: number;
  /** How long a service may fail its checks without a break before the defender forfeits (SERVICE_GRACE_SECONDS). */
  graceMs: number;
  /**
   * Each attack's checks start at a random moment within this much of the round (default: a quarter of the
   * interval, at most 3 s), so that checks of several attacks do not arrive together.
   */
  staggerMs?: number;
  catalogue?: CatalogueEntry[];
}

/** What the timeline says (both players read it; never the weakness). */
export const SERVICE_CHECK_MESSAGES = {
  down: (s: { name: string; port: number }, detail: string) =>
    `${s.name} (port ${s.port}) failed its check: ${detail}.`,
  up: (s: { name: string; port: number }) => `${s.name} (port ${s.port}) passes its check again.`,
  forfeit: (services: { name: string; port: number }[], seconds: number) =>
    `The defender's services failed their checks for ${seconds} s (${services
      .map((s) => `${s.name}, port ${s.port}`)
      .join('; ')}): the defender forfeits.`,
};

interface RunningRow {
  id: string;
  attacker_id: string;
  target_id: string;
  box_id: string;
  services: ServiceState[];
  loadout: string[];
  box_status: BoxStatus;
}

/**
 * The target's services during every attack (docs/game-rules.md, "Services stay up"): each published
 * service's check, as a client would make it, from the attacker's side of the network (the runtime's
 * `serviceProbe`), every `intervalMs`. Each result is kept on the attack (`services`, and the counts from
 * which `services_up` follows), changes go into the timeline (SERVICE_DOWN, SERVICE_UP) and to both players,
 * and a service that fails without a break for `graceMs` forfeits the defence.
 */
export class ServiceChecks {
  readonly #o: ServiceChecksOptions;
  readonly #log: Logger;
  readonly #catalogue: CatalogueEntry[];
  #timer: NodeJS.Timeout | null = null;
  #round: Promise<void> | null = null;
  #stopped = false;

  constructor(options: ServiceChecksOptions) {
    this.#o = options;
    this.#log = options.logger.child({ component: 'service-checks' });
    this.#catalogue = options.catalogue ?? loadCatalogue();
  }

  /**
   * How long one check waits for an answer: 5 s, less with shorter intervals (never below 1 s; a round
   * still running when the next is due lets that one pass).
   */
  get timeoutMs(): number {
    return Math.min(5000, Math.max(1000, this.#o.intervalMs));
  }

  start(): void {
    if (!this.#o.orchestrator.checkServices) {
      this.#log.info('This box runtime cannot check services from the attacker’s side: none are checked');
      return;
    }
    this.#schedule();
  }

  /**
   * The next round, a quarter of the interval earlier or later at random: rounds at a steady beat would tell
   * a box which connections are the platform's.
   */
  #schedule(): void {
    if (this.#stopped) return;
    const delay = this.#o.intervalMs * (0.75 + Math.random() / 2);
    this.#timer = setTimeout(() => {
      void this.round().finally(() => this.#schedule());
    }, delay);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#round;
  }

  /** Checks the services of every running attack once (a round still running is not doubled). */
  round(): Promise<void> {
    this.#round ??= this.#runRound().finally(() => (this.#round = null));
    return this.#round;
  }

  async #runRound(): Promise<void> {
    let rows: RunningRow[];
    try {
      rows = await this.#sql().all<RunningRow>(
        `select a.id, a.attacker_id, a.target_id, a.box_id, a.services, b.loadout, b.status as box_status
           from attacks a join boxes b on b.id = a.box_id
          where a.status = 'PENDING'`,
      );
    } catch (err) {
      this.#log.error({ err }, 'Could not read the running attacks to check their services');
      return;
    }
    await Promise.all(
      rows.map((row) =>
        this.#check(row).catch((err: unknown) =>
          this.#log.error({ err, attackId: row.id }, 'Could not check the services of an attack'),
        ),
      ),
    );
  }

  async #check(row: RunningRow): Promise<void> {
    const stagger = this.#o.staggerMs ?? Math.min(3000, this.#o.intervalMs / 4);
    if (stagger > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * stagger));
    const services = checkedServices(this.#catalogue, row.loadout);
    // A box that is down is the forfeit rule's business (AttackService). One the runtime shows PROVISIONING
    // is checked all the same: what its services answer decides, not what its init looks like.
    if (services.length === 0 || row.box_status === 'STOPPED' || row.box_status === 'CRASHED') return;
    // No round while the attacker has no VPN address: the box would be checked from nowhere it must serve.
    const results = await this.#o.orchestrator.checkServices?.(
      row.attacker_id,
      row.box_id,
      services.map((s) => s.check),
      this.timeoutMs,
    );
    if (!results || results.length !== services.length) return;
    const now = Date.now();
    const states = this.#next(row.services, services, results, now);
    // Checks the platform could not make count for nobody (their services keep their state).
    const made = results.filter((r) => !r.notRun).length;
    const failed = results.filter((r) => !r.ok && !r.notRun).length;
    const sql = this.#sql();
    const updated = await sql.one<{ id: string }>(
      `update attacks set services = ?::jsonb, service_checks = service_checks + ?,
              service_checks_failed = service_checks_failed + ?
        where id = ? and status = 'PENDING' returning id`,
      [JSON.stringify(states), made, failed, row.id],
    );
    if (!updated) return;
    const before = new Map(row.services.map((s) => [s.port, s]));
    for (const state of states) {
      const was = before.get(state.port)?.up ?? null;
      if (state.up === false && was !== false)
        await this.#o.attacks.addEvent(row.id, 'SERVICE_DOWN', {
          message: SERVICE_CHECK_MESSAGES.down(state, state.detail ?? ''),
          service: state.name,
          port: state.port,
        });
      else if (state.up && was === false)
        await this.#o.attacks.addEvent(row.id, 'SERVICE_UP', {
          message: SERVICE_CHECK_MESSAGES.up(state),
          service: state.name,
          port: state.port,
        });
    }
    this.#o.attacks.events.emit('attackServices', {
      attackId: row.id,
      attackerId: row.attacker_id,
      targetId: row.target_id,
      services: states,
    });
    const beyondGrace = states.filter(
      (s) => s.up === false && s.downSince && now - Date.parse(s.downSince) >= this.#o.graceMs,
    );
    if (beyondGrace.length > 0) {
      this.#log.info(
        { attackId: row.id, ports: beyondGrace.map((s) => s.port) },
        'The defender’s services stayed down past the grace period',
      );
      await this.#o.attacks.forfeit(
        row.id,
        SERVICE_CHECK_MESSAGES.forfeit(beyondGrace, Math.round(this.#o.graceMs / 1000)),
      );
    }
  }

  /**
   * Each service's state after a round. A failure continues the service's time down only when the
   * check before it was a round ago (an API that was stopped for a while saw nothing meanwhile: its
   * first failure starts the count again).
   */
  #next(
    previous: ServiceState[],
    services: CheckedService[],
    results: CheckResult[],
    now: number,
  ): ServiceState[] {
    const before = new Map(previous.map((s) => [s.port, s]));
    const at = new Date(now).toISOString();
    return services.map((service, i) => {
      const result = results[i]!;
      const prior = before.get(service.port);
      if (result.notRun)
        return (
          prior ?? {
            name: service.name,
            port: service.port,
            up: null,
            downSince: null,
            detail: null,
            checkedAt: null,
          }
        );
      const continues =
        prior?.up === false &&
        prior.downSince !== null &&
        prior.checkedAt !== null &&
        now - Date.parse(prior.checkedAt) <= 3 * this.#o.intervalMs;
      return {
        name: service.name,
        port: service.port,
        up: result.ok,
        downSince: result.ok ? null : continues ? prior.downSince : at,
        detail: result.detail,
        checkedAt: at,
      };
    });
  }

  #sql(): Sql {
    return new Sql(this.#o.orm.em.fork() as EntityManager);
  }
}
