/**
 * The service checks of the Kubernetes runtime (operator/src/vpnpool/checks.ts): the API's side of the
 * exchange. A check's transport hands each connection to the VPN server holding the attacker's session as a
 * job, and waits for its outcome: the servers fetch their jobs with a long poll and post what came of each.
 * The source port is chosen here, never one the routers reported the attacker using with that port of the box,
 * and each check's flow is marked in the witness while it lasts so that it never counts as the attacker's.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { CheckNotRun, PROBE_PORTS, type CheckTransports } from '@exploit-grid/operator/catalogue';
import { CHECKS_POLL_MS, type CheckJob, type CheckOutcome } from '@exploit-grid/operator/kubernetes';
import type { FlowRecord } from '../witness.ts';

/** A random port of PROBE_PORTS that is not in `used`, or null when there is none. */
function freePort(used: ReadonlySet<number>): number | null {
  // Mostly the first draw is free; where an attacker used most of them, one of those left.
  for (let i = 0; i < 16; i++) {
    const port = randomInt(PROBE_PORTS.first, PROBE_PORTS.last + 1);
    if (!used.has(port)) return port;
  }
  const free: number[] = [];
  for (let port = PROBE_PORTS.first; port <= PROBE_PORTS.last; port++) if (!used.has(port)) free.push(port);
  return free.length > 0 ? free[randomInt(free.length)]! : null;
}

/** How long after its own timeout a job waits for the server's word before the check is called not made. */
const ANSWER_SLACK_MS = 5000;
/** Attempts with another source port when a server says the port is taken there. */
const PORT_ATTEMPTS = 8;
/** Jobs waiting for a server at most (a server that stopped polling must not grow them without end). */
const MAX_QUEUED = 4096;
/** Jobs handed to one poll at most (what a server takes in one answer: `checkJobsSchema`). */
const MAX_HANDED = 1024;
/**
 * How long after a check ended its flow is still never the attacker's (the referee judges what the routers
 * report a few seconds behind; the local runtime's checks are remembered as long).
 */
const REMEMBER_MS = 15_000;

interface Waiting {
  job: CheckJob;
  resolve: (outcome: CheckOutcome) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  /** The server the job is for, and whether it took it. */
  server: string;
  taken: boolean;
}

export class CheckDispatch {
  /** Jobs not yet taken, per server. */
  readonly #queued = new Map<string, Waiting[]>();
  /** Long polls waiting for work, per server. */
  readonly #polls = new Map<string, Set<(jobs: CheckJob[]) => void>>();
  /** Every job sent and not yet answered, by id. */
  readonly #pending = new Map<string, Waiting>();
  readonly #witness: FlowRecord;
  readonly #pollMs: number;
  readonly #slackMs: number;

  constructor(witness: FlowRecord, options: { pollMs?: number; answerSlackMs?: number } = {}) {
    this.#witness = witness;
    this.#pollMs = options.pollMs ?? CHECKS_POLL_MS;
    this.#slackMs = options.answerSlackMs ?? ANSWER_SLACK_MS;
  }

