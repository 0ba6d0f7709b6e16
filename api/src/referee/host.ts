import {
  closeSync,
  constants,
  existsSync,
  readdirSync,
  type Dirent,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  readlinkSync,
  realpathSync,
} from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  AttackJudge,
  type AttackerProcess,
  type AttributedExec,
  type HeldConnection,
} from '@exploit-grid/operator/judge';
import { listensOn, socketInodes, tcpTable, type TcpConnection } from '@exploit-grid/operator/proc';
import type { Attack } from '../contracts/index.ts';
import type { VpnSession } from '../vpn/port.ts';
import { KeyedLock } from '../keyed-lock.ts';
import type { Logger } from '../logger.ts';
import {
  TRACE_ARGV_BYTES,
  type ExecEvent,
  type ForkEvent,
  type LostEvent,
  type TcpEvent,
  type TraceEvent,
} from './trace.ts';
import { TRACE_CAP_BYTES, type Tracer } from './tracer.ts';
import { trackedTcp } from './conntrack.ts';

/** Where a box lives on this host, as the referee needs it. */
export interface RefereeTarget {
  boxId: string;
  /** The box's arena address. */
  address: string;
  /** Host uid of the box's root. */
  uidBase: number;
  /** The box's root directory on the host (its /etc/passwd names users). */
  rootDir: string;
  /** A line of /proc/PID/cgroup of every process of the box contains this. */
  cgroupPath: string;
  /** The box's init (pid on the host), when it runs. */
  init: number | null;
  /** Cgroup ids (v2) already known to be the box's, or not (filled by the referee). */
  cgroups: Map<bigint, boolean>;
}

/** What the referee asks of the runtime. */
export interface RefereeHost {
  target(boxId: string): Promise<RefereeTarget | null>;
  vpnSessions(): VpnSession[];
  /** Whether a box (by the host uid of its root) has an attack window open: it is about to be watched. */
  windowOpen?(uidBase: number): boolean;
  /**
   * Whether a box's connection (by its peer as it arrived, and the box's own port) was the platform's
   * check of a service, made from the attacker's address (boxes/local/probe.ts): never the attacker's.
   */
  isProbe?(peerAddress: string, peerPort: number, boxPort: number): boolean;
}

/** A program of the attacker's as the referee or an agent saw it (see recordCommands). */
export interface RecordedCommand {
  /** Names the exec it came from (the same exec told twice is stored once); null: not known. */
  key: string | null;
  time: Date | string;
  user: string;
  uid: number;
  cwd: string;
  command: string;
  pid: number;
  peer: string | null;
}

/** Where verdicts go (the attack service). */
export interface VerdictSink {
  running(): Promise<Attack[]>;
  /** Programs of the attacker's, in order (answers, for each, whether it was new). */
  recordCommands(attackId: string, commands: RecordedCommand[]): Promise<boolean[]>;
  recordFoothold(attackId: string, message: string): Promise<boolean>;
  recordEviction(attackId: string, message: string): Promise<void>;
  recordOwn(attackId: string, message: string): Promise<boolean>;
}

/** A referee as the platform drives it: told which attacks run, it writes their verdicts. */
export interface Referee {
  start(): Promise<void>;
  watch(attack: Attack): Promise<void>;
  unwatch(attackId: string): void;
  /** Judges everything that happened so far and writes its verdicts (before attacks are settled). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

interface Watch {
  attack: Attack;
  target: RefereeTarget;
  judge: AttackJudge;
  /** Whether the attacker held a process at the last pass (null before the first). */
  held: boolean | null;
  /** Whether this referee has seen the attacker's first user-level program (its FOOTHOLD event). */
  footholdSeen: boolean;
  /** Box uid → user name, read from the box's /etc/passwd when a name is needed. */
  users: Map<number, string>;
  /** Whether an exec waits for the tracer to tell a connection's opening; what came after it. */
  waiting: boolean;
  backlog: Judged[];
  /** Verdicts not written yet, in order (written together: a storm of programs is one batch). */
  unwritten: Verdict[];
  /** The attacker's processes as last kept on disk (JSON), for a referee that restarts. */
  heldSaved: string;
}

/** A program of the attacker's to write, and the FOOTHOLD or OWN it makes (after it). */
interface Verdict {
  command: RecordedCommand;
  then: { kind: 'own' | 'foothold'; message: string } | null;
}

type Judged = ForkEvent | { event: ExecEvent; command: string };

