/**
 * The service checker of a VPN server pod (checks.ts): asks the API for checks with a long poll, makes each
 * connection from the server's arena address on the source port the API chose, renamed by the pod's nftables
 * (map `probes`, entrypoint.sh) to the attacker's VPN address, and posts what came of it. The pod's router
 * witnesses forwarded flows only, so a check is never one of the attacker's flows; the source port is also
 * refused where the router lately saw the attacker use it with the box (set `opened`).
 */
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_ANSWER, httpRequest, tcpExchange } from '../catalogue/transports.ts';
import {
  CHECKS_POLL_MS,
  checkJobSchema,
  checkJobsSchema,
  type CheckJob,
  type CheckOutcome,
} from './checks.ts';

export interface CheckerOptions {
  /** The API's internal Service, e.g. http://exploit-grid-api-internal:8089 */
  apiUrl: string;
  /** This server's name (the API gives it the checks of the sessions it holds). */
  server: string;
  /** This server's address on the arena, where the checks leave from. */
  routerAddress: string;
  /** The pool's hook token (read again for every call: the Secret may change under the pod). */
  token: () => string;
  /** Runs `nft` with these arguments (tests point it elsewhere). */
  nft?: (args: string[]) => Promise<{ ok: boolean; stderr: string }>;
  log?: (message: string) => void;
  /** Checks made at once at most; more wait their turn. */
  maxRunning?: number;
}

/** Errors of the server itself, not of the box's service: the check was not made. */
const NOT_RUN = new Set(['EACCES', 'EPERM', 'EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM']);
/**
 * The source port is in use here: bound by another socket (EADDRINUSE), or the same four ends still in
 * TIME_WAIT (EADDRNOTAVAIL).
 */
const PORT_TAKEN = new Set(['EADDRINUSE', 'EADDRNOTAVAIL']);
/** Jobs waiting here at most; more are checks not made (the server is overloaded). */
const MAX_WAITING = 4096;
/** A job that waited here this long is past the API's patience (its timeout and 5 s): not made. */
const STALE_MS = 5000;

export class VpnChecker {
  readonly #o: Required<Omit<CheckerOptions, 'log'>> & { log: (message: string) => void };
  readonly #waiting: { job: CheckJob; at: number }[] = [];
  #running = 0;
  #stopped = false;
  #poll: AbortController | undefined;
  #loop: Promise<void> | undefined;

