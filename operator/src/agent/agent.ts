/**
 * The box agent: watches every process start on the box, works out whose session it belongs to,
 * and reports to the API (`POST /internal/agent/report`) with the box's secret. Events are
 * numbered and written to a spool on disk before they are sent, and only dropped once the API
 * has stored them: an API restart or a network cut loses nothing, and a retry stores nothing
 * twice (the API skips numbers it has).
 *
 * Runs on the box's own Node (Debian's `nodejs`, 18): node built-ins only.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { listPids, peerOf, readProcess, type ProcInfo } from './proc.ts';

export type AgentEvent =
  | {
      kind: 'exec';
      seq: number;
      time: string;
      pid: number;
      ppid: number;
      uid: number;
      user: string;
      cwd: string;
      command: string;
      chain: { pid: number; uid: number; command: string }[];
      peer: string | null;
    }
  | { kind: 'heartbeat'; seq: number; time: string; sessions: { peer: string; uid: number }[] };

type Unnumbered<T> = T extends unknown ? Omit<T, 'seq'> : never;

const MAX_BATCH_EVENTS = 500;
const MAX_BATCH_BYTES = 90_000;
const MAX_COMMAND = 8192;
const MAX_CWD = 4096;

/** Events on disk until the API has them: `spool.jsonl` (numbered events) and `acked` (last stored number). */
export class Spool {
  readonly #dir: string;
  #nextSeq: number;
  #acked: number;

  constructor(dir: string) {
    this.#dir = dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.#acked = Number(this.#read('acked') ?? 0) || 0;
    const last = this.#events().at(-1)?.seq ?? 0;
    this.#nextSeq = Math.max(last, this.#acked) + 1;
  }

  #read(name: string): string | null {
    const file = path.join(this.#dir, name);
    return existsSync(file) ? readFileSync(file, 'utf8') : null;
  }