/** How often the referee's load goes to `load.json` (operators and make bench-detection read it). */
const LOAD_MS = 5000;
/** How often the live processes of the attacker are looked at (eviction, a setuid(0) without exec). */
const PASS_MS = 500;
const BOX_UID_RANGE = 65536;
/** How often, and how long at most, a verdict waits for a connection's opening told from another CPU. */
const LATER_MS = 50;
const LATER_MAX_MS = 3000;
/** Events kept for an attack whose watch begins a moment after its window opened. */
const RECENT_EVENTS = 20_000;

/**
 * The referee of the local runtime (docs/detection.md): it watches the boxes under attack from
 * the host, where box root cannot reach, through the kernel's own account of their processes
 * (the tracer) and the host's /proc. Program starts are judged the moment they are read, while
 * the processes that decide are still there; each pass re-derives what the attacker still holds.
 */
export class HostReferee implements Referee {
  readonly #host: RefereeHost;
  readonly #tracer: Tracer;
  readonly #sink: VerdictSink;
  readonly #log: Logger;
  readonly #watches = new Map<string, Watch>();
  readonly #starting = new Set<string>();
  readonly #recent: Exclude<TraceEvent, LostEvent>[] = [];
  /**
   * Connection tracking tables of box namespaces, briefly: `local:port>remote:port` as the box's
   * sockets see it (a reply tuple) → the peer as it arrived.
   */
  readonly #conntrack = new Map<
    string,
    { at: number; replies: Map<string, { address: string; port: number }> }
  >();
  /** Which box process holds which socket, by box, briefly (see #holderOf). */
  readonly #holders = new Map<string, { at: number; byInode: Map<string, number> }>();
  /**
   * TCP connections of box namespaces, `netns|local:port>remote:port` → when they became
   * established: those with a player's address at one end apart from the rest, so that a box
   * churning connections of its own (on loopback) cannot push a player's out.
   */
  readonly #opened = { players: new Map<string, number>(), others: new Map<string, number>() };
  /** The players' VPN addresses, read again when older than PLAYERS_FRESH_MS (see #playerAddresses). */
  #players = { at: 0, addresses: new Set<string>() };
  /** Verdicts of one attack are written in the order they were made. */
  readonly #writes = new KeyedLock();
  #timer: NodeJS.Timeout | null = null;
  #loadTimer: NodeJS.Timeout | null = null;
  /**
   * What the referee's own code did on the API's main thread since it started: trace events
   * handled and passes made, and the time they took (synchronous work: its CPU time).
   */
  readonly #load = { since: Date.now(), events: 0, eventMs: 0, passes: 0, passMs: 0, lost: 0 };
  #passing: Promise<void> | null = null;
  /** Epoch ms minus monotonic ms: turns the tracer's clock into the wall clock. */
  #clockOffset = 0;

  constructor(options: { host: RefereeHost; tracer: Tracer; sink: VerdictSink; logger: Logger }) {
    this.#host = options.host;
    this.#tracer = options.tracer;
    this.#sink = options.sink;
    this.#log = options.logger.child({ component: 'referee' });
  }