  /**
   * Transports from `server` to the box at `box`, which sees them come from `speakingAs` (the attacker's
   * VPN address on that server).
   */
  transports(server: string, box: string, speakingAs: string): CheckTransports {
    return {
      http: async (url, init) => {
        const target = new URL(url);
        const outcome = await this.#check(server, {
          box,
          port: Number(target.port) || 80,
          speakingAs,
          timeoutMs: init.timeoutMs,
          request: {
            type: 'http',
            method: init.method,
            path: `${target.pathname}${target.search}`,
            ...(init.form ? { form: init.form } : {}),
          },
        });
        return { status: outcome.status ?? 0, body: outcome.body };
      },
      tcp: async (_address, port, init) =>
        (
          await this.#check(server, {
            box,
            port,
            speakingAs,
            timeoutMs: init.timeoutMs,
            request: { type: 'tcp', send: init.send, contains: init.contains },
          })
        ).body,
    };
  }

  /**
   * One connection, on a source port the server has free (another one while it says it is taken): never one
   * the routers reported the attacker using with that port of the box.
   */
  async #check(
    server: string,
    job: Omit<CheckJob, 'id' | 'sourcePort'>,
  ): Promise<Extract<CheckOutcome, { outcome: 'answered' }>> {
    const used = this.#witness.clientPorts(job.box, job.speakingAs, job.port);
    for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
      const sourcePort = freePort(used);
      if (sourcePort === null) break;
      used.add(sourcePort);
      const flow = { box: job.box, client: job.speakingAs, clientPort: sourcePort, boxPort: job.port };
      this.#witness.ignore(flow, job.timeoutMs + this.#slackMs + REMEMBER_MS);
      const outcome = await this.#send(server, { ...job, id: randomUUID(), sourcePort });
      switch (outcome.outcome) {
        case 'answered':
          return outcome;
        case 'failed':
          throw new Error(outcome.error);
        case 'not-run':
          throw new CheckNotRun(`the VPN server ${server} could not make the check: ${outcome.reason}`);
        case 'port-taken':
          // The attacker's own flow on that port, not yet reported: theirs after all.
          this.#witness.unignore(flow);
          continue;
      }
    }
    throw new CheckNotRun(`the VPN server ${server} had no free source port for the check`);
  }

  #send(server: string, job: CheckJob): Promise<CheckOutcome> {
    return new Promise((resolve, reject) => {
      const queue = this.#queued.get(server) ?? [];
      if (queue.length >= MAX_QUEUED) {
        reject(new CheckNotRun(`the VPN server ${server} is not taking checks`));
        return;
      }
      const waiting: Waiting = {
        job,
        server,
        taken: false,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#drop(waiting);
          reject(
            new CheckNotRun(
              waiting.taken
                ? `the VPN server ${server} did not say what came of the check`
                : `the VPN server ${server} did not ask for the check`,
            ),
          );
        }, job.timeoutMs + this.#slackMs),
      };
      this.#pending.set(job.id, waiting);
      queue.push(waiting);
      this.#queued.set(server, queue);
      this.#hand(server);
    });
  }

  /** A job gone (answered or given up): out of the queue and the pending list. */
  #drop(waiting: Waiting): void {
    clearTimeout(waiting.timer);
    this.#pending.delete(waiting.job.id);
    const queue = this.#queued.get(waiting.server);
    if (!queue) return;
    const index = queue.indexOf(waiting);
    if (index >= 0) queue.splice(index, 1);
    if (queue.length === 0) this.#queued.delete(waiting.server);
  }

  /** Gives the server's queued jobs to one of its waiting polls, if any. */
  #hand(server: string): void {
    const queue = this.#queued.get(server);
    const polls = this.#polls.get(server);
    if (!queue?.length || !polls?.size) return;
    const poll = polls.values().next().value!;
    polls.delete(poll);
    const handed = queue.splice(0, MAX_HANDED);
    if (queue.length === 0) this.#queued.delete(server);
    for (const waiting of handed) waiting.taken = true;
    poll(handed.map((waiting) => waiting.job));
  }

  /**
   * A server's long poll: its jobs at once if it has some, else the first that come within the poll's
   * time, else none. `signal` ends it early (the server hung up).
   */
  next(server: string, signal?: AbortSignal): Promise<CheckJob[]> {
    if (signal?.aborted) return Promise.resolve([]);
    return new Promise((resolve) => {
      let polls = this.#polls.get(server);
      if (!polls) this.#polls.set(server, (polls = new Set()));
      const finish = (jobs: CheckJob[]) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', hangUp);
        const set = this.#polls.get(server);
        set?.delete(finish);
        if (set?.size === 0) this.#polls.delete(server);
        resolve(jobs);
      };
      const hangUp = () => finish([]);
      const timer = setTimeout(hangUp, this.#pollMs);
      signal?.addEventListener('abort', hangUp, { once: true });
      polls.add(finish);
      this.#hand(server);
    });
  }

  /** A server's word on a job it took; false when no such job waits for that server. */
  result(outcome: CheckOutcome): boolean {
    const waiting = this.#pending.get(outcome.id);
    if (!waiting || waiting.server !== outcome.server || !waiting.taken) return false;
    this.#drop(waiting);
    waiting.resolve(outcome);
    return true;
  }

  /** Every check waiting is called not made (the runtime closes). */
  close(): void {
    for (const waiting of [...this.#pending.values()]) {
      this.#drop(waiting);
      waiting.reject(new CheckNotRun('the platform is stopping'));
    }
    for (const polls of this.#polls.values()) for (const poll of [...polls]) poll([]);
  }
}