  constructor(options: CheckerOptions) {
    this.#o = {
      nft: runNft,
      log: () => undefined,
      // Each holds its answer (up to 256 KiB) until told: 128 stay well inside the pod's memory.
      maxRunning: 128,
      ...options,
      apiUrl: options.apiUrl.replace(/\/+$/, ''),
    };
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#poll?.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      try {
        const jobs = await this.#next();
        failures = 0;
        for (const job of jobs) this.#enqueue(job);
      } catch (error) {
        if (this.#stopped) break;
        failures++;
        // Said once, then every 30th time: an API that is away for a while is not news every 2 s.
        if (failures === 1 || failures % 30 === 0)
          this.#o.log(`asking the API for checks failed (${describe(error)}); trying again`);
        await sleep(2000);
      }
    }
  }

  async #next(): Promise<CheckJob[]> {
    this.#poll = new AbortController();
    const timer = setTimeout(() => this.#poll?.abort(), CHECKS_POLL_MS + 10_000);
    try {
      const response = await fetch(`${this.#o.apiUrl}/internal/vpn/checks/next`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.#o.token()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ server: this.#o.server }),
        signal: this.#poll.signal,
      });
      if (!response.ok) throw new Error(`the API answered ${response.status}`);
      const jobs: CheckJob[] = [];
      for (const raw of checkJobsSchema.parse(await response.json()).jobs) {
        const parsed = checkJobSchema.safeParse(raw);
        if (parsed.success) jobs.push(parsed.data);
        else {
          const id = (raw as { id?: unknown } | null)?.id;
          this.#o.log(`refused a check job: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
          if (typeof id === 'string' && /^[0-9a-f-]{36}$/i.test(id))
            this.#report({
              server: this.#o.server,
              id,
              outcome: 'not-run',
              reason: 'the VPN server refused the job',
            });
        }
      }
      return jobs;
    } finally {
      clearTimeout(timer);
    }
  }

  #enqueue(job: CheckJob): void {
    if (this.#waiting.length >= MAX_WAITING) {
      this.#report({
        server: this.#o.server,
        id: job.id,
        outcome: 'not-run',
        reason: 'the VPN server is overloaded',
      });
      return;
    }
    this.#waiting.push({ job, at: Date.now() });
    this.#drain();
  }

  /** Tells the API, logging what could not be told. */
  #report(outcome: CheckOutcome): void {
    void this.#tell(outcome).catch((error: unknown) =>
      this.#o.log(`check ${outcome.id}: ${describe(error)}`),
    );
  }

  #drain(): void {
    while (this.#running < this.#o.maxRunning && this.#waiting.length > 0) {
      const { job, at } = this.#waiting.shift()!;
      if (Date.now() - at > STALE_MS) {
        this.#report({
          server: this.#o.server,
          id: job.id,
          outcome: 'not-run',
          reason: 'the VPN server was busy',
        });
        continue;
      }
      this.#running++;
      void this.execute(job)
        .then((outcome) => this.#tell(outcome))
        .catch((error: unknown) => this.#o.log(`check ${job.id}: ${describe(error)}`))
        .finally(() => {
          this.#running--;
          this.#drain();
        });
    }
  }

  /** Makes one check's connection and says what came of it (never throws). */
  async execute(job: CheckJob): Promise<CheckOutcome> {
    const { server, routerAddress } = this.#o;
    const base = { server, id: job.id };
    const flow = `${job.speakingAs} . ${job.sourcePort} . ${job.box} . ${job.port}`;
    // One of the attacker's flows with the box on that port lately: the check must not look like it.
    if ((await this.#o.nft(['get', 'element', 'inet', 'eg', 'opened', `{ ${flow} }`])).ok)
      return { ...base, outcome: 'port-taken' };
    const seconds = Math.ceil(job.timeoutMs / 1000) + 5;
    const created = await this.#o.nft([
      'create',
      'element',
      'inet',
      'eg',
      'probes',
      `{ ${job.box} . ${job.port} . ${job.sourcePort} timeout ${seconds}s : ${job.speakingAs} }`,
    ]);
    if (!created.ok) {
      if (/exist/i.test(created.stderr)) return { ...base, outcome: 'port-taken' };
      return {
        ...base,
        outcome: 'not-run',
        reason: `nftables refused the check: ${created.stderr.trim()}`.slice(0, 500),
      };
    }
    const source = { localAddress: routerAddress, localPort: job.sourcePort, timeoutMs: job.timeoutMs };
    try {
      const { request } = job;
      if (request.type === 'http') {
        const answer = await httpRequest(`http://${job.box}:${job.port}${request.path}`, {
          ...source,
          method: request.method,
          ...(request.form ? { form: request.form } : {}),
        });
        return { ...base, outcome: 'answered', status: answer.status, body: clean(answer.body) };
      }
      const said = await tcpExchange(job.box, job.port, {
        ...source,
        send: request.send,
        contains: request.contains,
      });
      return { ...base, outcome: 'answered', body: clean(said) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (PORT_TAKEN.has(code)) return { ...base, outcome: 'port-taken' };
      if (NOT_RUN.has(code)) return { ...base, outcome: 'not-run', reason: describe(error).slice(0, 500) };
      return { ...base, outcome: 'failed', error: describe(error).slice(0, 500) };
    }
  }

  async #tell(outcome: CheckOutcome): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await fetch(`${this.#o.apiUrl}/internal/vpn/checks/result`, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.#o.token()}`, 'content-type': 'application/json' },
          body: JSON.stringify(outcome),
          signal: AbortSignal.timeout(5000),
        });
        // 404: the API no longer waits for it (it gave up, or restarted).
        if (response.ok || response.status === 404) return;
        throw new Error(`the API answered ${response.status}`);
      } catch (error) {
        if (attempt >= 1 || this.#stopped) throw error;
        await sleep(500);
      }
    }
  }
}

/**
 * An answer as the API takes it: at most MAX_ANSWER characters and no NUL (the API refuses those), so that
 * no answer a box gives can keep its check from being judged.
 */
function clean(answer: string): string {
  return answer.slice(0, MAX_ANSWER).replaceAll('\0', '\uFFFD');
}

function runNft(args: string[]): Promise<{ ok: boolean; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.env.NFT ?? 'nft', args, { timeout: 5000 }, (error, _stdout, stderr) =>
      resolve({ ok: !error, stderr: String(stderr || (error ? error.message : '')) }),
    );
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${code && !error.message.includes(code) ? `${code}: ` : ''}${error.message}${cause}`;
  }
  return String(error);
}