  async start(): Promise<void> {
    this.#syncClock();
    for (const attack of await this.#sink.running()) await this.watch(attack);
    await this.#tracer.start((event) => this.#event(event));
    this.#timer = setInterval(() => void this.pass(), PASS_MS);
    this.#timer.unref();
    this.#loadTimer = setInterval(() => void this.#writeLoad(), LOAD_MS);
    this.#loadTimer.unref();
  }

  /** The referee's own work so far (see #load). */
  load(): { since: number; events: number; eventMs: number; passes: number; passMs: number; lost: number } {
    return { ...this.#load };
  }

  async #writeLoad(): Promise<void> {
    await writeFile(path.join(this.#tracer.dir, 'load.json'), JSON.stringify(this.load())).catch(
      () => undefined,
    );
    // Emptied when large and no attack needs its history; at its cap even while attacks run.
    const watching = this.#watches.size > 0;
    const rotated = await this.#tracer.rotate(watching ? TRACE_CAP_BYTES : undefined).catch(() => false);
    if (rotated && watching)
      this.#log.warn(
        { watching: [...this.#watches.keys()] },
        'The trace file reached its cap during attacks and was emptied (a box starts programs without end)',
      );
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#loadTimer) clearInterval(this.#loadTimer);
    await this.#passing;
    await this.#tracer.close();
    await this.#writes.idle();
  }

  #syncClock(): void {
    this.#clockOffset = Date.now() - Number(process.hrtime.bigint() / 1_000_000n);
  }

  #wall(ns: bigint): number {
    return Number(ns / 1_000_000n) + this.#clockOffset;
  }

  /** Starts judging an attack (its target box must be one of this host's). */
  async watch(attack: Attack): Promise<void> {
    // Asked twice at once (an attack that starts while the referee starts): once is enough.
    if (!attack.box || this.#watches.has(attack.id) || this.#starting.has(attack.id)) return;
    this.#starting.add(attack.id);
    try {
      await this.#startWatch(attack, attack.box.id);
    } finally {
      this.#starting.delete(attack.id);
    }
  }

  async #startWatch(attack: Attack, boxId: string): Promise<void> {
    const target = await this.#host.target(boxId);
    if (!target) {
      this.#log.warn({ attackId: attack.id }, 'The target box of an attack is not on this host');
      return;
    }
    const watch: Watch = {
      attack,
      target,
      held: null,
      footholdSeen: false,
      waiting: false,
      backlog: [],
      unwritten: [],
      heldSaved: '[]',
      users: new Map(),
      judge: new AttackJudge({
        uidBase: target.uidBase,
        windowStart: new Date(attack.createdAt).getTime(),
        watchingSince: () => this.#tracer.startedAt || Date.now(),
        wall: (ns) => this.#wall(ns),
        attackerAddress: (remote) => {
          const session = this.#host
            .vpnSessions()
            .find((s) => s.userId === attack.attacker.id && s.vpnAddress === remote);
          return session ? { address: remote, since: session.connectedAt.getTime() } : null;
        },
        facts: {
          judges: (pid) => pid !== watch.target.init && this.#inBox(pid, watch.target),
          connections: (pid) => this.#connections(pid, watch.target),
          listens: (pid, port) => listensOn(pid, port),
        },
      }),
    };
    // What a referee before this one knew first, then what happened since the window opened.
    await this.#adopt(watch);
    this.#watches.set(attack.id, watch);
    this.#catchUp(watch);
  }

  /** Where the attacker's processes of an attack are kept for a referee that restarts. */
  #heldFile(attackId: string): string {
    return path.join(this.#tracer.dir, 'held', `${attackId}.json`);
  }

  /**
   * Takes back the attacker's processes a referee before this one knew (an API restart): those
   * that still live and are still the processes they were. The trace, read again, cannot tell
   * them all (a program left behind by a shell that closed holds no connection any more).
   */
  async #adopt(watch: Watch): Promise<void> {
    const saved = await readFile(this.#heldFile(watch.attack.id), 'utf8')
      .then((text) => JSON.parse(text) as (Omit<AttackerProcess, 'since'> & { since: string })[])
      .catch(() => []);
    for (const p of saved) {
      const since = BigInt(p.since);
      const now = liveProcess(p.pid);
      if (!now || now.tgid !== p.pid || bootNs(now.startTicks) > since + 1_000_000_000n) continue;
      watch.judge.adopt({ ...p, since });
    }
    watch.heldSaved = JSON.stringify(saved);
  }

  /** Keeps the attacker's live processes on disk when they changed (see #adopt). */
  async #saveHeld(watch: Watch): Promise<void> {
    const json = JSON.stringify(watch.judge.processes().map((p) => ({ ...p, since: String(p.since) })));
    if (json === watch.heldSaved) return;
    watch.heldSaved = json;
    const file = this.#heldFile(watch.attack.id);
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(`${file}.tmp`, json, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  unwatch(attackId: string): void {
    this.#watches.delete(attackId);
    void rm(this.#heldFile(attackId), { force: true }).catch(() => undefined);
    if (this.#watches.size === 0) void this.#tracer.rotate().catch(() => undefined);
  }

  /**
   * Whether the program starts of a host uid matter: a box's under attack (watched, or its
   * window open and the watch about to begin). The tracer leaves the others undecoded.
   */
  wants(uid: number): boolean {
    const base = uid - (uid % BOX_UID_RANGE);
    return this.#watchOf(uid) !== null || (this.#host.windowOpen?.(base) ?? true);
  }

  #watchOf(uid: number): Watch | null {
    const base = uid - (uid % BOX_UID_RANGE);
    for (const watch of this.#watches.values()) if (watch.target.uidBase === base) return watch;
    return null;
  }

  #event(event: TraceEvent): void {
    const started = performance.now();
    try {
      this.#handle(event);
    } finally {
      this.#load.events++;
      this.#load.eventMs += performance.now() - started;
    }
  }

  #handle(event: TraceEvent): void {
    if (event.kind === 'lost') {
      // Programs of an attacker's may be among them: said where operators look (docs/detection.md).
      this.#load.lost += event.count;
      this.#log.warn(
        { lost: event.count, watching: [...this.#watches.keys()] },
        'The tracer lost kernel events (its buffers overflowed): verdicts may miss programs',
      );
      return;
    }
    this.#recent.push(event);
    // Trimmed now and then, not at every event (a splice moves the whole array).
    if (this.#recent.length > 2 * RECENT_EVENTS) this.#recent.splice(0, this.#recent.length - RECENT_EVENTS);
    switch (event.kind) {
      case 'tcp':
        this.#tcp(event);
        return;
      case 'fork':
        for (const watch of this.#watches.values()) this.#judge(watch, event);
        return;
      case 'exec': {
        const watch = this.#watchOf(event.uid);
        if (watch) this.#exec(watch, event);
        return;
      }
    }
  }

  #exec(watch: Watch, event: ExecEvent): void {
    if (this.#wall(event.ns) < new Date(watch.attack.createdAt).getTime() - 1000) return;
    // The same uid range on another platform's box (tests run several on one host).
    if (!this.#belongs(event, watch.target)) return;
    this.#judge(watch, { event, command: this.#command(event) });
  }

  /**
   * Judges the box's program starts and forks in order: while one waits for a connection's
   * opening (told by the tracer from another CPU), those after it wait too (they may descend
   * from it).
   */
  #judge(watch: Watch, item: Judged): void {
    if (watch.waiting) {
      watch.backlog.push(item);
      return;
    }
    if ('child' in item) {
      watch.judge.fork(item);
      return;
    }
    const verdict = watch.judge.exec(item.event, item.command);
    if (verdict && 'retry' in verdict) {
      // Asked again, every LATER_MS, until the tracer tells the connection's opening (a busy
      // host can be late with a CPU's lines) or LATER_MAX_MS passed.
      watch.waiting = true;
      const since = Date.now();
      const again = () => {
        void this.#tracer
          .flush()
          .then(() => {
            if (this.#watches.get(watch.attack.id) !== watch) return true;
            const decided = verdict.retry(Date.now() - since >= LATER_MAX_MS);
            if (decided === 'unknown') return false;
            if (decided) this.#record(watch, item.event, decided);
            return true;
          })
          .catch((err: unknown) => {
            this.#log.error({ err }, 'Could not judge an exec again');
            return true;
          })
          .then((done) => {
            if (!done) {
              setTimeout(again, LATER_MS).unref();
              return;
            }
            watch.waiting = false;
            for (const next of watch.backlog.splice(0)) this.#judge(watch, next);
          });
      };
      setTimeout(again, LATER_MS).unref();
    } else if (verdict) this.#record(watch, item.event, verdict);
  }

  /** What happened on the box between the window's opening and this watch (it began a moment later). */
  #catchUp(watch: Watch): void {
    const from = new Date(watch.attack.createdAt).getTime() - 1000;
    for (const event of this.#recent) {
      if (event.kind === 'tcp' || this.#wall(event.ns) < from) continue;
      if (event.kind === 'fork') this.#judge(watch, event);
      else if (this.#watchOf(event.uid) === watch) this.#exec(watch, event);
    }
  }

  /** Keyed as the socket sees it: a box's socket has the box as its source. */
  #tcp(event: TcpEvent): void {
    const key = `${event.netns}|${event.source}:${event.sourcePort}>${event.destination}:${event.destinationPort}`;
    if (event.change === 'close') {
      this.#opened.players.delete(key);
      this.#opened.others.delete(key);
      return;
    }
    const players = this.#playerAddresses();
    const player = players.has(event.source) || players.has(event.destination);
    const opened = player ? this.#opened.players : this.#opened.others;
    opened.set(key, this.#wall(event.ns));
    // Connections whose close was never seen (a box destroyed under them) must not pile up.
    if (opened.size > 200_000) opened.delete(opened.keys().next().value!);
  }

  /**
   * The players' VPN addresses: read once for a storm of events and judgements (every connection
   * event and every exec asks), not once each.
   */
  #playerAddresses(): Set<string> {
    const now = Date.now();
    if (now - this.#players.at > PLAYERS_FRESH_MS)
      this.#players = { at: now, addresses: new Set(this.#host.vpnSessions().map((s) => s.vpnAddress)) };
    return this.#players.addresses;
  }

  /** When a connection became established, as the tracer told (null: not told yet). */
  #openedAt(key: string): number | null {
    return this.#opened.players.get(key) ?? this.#opened.others.get(key) ?? null;
  }

  /** Whether an exec event is of this box's processes (its cgroup), judged by the process or its parent. */
  #belongs(event: ExecEvent, target: RefereeTarget): boolean {
    // A cgroup's id names one cgroup for good: what its first process said holds for the rest
    // (a storm of programs in one cgroup reads /proc once). Only where boxes have cgroups of
    // their own in the unified hierarchy: with the legacy ones, the id may be everybody's.
    const known = UNIFIED ? target.cgroups.get(event.cgroup) : undefined;
    if (known !== undefined) return known;
    for (const [i, pid] of [event.pid, ...event.ancestors.slice(0, 3)].entries()) {
      const cgroup = readText(`/proc/${pid}/cgroup`);
      if (cgroup === null) continue;
      const inBox = cgroup.includes(target.cgroupPath);
      if (UNIFIED && i === 0 && event.cgroup !== 0n) {
        if (target.cgroups.size > 10_000) target.cgroups.clear();
        target.cgroups.set(event.cgroup, inBox);
      }
      return inBox;
    }
    return false;
  }

  #inBox(pid: number, target: RefereeTarget): boolean {
    const cgroup = readText(`/proc/${pid}/cgroup`);
    return cgroup !== null && cgroup.includes(target.cgroupPath);
  }

  /** Established TCP connections a process holds now, with when they opened (when the tracer saw it). */
  #connections(pid: number, target: RefereeTarget): HeldConnection[] {
    const inodes = socketInodes(pid);
    if (inodes.size === 0) return [];
    const table = tcpTable(pid);
    // The namespace the sockets live in: an opening told from another namespace is not theirs.
    const netns = netnsOf(pid);
    const players = this.#playerAddresses();
    const held: HeldConnection[] = [];
    for (const inode of inodes) {
      const c: TcpConnection | undefined = table.get(inode);
      // Whatever the box's own address (box root may move its services to another one).
      if (c?.state !== 'ESTABLISHED') continue;
      const key = `${netns}|${c.local}:${c.localPort}>${c.remote}:${c.remotePort}`;
      const peer = this.#playerPeer(pid, netns, c, players);
      if (peer) {
        held.push({
          remote: peer.address,
          remotePort: peer.port,
          localPort: c.localPort,
          openedAt: () => this.#openedAt(key),
        });
        continue;
      }
      // A connection within the box (a local proxy in front of the service): the player on
      // the proxy's other side, when the proxy serves one player only.
      const proxied = this.#proxiedPeer(pid, table, c, netns, target, players);
      if (proxied) held.push({ ...proxied, localPort: c.localPort });
    }
    return held;
  }

  /**
   * The player at the other end of a connection, as they arrived at the box's door: the box's
   * own NAT may have renamed them (to an address of nobody's, or to another player's, the
   * owner's), and its connection tracking remembers who it was. Null for no player.
   */
  #playerPeer(
    pid: number,
    netns: string,
    c: TcpConnection,
    players: Set<string>,
  ): { address: string; port: number } | null {
    const peer = this.#natPeer(pid, netns, c) ?? { address: c.remote, port: c.remotePort };
    if (!players.has(peer.address)) return null;
    return this.#host.isProbe?.(peer.address, peer.port, c.localPort) ? null : peer;
  }

  /**
   * The player behind a connection through a proxy in the box (`socat`, a reverse proxy in
   * front of sshd or a web application, its upstream connection on loopback or another address
   * of the box): the process at the connection's other end, when it holds an established
   * connection with exactly one player, and the connections chain one way: the player connected
   * to the proxy and the proxy to this process (a service in front of which the proxy stands),
   * or this process to the proxy and the proxy to the player (a relay for a shell going out).
   * Not a server that a player and this process both connected to (a database the attacker
   * holds an idle connection to is not the attacker's way into its other clients). The
   * connection must have opened after the player's: one pooled before they came is not theirs.
   * A proxy serving several players at once could be carrying anyone's request: nobody's then.
   */
  #proxiedPeer(
    pid: number,
    table: Map<string, TcpConnection>,
    c: TcpConnection,
    netns: string,
    target: RefereeTarget,
    players: Set<string>,
  ): { remote: string; remotePort: number; openedAt: () => number | null } | null {
    let otherEnd: string | null = null;
    for (const [inode, entry] of table)
      if (
        entry.state === 'ESTABLISHED' &&
        entry.local === c.remote &&
        entry.localPort === c.remotePort &&
        entry.remote === c.local &&
        entry.remotePort === c.localPort
      ) {
        otherEnd = inode;
        break;
      }
    if (otherEnd === null) return null;
    const proxy = this.#holderOf(target, otherEnd);
    if (proxy === null || proxy === pid) return null;
    const served = new Map<string, { connection: TcpConnection; peer: { address: string; port: number } }>();
    for (const inode of socketInodes(proxy)) {
      const entry = table.get(inode);
      if (entry?.state !== 'ESTABLISHED') continue;
      const peer = this.#playerPeer(proxy, netns, entry, players);
      if (peer) served.set(peer.address, { connection: entry, peer });
    }
    if (served.size !== 1) return null;
    const { connection: player, peer } = [...served.values()][0]!;
    // Which way each hop was opened: the side that accepted it listens on its port.
    const inbound = accepted(table, c);
    if (inbound !== accepted(table, player)) return null;
    const playerKey = `${netns}|${player.local}:${player.localPort}>${player.remote}:${player.remotePort}`;
    const hopKey = `${netns}|${c.local}:${c.localPort}>${c.remote}:${c.remotePort}`;
    return {
      remote: peer.address,
      remotePort: peer.port,
      openedAt: () => {
        const playerOpened = this.#openedAt(playerKey);
        const hopOpened = this.#openedAt(hopKey);
        if (playerOpened === null || hopOpened === null) return null;
        // Opened before the player came (a pooled connection): never in their window.
        return hopOpened + CLOCK_SLACK_MS >= playerOpened ? playerOpened : 0;
      },
    };
  }

  /** The box's process holding socket `inode` (its cgroup's processes' descriptors, looked at briefly). */
  #holderOf(target: RefereeTarget, inode: string): number | null {
    let holders = this.#holders.get(target.boxId);
    if (!holders || holders.at < Date.now() - CONNTRACK_FRESH_MS) {
      holders = { at: Date.now(), byInode: new Map() };
      for (const pid of cgroupPids(target.cgroupPath))
        for (const socket of socketInodes(pid)) holders.byInode.set(socket, pid);
      this.#holders.set(target.boxId, holders);
    }
    return holders.byInode.get(inode) ?? null;
  }

