import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  readlinkSync,
  realpathSync,
} from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AttackJudge, type AttributedExec, type HeldConnection } from '@exploit-grid/operator/judge';
import { listensOn, socketInodes, tcpTable, type TcpConnection } from '@exploit-grid/operator/proc';
import type { RecordedCommand } from '../attacks/service.ts';
import type { Attack } from '../contracts/index.ts';
import type { VpnSession } from '../boxes/orchestrator.ts';
import { KeyedLock } from '../keyed-lock.ts';
import type { Logger } from '../logger.ts';
import { TRACE_ARGV_BYTES, type ExecEvent, type ForkEvent, type TcpEvent, type TraceEvent } from './trace.ts';
import type { Tracer } from './tracer.ts';

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
  readonly #recent: TraceEvent[] = [];
  /** Box-side TCP connections with VPN peers: `box:port>peer:port` → when they became established. */
  readonly #opened = new Map<string, number>();
  /** Verdicts of one attack are written in the order they were made. */
  readonly #writes = new KeyedLock();
  #timer: NodeJS.Timeout | null = null;
  #loadTimer: NodeJS.Timeout | null = null;
  /**
   * What the referee's own code did on the API's main thread since it started: trace events
   * handled and passes made, and the time they took (synchronous work: its CPU time).
   */
  readonly #load = { since: Date.now(), events: 0, eventMs: 0, passes: 0, passMs: 0 };
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
  load(): { since: number; events: number; eventMs: number; passes: number; passMs: number } {
    return { ...this.#load };
  }

  async #writeLoad(): Promise<void> {
    await writeFile(path.join(this.#tracer.dir, 'load.json'), JSON.stringify(this.load())).catch(
      () => undefined,
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
    const target = await this.#host.target(attack.box.id).finally(() => this.#starting.delete(attack.id));
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
    this.#watches.set(attack.id, watch);
    this.#catchUp(watch);
  }

  unwatch(attackId: string): void {
    this.#watches.delete(attackId);
    if (this.#watches.size === 0) void this.#tracer.rotate().catch(() => undefined);
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
      this.#opened.delete(key);
      return;
    }
    this.#opened.set(key, this.#wall(event.ns));
    // Connections whose close was never seen (a box destroyed under them) must not pile up.
    if (this.#opened.size > 200_000) this.#opened.delete(this.#opened.keys().next().value!);
  }

  /** Whether an exec event is of this box's processes (its cgroup), judged by the process or its parent. */
  #belongs(event: ExecEvent, target: RefereeTarget): boolean {
    // A cgroup's id names one cgroup for good: what its first process said holds for the rest
    // (a storm of programs in one cgroup reads /proc once).
    const known = target.cgroups.get(event.cgroup);
    if (known !== undefined) return known;
    for (const [i, pid] of [event.pid, ...event.ancestors.slice(0, 3)].entries()) {
      const cgroup = readText(`/proc/${pid}/cgroup`);
      if (cgroup === null) continue;
      const inBox = cgroup.includes(target.cgroupPath);
      if (i === 0 && event.cgroup !== 0n) {
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
    const netns = /^net:\[(\d+)\]$/.exec(readLink(`/proc/${pid}/ns/net`) ?? '')?.[1] ?? '?';
    const held: HeldConnection[] = [];
    for (const inode of inodes) {
      const c: TcpConnection | undefined = table.get(inode);
      if (c?.state !== 'ESTABLISHED' || c.local !== target.address) continue;
      const key = `${netns}|${c.local}:${c.localPort}>${c.remote}:${c.remotePort}`;
      held.push({
        remote: c.remote,
        remotePort: c.remotePort,
        localPort: c.localPort,
        openedAt: () => this.#opened.get(key) ?? null,
      });
    }
    return held;
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

  /** Reads what the tracer has written and writes every verdict it leads to (tests). */
  async settled(): Promise<void> {
    await this.#tracer.flush();
    for (let i = 0; i < 100 && [...this.#watches.values()].some((w) => w.waiting); i++)
      await new Promise((resolve) => setTimeout(resolve, LATER_MS));
    await this.pass();
    await this.#writes.idle();
  }
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
