/**
 * The box agent of virtual machines (the Kubernetes runtime): watches every program start on
 * the box, judges it by the referee's rules (operator/src/referee/judge.ts, the same code the
 * local runtime's referee runs on its host), and reports to the API (`POST
 * /internal/agent/report`) with the box's secret: each program that became someone's (a
 * network peer's: the connection that made it theirs), and a heartbeat of which peers still run
 * something and which connections the box holds with the peers the API watches. The platform
 * counts none of it unless its own routers saw those connections (docs/detection.md).
 *
 * Events are numbered and written to a spool on disk before they are sent, and only dropped once
 * the API has stored them: an API restart or a network cut loses nothing, and a retry stores
 * nothing twice (the API skips numbers it has).
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
import { AttackJudge, type ExecFacts } from '../referee/judge.ts';
import type { ExecRecord, ExecSource } from './exec-hook.ts';
import {
  LOOPBACK,
  heldConnections,
  listPids,
  listensOn,
  netnsOf,
  programOf,
  readProcess,
  readStat,
  tcpEntries,
  type TcpConnection,
} from './proc.ts';

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
      euid: number;
      chain: { pid: number; uid: number; command: string }[];
      /** The peer's end of the connection that makes the program theirs. */
      peer: string;
      peerPort: number;
      /** What saw it: the /proc scan or the exec hook. */
      source: 'scan' | 'hook';
    }
  | {
      kind: 'heartbeat';
      seq: number;
      time: string;
      /**
       * Peers who run something on the box now, by the connection that made it theirs (address
       * and port), with the lowest real uid among their programs.
       */
      sessions: { peer: string; peerPort: number; uid: number }[];
      /** The box's TCP connections with the watched peers (whatever their state but listening). */
      connections: { peer: string; peerPort: number; localPort: number }[];
    };

type Unnumbered<T> = T extends unknown ? Omit<T, 'seq'> : never;

const MAX_BATCH_EVENTS = 500;
/** Bytes of a batch's JSON, UTF-8 (the API takes 1 MB: a heartbeat of 8,192 connections fits). */
const MAX_BATCH_BYTES = 900_000;
/**
 * Bytes of one program start's JSON at most: its command lines are cut to fit (the parents'
 * first). A command line is the attacker's to choose, and escaped control characters take six
 * bytes each: an event the API refuses must never hold back those behind it.
 */
export const MAX_EVENT_BYTES = 16_384;
const MAX_COMMAND = 8192;
const MAX_CWD = 4096;

/** Events kept on disk while the API cannot take them; beyond this the oldest go (a full disk is worse). */
const MAX_SPOOLED = 200_000;

/** Events on disk until the API has them: `spool.jsonl` (numbered events) and `acked` (last stored number). */
export class Spool {
  readonly #dir: string;
  #nextSeq: number;
  #acked: number;
  /** What the file holds past `acked`, in order (read once at start). */
  #pending: AgentEvent[];
  dropped = 0;