  /**
   * The real peer of a connection whose addresses the box's own NAT rewrote (a `snat` in its
   * input hook hides who connected, a `dnat` on the way out hides whom a shell reached), from
   * the connection tracking of its network namespace. Null when nothing was rewritten (or the
   * kernel keeps no table to read).
   */
  #natPeer(pid: number, netns: string, c: TcpConnection): { address: string; port: number } | null {
    const view = `${c.local}:${c.localPort}>${c.remote}:${c.remotePort}`;
    let entries = this.#conntrack.get(netns);
    // Read again when old, or when it tracks connections (a NAT is in use) but not this one yet.
    const stale =
      !entries ||
      entries.at < Date.now() - CONNTRACK_FRESH_MS ||
      (entries.replies.size > 0 && !entries.replies.has(view) && entries.at < Date.now() - 20);
    if (stale) {
      entries = { at: Date.now(), replies: readConntrack(pid) };
      if (this.#conntrack.size > 1000) this.#conntrack.clear();
      this.#conntrack.set(netns, entries);
    }
    const original = entries!.replies.get(view);
    if (!original || (original.address === c.remote && original.port === c.remotePort)) return null;
    return original;
  }

  /** The command line: whole from /proc while the process lives, else what the event carried. */
  #command(event: ExecEvent): string {
    let argv = event.argv;
    if (event.argvTruncated) {
      const live = readText(`/proc/${event.pid}/cmdline`);
      if (live && live.length > TRACE_ARGV_BYTES) argv = live.replace(/\0+$/, '').split('\0');
    }
    const command = argv.join(' ');
    return event.argvTruncated && argv === event.argv ? `${command}…` : command;
  }

  #userName(watch: Watch, boxUid: number): string {
    if (!watch.users.has(boxUid)) {
      // The box's own passwd (box root may lie in it: the name is only shown, never trusted).
      const passwd = readBoxFile(watch.target.rootDir, 'etc/passwd') ?? '';
      for (const line of passwd.split('\n')) {
        const [name, , uid] = line.split(':');
        if (name && uid && /^\d+$/.test(uid)) watch.users.set(Number(uid), name.slice(0, 64));
      }
      if (!watch.users.has(boxUid)) watch.users.set(boxUid, String(boxUid));
    }
    return watch.users.get(boxUid)!;
  }

  #record(watch: Watch, event: ExecEvent, verdict: AttributedExec): void {
    const attackId = watch.attack.id;
    const user = this.#userName(watch, verdict.boxUid);
    const root = verdict.boxUid === 0;
    const firstFoothold = !root && !watch.footholdSeen;
    if (firstFoothold) watch.footholdSeen = true;
    // The foothold written below marks the attack held: the next pass that finds none of the
    // attacker's processes alive must write the eviction, even if no pass saw them alive.
    if (!root) watch.held = true;
    watch.unwritten.push({
      command: {
        key: `${event.ns}:${event.pid}`,
        time: new Date(this.#wall(event.ns)),
        user,
        uid: verdict.boxUid,
        cwd: verdict.cwd,
        command: verdict.command.slice(0, 2000),
        pid: verdict.pid,
        peer: verdict.peer,
      },
      then: root
        ? { kind: 'own', message: `Root shell: ${verdict.command}`.slice(0, 500) }
        : firstFoothold
          ? { kind: 'foothold', message: `User shell as ${user}: ${verdict.command}`.slice(0, 500) }
          : null,
    });
    // One write at a time per attack: what comes meanwhile goes with the next.
    if (watch.unwritten.length === 1)
      void this.#writes
        .run(attackId, () => this.#write(watch))
        .catch((err: unknown) => this.#log.error({ err, attackId }, 'Could not record a verdict'));
  }

  /** Writes an attack's verdicts so far, in order: each FOOTHOLD or OWN after the programs before it. */
  async #write(watch: Watch): Promise<void> {
    const attackId = watch.attack.id;
    const verdicts = watch.unwritten.splice(0);
    let batch: RecordedCommand[] = [];
    for (const { command, then } of verdicts) {
      batch.push(command);
      if (!then) continue;
      await this.#sink.recordCommands(attackId, batch);
      batch = [];
      if (then.kind === 'own') await this.#sink.recordOwn(attackId, then.message);
      else await this.#sink.recordFoothold(attackId, then.message);
    }
    await this.#sink.recordCommands(attackId, batch);
  }

  /**
   * Re-derives, for every attack, what the attacker holds: their processes that still live (and
   * are still the processes they were), root among them if one became root without an exec.
   */
  pass(): Promise<void> {
    // Reset in a callback: a pass with nothing to await would end before it was stored.
    this.#passing ??= this.#passAll().finally(() => (this.#passing = null));
    return this.#passing;
  }

  async #passAll(): Promise<void> {
    try {
      this.#syncClock();
      for (const watch of this.#watches.values()) await this.#passOne(watch);
    } catch (err) {
      this.#log.error({ err }, 'Referee pass failed');
    }
  }

  async #passOne(watch: Watch): Promise<void> {
    const started = performance.now();
    let live = 0;
    let rootNow: { pid: number; command: string } | null = null;
    for (const p of watch.judge.processes()) {
      const now = liveProcess(p.pid);
      // Gone, a thread, or the pid taken by a process born after the attacker's (/proc counts
      // from boot, the tracer without suspends: a second's slack).
      if (!now || now.tgid !== p.pid || bootNs(now.startTicks) > p.since + 1_000_000_000n) {
        watch.judge.forget(p.pid);
        continue;
      }
      live++;
      // Real root without an exec: a set-user-ID program (sudo parsing its rules) may be real
      // root for a moment of its own; its root counts when it runs something (an exec).
      if (now.uid === watch.target.uidBase && !p.setUid && !rootNow)
        rootNow = { pid: p.pid, command: p.command };
    }
    this.#load.passes++;
    this.#load.passMs += performance.now() - started;
    await this.#saveHeld(watch).catch((err: unknown) =>
      this.#log.warn({ err }, 'Could not keep the attacker’s processes on disk'),
    );
    const attackId = watch.attack.id;
    const held = live > 0;
    const changed = held !== watch.held;
    watch.held = held;
    if (!rootNow && !changed) return;
    await this.#writes.run(attackId, async () => {
      if (rootNow) await this.#sink.recordOwn(attackId, `Root shell: ${rootNow.command}`.slice(0, 500));
      else if (held) await this.#sink.recordFoothold(attackId, 'The attacker holds a shell.');
      else await this.#sink.recordEviction(attackId, 'The attacker no longer runs anything on the box.');
    });
  }

  /** Reads what the tracer has written and writes every verdict it leads to. */
  async settled(): Promise<void> {
    await this.#tracer.flush();
    for (let i = 0; i < 100 && [...this.#watches.values()].some((w) => w.waiting); i++)
      await new Promise((resolve) => setTimeout(resolve, LATER_MS));
    await this.pass();
    await this.#writes.idle();
  }
}

/** Where the host's cgroup tree is mounted, and whether it is the unified (v2) hierarchy. */
const CGROUP_ROOT = '/sys/fs/cgroup';
const UNIFIED = existsSync(path.join(CGROUP_ROOT, 'cgroup.controllers'));

/**
 * The processes of a cgroup and of those below it: the unified hierarchy's, or on a host with
 * the legacy ones the pids controller's (where the runtime puts every box too).
 */
function cgroupPids(cgroupPath: string): number[] {
  const pids: number[] = [];
  const walk = (dir: string, depth: number) => {
    const procs = readText(path.join(dir, 'cgroup.procs'));
    if (procs === null) return;
    for (const line of procs.split('\n')) if (line) pids.push(Number(line));
    if (depth > 16) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) walk(path.join(dir, entry.name), depth + 1);
  };
  walk(UNIFIED ? path.join(CGROUP_ROOT, cgroupPath) : path.join(CGROUP_ROOT, 'pids', cgroupPath), 0);
  return pids;
}

