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
import type { ExecRecord, ExecSource } from './exec-hook.ts';
import {
  listPids,
  ownPeer,
  peerOf,
  readProcess,
  readStat,
  type ProcInfo,
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
      peer: string | null;
      /** What saw it: the /proc scan or the exec hook. */
      source: 'scan' | 'hook';
    }
  | { kind: 'heartbeat'; seq: number; time: string; sessions: { peer: string; uid: number }[] };

type Unnumbered<T> = T extends unknown ? Omit<T, 'seq'> : never;

const MAX_BATCH_EVENTS = 500;
const MAX_BATCH_BYTES = 90_000;
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
    const numbered = { ...event, seq: this.#nextSeq++ } as AgentEvent;
    appendFileSync(path.join(this.#dir, 'spool.jsonl'), `${JSON.stringify(numbered)}\n`);
    this.#pending.push(numbered);
    if (this.#pending.length > MAX_SPOOLED) {
      const drop = this.#pending.length - MAX_SPOOLED;
      this.dropped += drop;
      this.ack(this.#pending[drop - 1]!.seq);
    }
    return numbered;
  }

  /** The oldest events not yet stored by the API, within the batch limits. */
  pending(): AgentEvent[] {
    const batch: AgentEvent[] = [];
    let bytes = 20;
    for (const event of this.#pending) {
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
  includeLoopback?: boolean;
  log?: (message: string) => void;
}

type ExecEvent = Extract<AgentEvent, { kind: 'exec' }>;

/** A process as the last scan saw it: the lower of its uids, its session's peer, what it runs. */
interface LiveProcess {
  uid: number;
  peer: string | null;
  info: ProcInfo;
}

/** Scans between two looks at whether a process without a session has connected since. */
const RECHECK_EVERY = 10;

/** How long a reported (pid, command) is remembered, so the scan and the hook report it once. */
const RECENT_MS = 60_000;

/**
 * One agent: a scan loop over /proc (long-lived processes and the sockets that make them
 * someone's session), an exec hook (every program start, short-lived ones too), a heartbeat,
 * and a sender draining the spool.
 */
export class Agent {
  readonly spool: Spool;
  readonly #o: Required<Omit<AgentOptions, 'ignorePids' | 'execSource'>> & {
    ignorePids: Set<number>;
    execSource: ExecSource | null;
  };
  readonly #seen = new Map<number, number>();
  readonly #userName: (uid: number) => string;
  /** `pid command` → when it was reported. */
  readonly #recent = new Map<string, number>();
  /** What the exec hook told of recent processes (kept a minute: their children may outlive them). */
  readonly #hooked = new Map<
    number,
    { pid: number; ppid: number; uid: number; command: string; peer: string | null; at: number }
  >();
  #live = new Map<number, LiveProcess>();
  /** TCP tables by network namespace, read at most once per scan (again when a socket is missing). */
  #tables = new Map<string, Map<string, TcpConnection>>();
  #timers: NodeJS.Timeout[] = [];
  #sending = false;
  #stopped = false;
  #scans = 0;
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
  }

  start(): void {
    // What already runs is the box as it was: noted, not reported.
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

  /** Ancestors of a process, nearest first (from this scan's reads where there are some). */
  #chain(ppid: number, infos?: Map<number, ProcInfo>): ExecEvent['chain'] {
    const chain: ExecEvent['chain'] = [];
    for (let p = ppid; p > 1 && chain.length < 16;) {
      // Gone already: what the hook said of it, when it said something.
      const parent =
        infos?.get(p) ?? this.#live.get(p)?.info ?? readProcess(p, this.#o.proc) ?? this.#hooked.get(p);
      if (!parent) break;
      chain.push({ pid: parent.pid, uid: parent.uid, command: parent.command.slice(0, 4096) });
      p = parent.ppid;
    }
    return chain;
  }

  #peerOptions(tables: Map<string, Map<string, TcpConnection>>) {
    return {
      proc: this.#o.proc,
      includeLoopback: this.#o.includeLoopback,
      tables,
      known: (p: number) => this.#live.get(p)?.peer,
    };
  }

  /** Reports a program start once, whether the scan or the hook saw it first. */
  #report(event: Omit<ExecEvent, 'seq' | 'kind' | 'user' | 'chain'>, chain: ExecEvent['chain']): boolean {
    const key = `${event.pid} ${event.command}`;
    if (this.#recent.has(key)) return false;
    this.#recent.set(key, Date.now());
    this.spool.add({
      kind: 'exec',
      ...event,
      user: this.#userName(event.euid === 0 ? 0 : event.uid).slice(0, 64),
      cwd: event.cwd.slice(0, MAX_CWD),
      command: event.command.slice(0, MAX_COMMAND),
      chain,
    });
    // Program starts go out at once (a batch of whatever came within a few milliseconds);
    // heartbeats wait for the regular flush.
    this.#flushSoon ??= setTimeout(() => {
      this.#flushSoon = null;
      void this.flush();
    }, 20);
    return true;
  }

  /** A program start the exec hook saw (the process may be gone already). */
  exec(record: ExecRecord): void {
    if (this.#o.ignorePids.has(record.pid) || this.#o.ignorePids.has(record.ppid)) return;
    // The effective uid counts only when /proc confirms it (the message could be written by hand).
    const alive = readStat(record.pid, this.#o.proc) !== null;
    let euid = record.uid;
    if (record.claimedEuid !== record.uid && alive) {
      const info = readProcess(record.pid, this.#o.proc);
      if (info?.euid === record.claimedEuid) euid = record.claimedEuid;
    }
    // The session it belongs to: its own sockets while it lives, else its parent's (as the last
    // scan knew it, as the hook learned it when the parent started, or as /proc says now). A
    // quick `sudo id` is gone, sudo too, by the time its line is read: the hook's own record of
    // sudo, made while sudo's parent shell was there to ask, still names the session.
    const options = this.#peerOptions(this.#tables);
    const peer =
      (alive ? peerOf(record.pid, options) : null) ??
      this.#live.get(record.ppid)?.peer ??
      this.#hooked.get(record.ppid)?.peer ??
      peerOf(record.ppid, options);
    this.#hooked.set(record.pid, {
      pid: record.pid,
      ppid: record.ppid,
      uid: record.uid,
      command: record.command,
      peer,
      at: Date.now(),
    });
    this.#report(
      {
        time: record.time,
        pid: record.pid,
        ppid: record.ppid,
        uid: record.uid,
        euid,
        cwd: record.cwd,
        command: record.command,
        peer,
        source: 'hook',
      },
      this.#chain(record.ppid),
    );
  }

  /** Looks at every process; each one not seen before is an exec event (when `report`). */
  scan(report = true): number {
    this.#scans++;
    let found = 0;
    const live = new Map<number, LiveProcess>();
    const infos = new Map<number, ProcInfo>();
    const fresh: ProcInfo[] = [];
    const tables = new Map<string, Map<string, TcpConnection>>();
    this.#tables = tables;
    for (const pid of listPids(this.#o.proc)) {
      if (this.#o.ignorePids.has(pid)) continue;
      const known = this.#seen.get(pid);
      const previous = this.#live.get(pid);
      // A process seen before needs one small read to know it is still the same one. One
      // without a peer is looked at again now and then: it may have connected since (a
      // reverse shell written in a scripting language connects after it started).
      if (known !== undefined && previous && readStat(pid, this.#o.proc)?.startTicks === known) {
        const peer =
          previous.peer === null && this.#scans % RECHECK_EVERY === 0
            ? ownPeer(pid, this.#peerOptions(tables))
            : previous.peer;
        live.set(pid, peer === previous.peer ? previous : { ...previous, peer });
        continue;
      }
      const info = readProcess(pid, this.#o.proc);
      if (!info) continue;
      // Parents seen in this scan or the last one answer for their children.
      const peer = peerOf(pid, {
        ...this.#peerOptions(tables),
        known: (p) => (live.has(p) ? live.get(p)!.peer : this.#live.get(p)?.peer),
      });
      // Gone while we looked (its sockets with it): the exec hook reports it, with its session.
      if (readStat(pid, this.#o.proc)?.startTicks !== info.startTicks) continue;
      infos.set(pid, info);
      live.set(pid, { uid: Math.min(info.uid, info.euid), peer, info });
      this.#seen.set(pid, info.startTicks);
      fresh.push(info);
    }
    for (const info of fresh) {
      if (!report || info.command.startsWith('[') || this.#o.ignorePids.has(info.ppid)) continue;
      const reported = this.#report(
        {
          time: new Date().toISOString(),
          pid: info.pid,
          ppid: info.ppid,
          uid: info.uid,
          euid: info.euid,
          cwd: info.cwd,
          command: info.command,
          peer: live.get(info.pid)?.peer ?? null,
          source: 'scan',
        },
        this.#chain(info.ppid, infos),
      );
      if (reported) found++;
    }
    for (const pid of this.#seen.keys()) if (!live.has(pid)) this.#seen.delete(pid);
    this.#live = live;
    const old = Date.now() - RECENT_MS;
    for (const [key, at] of this.#recent) if (at < old) this.#recent.delete(key);
    for (const [pid, known] of this.#hooked) if (known.at < old) this.#hooked.delete(pid);
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