  constructor(dir: string) {
    this.#dir = dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.#acked = Number(this.#read('acked') ?? 0) || 0;
    const events = this.#events();
    this.#pending = events.filter((e) => e.seq > this.#acked);
    const last = events.at(-1)?.seq ?? 0;
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
    const numbered = fitEvent({ ...event, seq: this.#nextSeq++ } as AgentEvent);
    appendFileSync(path.join(this.#dir, 'spool.jsonl'), `${JSON.stringify(numbered)}\n`);
    this.#pending.push(numbered);
    if (this.#pending.length > MAX_SPOOLED) {
      const drop = this.#pending.length - MAX_SPOOLED;
      this.dropped += drop;
      this.ack(this.#pending[drop - 1]!.seq);
    }
    return numbered;
  }

  /** The oldest events not yet stored by the API, within the batch limits (`limit` events at most). */
  pending(limit = MAX_BATCH_EVENTS): AgentEvent[] {
    const batch: AgentEvent[] = [];
    let bytes = 20;
    for (const event of this.#pending) {
      const size = Buffer.byteLength(JSON.stringify(event)) + 1;
      if (batch.length >= limit || (batch.length > 0 && bytes + size > MAX_BATCH_BYTES)) break;
      batch.push(event);
      bytes += size;
    }
    return batch;
  }

  /** The API stored everything up to `seq`: forget it (the spool file is rewritten without it). */
  ack(seq: number): void {
    if (seq <= this.#acked) return;
    this.#acked = seq;
    const index = this.#pending.findIndex((e) => e.seq > seq);
    this.#pending = index === -1 ? [] : this.#pending.slice(index);
    const tmp = path.join(this.#dir, 'spool.jsonl.tmp');
    writeFileSync(tmp, this.#pending.map((e) => `${JSON.stringify(e)}\n`).join(''));
    renameSync(tmp, path.join(this.#dir, 'spool.jsonl'));
    writeFileSync(path.join(this.#dir, 'acked'), String(seq));
  }

  get acked(): number {
    return this.#acked;
  }
}

/** Cuts a string to `max` characters, marked with an ellipsis when cut. */
const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * A program start cut to MAX_EVENT_BYTES of JSON: the parents' command lines first, then fewer
 * parents, then its own command line and directory (heartbeats are sized by their caps).
 */
export function fitEvent(event: AgentEvent): AgentEvent {
  if (event.kind !== 'exec') return event;
  const size = (e: AgentEvent) => Buffer.byteLength(JSON.stringify(e));
  if (size(event) <= MAX_EVENT_BYTES) return event;
  const steps: ((e: Extract<AgentEvent, { kind: 'exec' }>) => Extract<AgentEvent, { kind: 'exec' }>)[] = [
    (e) => ({ ...e, chain: e.chain.map((p) => ({ ...p, command: cut(p.command, 256) })) }),
    (e) => ({ ...e, chain: e.chain.slice(0, 4).map((p) => ({ ...p, command: cut(p.command, 64) })) }),
    (e) => ({ ...e, command: cut(e.command, 1024), cwd: cut(e.cwd, 512), user: cut(e.user, 32) }),
    (e) => ({ ...e, chain: [], command: cut(e.command, 256), cwd: cut(e.cwd, 128) }),
  ];
  let fitted = event;
  for (const step of steps) {
    fitted = step(fitted);
    if (size(fitted) <= MAX_EVENT_BYTES) break;
  }
  return fitted;
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
  /** Program starts as an exec hook sees them (snoopy through the journal in a box). */
  execSource?: ExecSource | null;
  /** Processes of the agent itself, whose children are left out too (default: this process). */
  ignorePids?: Set<number>;
  /** Whether loopback peers count (tests on one host; a box's own loopback is nobody's). */
  includeLoopback?: boolean;
  log?: (message: string) => void;
}

type ExecEvent = Extract<AgentEvent, { kind: 'exec' }>;

/** How long a process of someone's that ended is kept as an ancestor (its children may be read after it). */
const GONE_KEPT_MS = 60_000;

/** How long a reported (pid, command) is remembered, so the scan and the hook report it once. */
const RECENT_MS = 60_000;

/** Connections a heartbeat lists at most (the API's schema; a router lets a player hold 4,096). */
const MAX_CONNECTIONS = 8192;

/**
 * One agent: an exec hook (every program start, short-lived ones too), a scan loop over /proc
 * (processes the hook cannot see, forks, and which processes still live), the judge, a
 * heartbeat, and a sender draining the spool.
 */
export class Agent {
  readonly spool: Spool;
  readonly #o: Required<Omit<AgentOptions, 'ignorePids' | 'execSource'>> & {
    ignorePids: Set<number>;
    execSource: ExecSource | null;
  };
  readonly #judge: AttackJudge;
  /** Every process seen by the scan: pid → start time (a pid with another start time is a new process). */
  readonly #seen = new Map<number, number>();
  /** The judge's processes: pid → start time when they became someone's (a reused pid is not theirs). */
  readonly #owned = new Map<number, number>();
  /** The judge's processes that ended, and when (kept a while as ancestors). */
  readonly #gone = new Map<number, number>();
  readonly #userName: (uid: number) => string;
  /** `pid command` → when it was reported. */
  readonly #recent = new Map<string, number>();
  /** Parents as the exec hook told of them (kept a minute: their children may outlive them). */
  readonly #hooked = new Map<number, { ppid: number; uid: number; command: string; at: number }>();
  /** Peers whose connections heartbeats list: the API names them in its answers (the attackers of the box). */
  #watched = new Set<string>();
  /** TCP tables by network namespace, read at most once per scan (again when a socket is missing). */
  #tables = new Map<string, Map<string, TcpConnection>>();
  #timers: NodeJS.Timeout[] = [];
  #sending = false;
  #stopped = false;
  #flushSoon: NodeJS.Timeout | null = null;

  constructor(options: AgentOptions) {
    this.#o = {
      scanIntervalMs: 500,
      heartbeatIntervalMs: 5000,
      proc: '/proc',
      passwd: '/etc/passwd',
      includeLoopback: false,
      log: () => undefined,
      ...options,
      execSource: options.execSource ?? null,
      ignorePids: options.ignorePids ?? new Set([process.pid]),
    };
    this.spool = new Spool(options.spoolDir);
    this.#userName = userNames(this.#o.passwd);
    const proc = this.#o.proc;
    this.#judge = new AttackJudge({
      uidBase: 0,
      // Inside the box every peer is judged alike; whether a peer was an attacker, in the
      // attack's window, on a connection the router carried, is the platform's to check.
      windowStart: 0,
      watchingSince: () => 0,
      attackerAddress: (remote) =>
        this.#o.includeLoopback || !LOOPBACK.test(remote) ? { address: remote, since: 0 } : null,
      wall: (ns) => Number(ns / 1_000_000n),
      facts: {
        judges: (pid) => pid !== 1 && !this.#o.ignorePids.has(pid),
        // The agent learns of a connection when it looks: it counts as older than the program
        // (the platform checks its opening against what the router saw).
        connections: (pid) =>
          heldConnections(pid, 'ESTABLISHED', { proc, tables: this.#tables }).map((c) => ({
            remote: c.remote,
            remotePort: c.remotePort,
            localPort: c.localPort,
            openedAt: () => 0,
          })),
        listens: (pid, port) => listensOn(pid, port, proc),
      },
    });
  }

  start(): void {
    // What already runs is judged (a restarted agent finds the shells it knew) but not reported
    // again.
    this.scan(false);
    this.#o.execSource?.start((record) => this.exec(record));
    this.#timers.push(setInterval(() => this.scan(true), this.#o.scanIntervalMs));
    this.#timers.push(setInterval(() => this.heartbeat(), this.#o.heartbeatIntervalMs));
    this.#timers.push(setInterval(() => void this.flush(), Math.min(1000, this.#o.scanIntervalMs * 2)));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#o.execSource?.stop();
    for (const timer of this.#timers) clearInterval(timer);
    if (this.#flushSoon) clearTimeout(this.#flushSoon);
    await this.flush();
  }

  /** Ancestors of a process, nearest first: from /proc, or from what the hook told of one gone. */
  #ancestors(ppid: number): number[] {
    const ancestors: number[] = [];
    for (let p: number | undefined = ppid; p !== undefined && p > 0 && ancestors.length < 32;) {
      ancestors.push(p);
      if (p === 1) break;
      p = readStat(p, this.#o.proc)?.ppid ?? this.#hooked.get(p)?.ppid;
    }
    return ancestors;
  }

  /** The ancestors as the event shows them (pid, uid, command): from /proc, or as the hook told of them. */
  #chain(ancestors: number[]): ExecEvent['chain'] {
    const chain: ExecEvent['chain'] = [];
    for (const pid of ancestors.slice(0, 16)) {
      if (pid === 1) break;
      const info = readProcess(pid, this.#o.proc) ?? this.#hooked.get(pid);
      if (info) chain.push({ pid, uid: info.uid, command: info.command.slice(0, 4096) });
    }
    return chain;
  }

  /**
   * Judges a program start; reports it when it is someone's (once, whether the scan or the
   * hook saw it first). `startTicks` names the process while it lives (undefined: gone).
   */
  #judgeExec(
    facts: ExecFacts,
    details: { ppid: number; command: string; source: ExecEvent['source']; time: string },
    startTicks: number | undefined,
    report: boolean,
  ): void {
    // A pid of someone's reused by another process is not theirs.
    const owned = this.#owned.get(facts.pid);
    if (owned !== undefined && startTicks !== undefined && owned !== startTicks) this.#forget(facts.pid);
    const verdict = this.#judge.exec(facts, details.command);
    // The agent knows every connection's opening (see the judge's options): never asked again.
    if (!verdict || 'retry' in verdict) return;
    if (startTicks === undefined) this.#gone.set(facts.pid, Date.now());
    this.#owned.set(facts.pid, startTicks ?? -1);
    if (!report) return;
    const key = `${facts.pid} ${details.command}`;
    if (this.#recent.has(key)) return;
    this.#recent.set(key, Date.now());
    this.spool.add({
      kind: 'exec',
      time: details.time,
      pid: facts.pid,
      ppid: details.ppid,
      uid: facts.uid,
      euid: facts.euid,
      user: this.#userName(facts.uid).slice(0, 64),
      cwd: facts.cwd.slice(0, MAX_CWD),
      command: details.command.slice(0, MAX_COMMAND),
      chain: this.#chain(facts.ancestors),
      peer: verdict.peer,
      peerPort: verdict.peerPort,
      source: details.source,
    });
    // Program starts go out at once (a batch of whatever came within a few milliseconds);
    // heartbeats wait for the regular flush.
    this.#flushSoon ??= setTimeout(() => {
      this.#flushSoon = null;
      void this.flush();
    }, 20);
  }

  #forget(pid: number): void {
    this.#judge.forget(pid);
    this.#owned.delete(pid);
    this.#gone.delete(pid);
  }

  /** A program start the exec hook saw (the process may be gone already). */
  exec(record: ExecRecord): void {
    if (this.#o.ignorePids.has(record.pid) || this.#o.ignorePids.has(record.ppid)) return;
    this.#hooked.set(record.pid, {
      ppid: record.ppid,
      uid: record.uid,
      command: record.command,
      at: Date.now(),
    });
    const stat = readStat(record.pid, this.#o.proc);
    // The effective uid counts only when /proc confirms it (the message could be written by hand).
    let euid = record.uid;
    if (record.claimedEuid !== record.uid && stat) {
      const info = readProcess(record.pid, this.#o.proc);
      if (info?.euid === record.claimedEuid) euid = record.claimedEuid;
    }
    const program = stat ? programOf(record.pid, this.#o.proc) : null;
    this.#judgeExec(
      {
        ns: BigInt(Date.parse(record.time)) * 1_000_000n,
        pid: record.pid,
        uid: record.uid,
        euid,
        // Which program the process ran before is not told: a daemon's child running the
        // daemon's program is taken as running it again.
        previousProgram: 0n,
        program: program?.id ?? 0n,
        parentProgram: programOf(record.ppid, this.#o.proc)?.id ?? 0n,
        mode: program?.mode ?? 0,
        ancestors: this.#ancestors(record.ppid),
        cwd: record.cwd,
      },
      { ppid: record.ppid, command: record.command, source: 'hook', time: record.time },
      stat?.startTicks,
      true,
    );
  }

  /**
   * Looks at every process. One not seen before that runs its parent's program is a fork (the
   * attacker's when its parent is); one that runs another program started it, and is judged
   * as a program start (what the hook cannot see: static programs, a box without the hook).
   * Then the judge's processes that ended are let go.
   */
  scan(report = true): void {
    const proc = this.#o.proc;
    this.#tables = new Map();
    const live = new Map<number, number>();
    const fresh: { pid: number; ppid: number; startTicks: number }[] = [];
    for (const pid of listPids(proc)) {
      if (this.#o.ignorePids.has(pid)) continue;
      const stat = readStat(pid, proc);
      if (!stat) continue;
      live.set(pid, stat.startTicks);
      if (this.#seen.get(pid) !== stat.startTicks && !this.#o.ignorePids.has(stat.ppid))
        fresh.push({ pid, ...stat });
      this.#seen.set(pid, stat.startTicks);
    }
    for (const pid of this.#seen.keys()) if (!live.has(pid)) this.#seen.delete(pid);
    // Parents before their children.
    fresh.sort((a, b) => a.startTicks - b.startTicks);
    const now = Date.now();
    for (const p of fresh) {
      const owned = this.#owned.get(p.pid);
      if (owned !== undefined && owned !== p.startTicks) this.#forget(p.pid);
      const program = programOf(p.pid, proc);
      if (!program || this.#judge.process(p.pid)) continue;
      const parentProgram = programOf(p.ppid, proc);
      if (parentProgram?.id === program.id) {
        if (this.#judge.process(p.ppid)) {
          this.#judge.fork({ ns: BigInt(now) * 1_000_000n, parent: p.ppid, child: p.pid });
          this.#owned.set(p.pid, p.startTicks);
        }
        continue;
      }
      const info = readProcess(p.pid, proc);
      if (!info || info.command.startsWith('[')) continue;
      this.#judgeExec(
        {
          ns: BigInt(now) * 1_000_000n,
          pid: p.pid,
          uid: info.uid,
          euid: info.euid,
          previousProgram: 0n,
          program: program.id,
          parentProgram: parentProgram?.id ?? 0n,
          mode: program.mode,
          ancestors: this.#ancestors(p.ppid),
          cwd: info.cwd,
        },
        { ppid: p.ppid, command: info.command, source: 'scan', time: new Date(now).toISOString() },
        p.startTicks,
        report,
      );
    }
    for (const { pid } of this.#judge.processes()) {
      const start = live.get(pid);
      if (start !== undefined && start === this.#owned.get(pid)) continue;
      // A pid taken by another process: not theirs at all. One that ended: kept a while.
      if (start !== undefined) this.#forget(pid);
      else if (!this.#gone.has(pid)) this.#gone.set(pid, now);
      else if (now - this.#gone.get(pid)! > GONE_KEPT_MS) this.#forget(pid);
    }
    const old = now - RECENT_MS;
    for (const [key, at] of this.#recent) if (at < old) this.#recent.delete(key);
    for (const [pid, known] of this.#hooked) if (known.at < old) this.#hooked.delete(pid);
  }

  /**
   * Who runs something on the box now (each peer with the lowest real uid among its live
   * programs; a set-user-ID program counts with the uid it was started with, as sudo is real
   * root for a moment of its own), and the box's connections with the watched peers.
   */
  heartbeat(): void {
    const sessions = new Map<string, { peer: string; peerPort: number; uid: number }>();
    for (const p of this.#judge.processes()) {
      if (this.#gone.has(p.pid)) continue;
      const info = readProcess(p.pid, this.#o.proc);
      if (!info) continue;
      const uid = p.setUid ? p.uid : info.uid;
      const key = `${p.peer}:${p.peerPort}`;
      const known = sessions.get(key);
      sessions.set(key, { peer: p.peer, peerPort: p.peerPort, uid: Math.min(uid, known?.uid ?? uid) });
    }
    this.spool.add({
      kind: 'heartbeat',
      time: new Date().toISOString(),
      // Root first: a cap must never leave out the session that decides OWNED.
      sessions: [...sessions.values()].sort((a, b) => a.uid - b.uid).slice(0, 256),
      connections: this.#watchedConnections(),
    });
  }

  /** Every TCP connection of the box (in every network namespace) with a watched peer, but listening ones. */
  #watchedConnections(): Extract<AgentEvent, { kind: 'heartbeat' }>['connections'] {
    if (this.#watched.size === 0) return [];
    const namespaces = new Map<string, number>();
    for (const pid of listPids(this.#o.proc)) {
      const namespace = netnsOf(pid, this.#o.proc);
      if (namespace && !namespaces.has(namespace)) namespaces.set(namespace, pid);
    }
    const found = new Map<string, { peer: string; peerPort: number; localPort: number }>();
    for (const pid of namespaces.values())
      // Sockets no process holds any more too (closing with data queued, TIME_WAIT): the router
      // still sees their flows.
      for (const c of tcpEntries(pid, this.#o.proc)) {
        if (c.state === 'LISTEN' || !this.#watched.has(c.remote) || found.size >= MAX_CONNECTIONS) continue;
        found.set(`${c.remote}:${c.remotePort}:${c.localPort}`, {
          peer: c.remote,
          peerPort: c.remotePort,
          localPort: c.localPort,
        });
      }
    return [...found.values()];
  }
  /** Sends what the spool holds, batch by batch, until it is empty or the API does not answer. */
  async flush(): Promise<void> {
    if (this.#sending) return;
    this.#sending = true;
    // Events a batch may hold: halved while the API refuses batches as they are (400, 413).
    let limit = MAX_BATCH_EVENTS;
    try {
      for (;;) {
        const batch = this.spool.pending(limit);
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
        if (response.status >= 400 && response.status < 500 && response.status !== 429) {
          // Refused as it is, it would be refused for ever, and hold back every event behind
          // it (heartbeats too: the defence would be forfeit for silence). Smaller batches find
          // the event refused; that one alone is given up.
          if (batch.length > 1) {
            limit = Math.ceil(batch.length / 2);
            continue;
          }
          this.spool.dropped++;
          this.#o.log(`API refused event ${batch[0]!.seq} (${response.status}); given up`);
          this.spool.ack(batch[0]!.seq);
          continue;
        }
        if (!response.ok) {
          this.#o.log(`API answered ${response.status}; events kept`);
          return;
        }
        limit = MAX_BATCH_EVENTS;
        const { lastSeq, watch } = (await response.json()) as { lastSeq: number; watch?: string[] };
        this.spool.ack(Math.max(lastSeq, batch[batch.length - 1]!.seq));
        if (Array.isArray(watch)) this.#watched = new Set(watch.filter((w) => typeof w === 'string'));
        if (this.#stopped) return;
      }
    } finally {
      this.#sending = false;
    }
  }
}