/** The network namespace of a process (its inode number), or '?' when it is gone. */
function netnsOf(pid: number): string {
  return /^net:\[(\d+)\]$/.exec(readLink(`/proc/${pid}/ns/net`) ?? '')?.[1] ?? '?';
}

/**
 * Whether the socket's side accepted the connection (a socket of its namespace listens on its
 * local port) rather than opened it.
 */
function accepted(table: Map<string, TcpConnection>, c: TcpConnection): boolean {
  for (const entry of table.values())
    if (
      entry.state === 'LISTEN' &&
      entry.localPort === c.localPort &&
      (entry.local === c.local || ANY_ADDRESS.test(entry.local))
    )
      return true;
  return false;
}

/** How long the players' addresses, once read, are used again (a player's new session is seen within it). */
const PLAYERS_FRESH_MS = 100;

/** A socket bound to every address: IPv4's, or IPv6's as /proc's table spells it. */
const ANY_ADDRESS = /^(0\.0\.0\.0|::|0(:0){7})$/;

/** Slack between openings the tracer timed on different CPUs. */
const CLOCK_SLACK_MS = 50;

/** How long a box namespace's connection tracking table, once read, is used again. */
const CONNTRACK_FRESH_MS = 200;

/**
 * The TCP entries of the connection tracking of `pid`'s network namespace (the kernel's
 * `/proc/PID/net/nf_conntrack`), by a box socket's view (`local:port>remote:port`) → the peer
 * really at the other end. Empty when the kernel offers no such file or tracks nothing there.
 */