  #events(): AgentEvent[] {
    const text = this.#read('spool.jsonl') ?? '';
    const events: AgentEvent[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        events.push(JSON.parse(line) as AgentEvent);
      } catch {
        // a line cut by a crash mid-write: the ones before and after are whole
      }
    }
    return events;
  }

  /** Numbers an event and writes it down; answers the numbered event. */
  add(event: Unnumbered<AgentEvent>): AgentEvent {
    const numbered = { ...event, seq: this.#nextSeq++ } as AgentEvent;
    appendFileSync(path.join(this.#dir, 'spool.jsonl'), `${JSON.stringify(numbered)}\n`);
    return numbered;
  }

  /** The oldest events not yet stored by the API, within the batch limits. */
  pending(): AgentEvent[] {
    const batch: AgentEvent[] = [];
    let bytes = 20;
    for (const event of this.#events()) {
      if (event.seq <= this.#acked) continue;
      const size = JSON.stringify(event).length + 1;
      if (batch.length >= MAX_BATCH_EVENTS || (batch.length > 0 && bytes + size > MAX_BATCH_BYTES)) break;
      batch.push(event);
      bytes += size;
    }
    return batch;
  }

  /** The API stored everything up to `seq`: forget it (the spool file is rewritten without it). */
  ack(seq: number): void {
    if (seq <= this.#acked) return;
    this.#acked = seq;
    const rest = this.#events().filter((e) => e.seq > seq);
    const tmp = path.join(this.#dir, 'spool.jsonl.tmp');
    writeFileSync(tmp, rest.map((e) => `${JSON.stringify(e)}\n`).join(''));
    renameSync(tmp, path.join(this.#dir, 'spool.jsonl'));
    writeFileSync(path.join(this.#dir, 'acked'), String(seq));
  }

  get acked(): number {
    return this.#acked;
  }
}

/** uid → user name from the box's /etc/passwd (read again only when the file changed). */
function userNames(passwdFile: string): (uid: number) => string {
  let cachedStamp = '';
  let names = new Map<number, string>();
  return (uid) => {
    const stat = statSync(passwdFile, { throwIfNoEntry: false });
    const stamp = stat ? `${stat.mtimeMs}:${stat.size}:${stat.ino}` : '';
    if (stamp !== cachedStamp) {
      cachedStamp = stamp;
      const text = stat ? readFileSync(passwdFile, 'utf8') : '';
      names = new Map(
        text
          .split('\n')
          .map((line) => line.split(':'))
          .filter((f) => f.length > 2)
          .map((f) => [Number(f[2]), f[0]!] as [number, string]),
      );
    }
    return names.get(uid) ?? String(uid);
  };
}

export interface AgentOptions {
  /** Base URL of the API's internal endpoint, e.g. http://10.66.0.1:8080. */
  apiUrl: string;
  token: string;
  spoolDir: string;
  scanIntervalMs?: number;
  heartbeatIntervalMs?: number;
  proc?: string;
  passwd?: string;
  /** Processes of the agent itself (and anything else to leave out). */
  ignorePids?: Set<number>;
  includeLoopback?: boolean;
  log?: (message: string) => void;
}

/** One agent: a scan loop, a heartbeat, and a sender draining the spool. */
export class Agent {
  readonly spool: Spool;
  readonly #o: Required<Omit<AgentOptions, 'ignorePids'>> & { ignorePids: Set<number> };
  readonly #seen = new Map<number, number>();
  readonly #userName: (uid: number) => string;
  #live = new Map<number, { uid: number; peer: string | null }>();
  #timers: NodeJS.Timeout[] = [];
  #sending = false;
  #stopped = false;

  constructor(options: AgentOptions) {
    this.#o = {
      scanIntervalMs: 200,
      heartbeatIntervalMs: 5000,
      proc: '/proc',
      passwd: '/etc/passwd',
      includeLoopback: false,
      log: () => undefined,
      ...options,
      ignorePids: options.ignorePids ?? new Set([process.pid]),
    };
    this.spool = new Spool(options.spoolDir);
    this.#userName = userNames(this.#o.passwd);
  }

  start(): void {
    // What already runs is the box as it was: noted, not reported.
    this.scan(false);
    this.#timers.push(setInterval(() => this.scan(true), this.#o.scanIntervalMs));
    this.#timers.push(setInterval(() => this.heartbeat(), this.#o.heartbeatIntervalMs));
    this.#timers.push(setInterval(() => void this.flush(), Math.min(1000, this.#o.scanIntervalMs * 2)));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    await this.flush();
  }

  /** Looks at every process; each one not seen before is an exec event (when `report`). */
  scan(report = true): number {
    let found = 0;
    const live = new Map<number, { uid: number; peer: string | null }>();
    const infos = new Map<number, ProcInfo>();
    for (const pid of listPids(this.#o.proc)) {
      if (this.#o.ignorePids.has(pid)) continue;
      const info = readProcess(pid, this.#o.proc);
      if (!info) continue;
      infos.set(pid, info);
      const known = this.#seen.get(pid);
      const peer =
        known === info.startTicks
          ? (this.#live.get(pid)?.peer ?? null)
          : peerOf(pid, { proc: this.#o.proc, includeLoopback: this.#o.includeLoopback });
      live.set(pid, { uid: info.uid, peer });
      if (known === info.startTicks) continue;
      this.#seen.set(pid, info.startTicks);
      if (!report || info.command.startsWith('[')) continue;
      const chain: { pid: number; uid: number; command: string }[] = [];
      for (let p = info.ppid; p > 1 && chain.length < 16;) {
        const parent = infos.get(p) ?? readProcess(p, this.#o.proc);
        if (!parent) break;
        chain.push({ pid: parent.pid, uid: parent.uid, command: parent.command.slice(0, 4096) });
        p = parent.ppid;
      }
      this.spool.add({
        kind: 'exec',
        time: new Date().toISOString(),
        pid: info.pid,
        ppid: info.ppid,
        uid: info.uid,
        user: this.#userName(info.uid).slice(0, 64),
        cwd: info.cwd.slice(0, MAX_CWD),
        command: info.command.slice(0, MAX_COMMAND),
        chain,
        peer,
      });
      found++;
    }
    for (const pid of this.#seen.keys()) if (!live.has(pid)) this.#seen.delete(pid);
    this.#live = live;
    return found;
  }

  /** Who holds sessions right now: each peer with the lowest uid among its processes. */
  heartbeat(): void {
    const sessions = new Map<string, number>();
    for (const { uid, peer } of this.#live.values()) {
      if (peer === null) continue;
      sessions.set(peer, Math.min(uid, sessions.get(peer) ?? uid));
    }
    this.spool.add({
      kind: 'heartbeat',
      time: new Date().toISOString(),
      sessions: [...sessions].slice(0, 256).map(([peer, uid]) => ({ peer, uid })),
    });
  }

  /** Sends what the spool holds, batch by batch, until it is empty or the API does not answer. */
  async flush(): Promise<void> {
    if (this.#sending) return;
    this.#sending = true;
    try {
      for (;;) {
        const batch = this.spool.pending();
        if (batch.length === 0) return;
        let response: Response;
        try {
          response = await fetch(`${this.#o.apiUrl}/internal/agent/report`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${this.#o.token}` },
            body: JSON.stringify({ events: batch }),
            signal: AbortSignal.timeout(10_000),
          });
        } catch (err) {
          this.#o.log(`API unreachable, ${batch.length}+ events kept: ${(err as Error).message}`);
          return;
        }
        if (!response.ok) {
          this.#o.log(`API answered ${response.status}; events kept`);
          return;
        }
        const { lastSeq } = (await response.json()) as { lastSeq: number };
        this.spool.ack(Math.max(lastSeq, batch[batch.length - 1]!.seq));
        if (this.#stopped) return;
      }
    } finally {
      this.#sending = false;
    }
  }
}