function readConntrack(pid: number): Map<string, { address: string; port: number }> {
  const replies = new Map<string, { address: string; port: number }>();
  for (const { original: o, reply: r } of trackedTcp(pid)) {
    // A connection that came in: its reply tuple runs from the box's socket to the peer as the
    // socket sees it, and the original source is who arrived.
    replies.set(`${r.src}:${r.sport}>${r.dst}:${r.dport}`, { address: o.src, port: o.sport });
    // One that went out: its original tuple is the socket's view, and who answered is the peer
    // it reached (a destination NAT may have sent it elsewhere).
    replies.set(`${o.src}:${o.sport}>${o.dst}:${o.dport}`, { address: r.src, port: r.sport });
  }
  return replies;
}

/** Linux reports process start times in clock ticks of USER_HZ, 100 a second on every architecture it runs boxes on. */
const bootNs = (ticks: number): bigint => BigInt(ticks) * 10_000_000n;

function readLink(file: string): string | null {
  try {
    return readlinkSync(file);
  } catch {
    return null;
  }
}

/**
 * A small regular file of a box, read without following box root's links out of the box or
 * blocking on a FIFO (box root controls every file there); null when it is anything else.
 */
function readBoxFile(rootDir: string, relative: string): string | null {
  let fd: number | null = null;
  try {
    const real = realpathSync(path.join(rootDir, relative));
    if (!real.startsWith(`${rootDir}/`)) return null;
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > 1024 * 1024) return null;
    const buffer = Buffer.alloc(stat.size);
    const read = readSync(fd, buffer, 0, stat.size, 0);
    return buffer.toString('utf8', 0, read);
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** A process as /proc has it now: its thread group, real uid and start time. */
function liveProcess(pid: number): { tgid: number; uid: number; startTicks: number } | null {
  const status = readText(`/proc/${pid}/status`);
  const stat = readText(`/proc/${pid}/stat`);
  if (!status || !stat) return null;
  const tgid = /^Tgid:\s+(\d+)/m.exec(status);
  const uid = /^Uid:\s+(\d+)/m.exec(status);
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // A zombie (killed, not yet reaped) runs nothing.
  if (!tgid || !uid || fields[0] === 'Z') return null;
  return { tgid: Number(tgid[1]), uid: Number(uid[1]), startTicks: Number(fields[19]) };
}
