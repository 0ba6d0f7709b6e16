/**
 * The referee's rules for one attack (docs/detection.md, "The rules"), as pure logic over what
 * the host sees. A process is the attacker's when it runs a program started by an execve of a
 * new program in a process tree that holds an established connection from the attacker's VPN
 * address (opened during the window), or that descends from a process of the attacker's; a
 * fork of the attacker's process runs the attacker's program too. Daemons that merely served
 * the attacker (sshd before login, a web server's workers) never exec a new program for them
 * and stay nobody's. Whether the attacker still holds a process is re-derived from the live
 * processes on every pass.
 *
 * Two watchers use it: the host's referee of the local runtime (api/src/referee), for one attack
 * at a time, and the agent inside a virtual machine (operator/src/agent), for every peer at once
 * (there the platform checks the window against what its routers saw).
 */

/** A program start as the judge needs it (the host's tracer and the box agent both make these). */
export interface ExecFacts {
  /** When it happened, in the watcher's clock (nanoseconds; see JudgeOptions.wall). */
  ns: bigint;
  pid: number;
  /** Real and effective uid (host uids on the local runtime: box uid + the box's base). */
  uid: number;
  euid: number;
  /** The program the process ran before this exec (device and inode), 0n when not seen. */
  previousProgram: bigint;
  program: bigint;
  /** The program the parent runs (0n when not known). */
  parentProgram: bigint;
  /** The program file's mode (set-user-ID and friends). */
  mode: number;
  /** Parent first, up to the init. */
  ancestors: number[];
  /** The working directory inside the box. */
  cwd: string;
}

/** A process made by fork (or clone) that has run no new program yet. */
export interface ForkFacts {
  ns: bigint;
  parent: number;
  child: number;
}

/** A VPN address of the attacker and since when (epoch ms) they hold it. */
export interface AttackerAddress {
  address: string;
  since: number;
}

/** A TCP connection a process holds now (established, or closed by the peer but not by the process). */
export interface HeldConnection {
  remote: string;
  remotePort: number;
  /** The box's port of it (a daemon that accepted it listens there). */
  localPort: number;
  /**
   * When it became established (epoch ms), or null while the tracer has not told (a line from
   * another CPU may come later; asked again then).
   */
  openedAt: () => number | null;
}

/** What the judge asks of the host about live processes. */
export interface HostFacts {
  /** Whether `pid` is a process of the attacked box (and not its init, which hands sockets to services). */
  judges(pid: number): boolean;
  /** Connections a process holds now (empty when it is gone). */
  connections(pid: number): HeldConnection[];
  /** Whether a process listens on a TCP port of the box (a daemon accepting connections). */
  listens(pid: number, port: number): boolean;
}

export interface JudgeOptions {
  /** The host uid of the box's root (the base of its uid range). */
  uidBase: number;
  /** When the attack window opened (epoch ms). */
  windowStart: number;
  /** When the tracer started watching (epoch ms): connections older than that have no known start. */
  watchingSince: () => number;
  /** The attacker's address a connection's remote end is, with since when they hold it; else null. */
  attackerAddress: (remote: string) => AttackerAddress | null;
  facts: HostFacts;
  /** The tracer's clock (monotonic ns) as the wall clock (epoch ms). */
  wall: (ns: bigint) => number;
  /**
   * Slack for clocks read in different places (default 50 ms: the tracer's monotonic clock
   * against the wall clock); a watcher that learns of connections later says how much later.
   */
  clockSlackMs?: number;
}

export interface AttackerProcess {
  pid: number;
  /** Monotonic ns of the exec or fork that made it the attacker's (a later process on the same pid started after). */
  since: bigint;
  /** Host uid it ran with then. */
  uid: number;
  /** The attacker address (and its port) whose connection the process tree held. */
  peer: string;
  peerPort: number;
  command: string;
  /** Whether its program is set-user-ID (its real uid may be 0 for a moment, as sudo's is). */
  setUid: boolean;
}

/** An exec the judge gave to the attacker. */
export interface AttributedExec {
  pid: number;
  peer: string;
  peerPort: number;
  /** Real uid inside the box (0: root). */
  boxUid: number;
  boxEuid: number;
  command: string;
  cwd: string;
}

/** When an exec happened (epoch ms), and the daemon (pid) whose program it may be executing again. */
interface ExecContext {
  execAt: number;
  daemon: number | null;
}

const CLOCK_SLACK_MS = 50;

/** The attacker's end of the connection an attribution rests on. */
interface Peer {
  address: string;
  port: number;
}

export class AttackJudge {
  readonly #o: JudgeOptions;
  readonly #slack: number;
  readonly #attacker = new Map<number, AttackerProcess>();

  constructor(options: JudgeOptions) {
    this.#o = options;
    this.#slack = options.clockSlackMs ?? CLOCK_SLACK_MS;
  }

  /** The attacker's process at `pid`, if it is one. */
  process(pid: number): AttackerProcess | undefined {
    return this.#attacker.get(pid);
  }

  /** The processes the attacker holds, as last known (the host pass removes the dead). */
  processes(): AttackerProcess[] {
    return [...this.#attacker.values()];
  }

  /** Takes back a process of the attacker's known before (a referee that restarted). */
  adopt(process: AttackerProcess): void {
    this.#attacker.set(process.pid, { ...process });
  }

  forget(pid: number): void {
    this.#attacker.delete(pid);
  }

  /** A forked child runs its parent's program: the attacker's when the parent's is. */
  fork(event: ForkFacts): void {
    const parent = this.#attacker.get(event.parent);
    if (parent) this.#attacker.set(event.child, { ...parent, pid: event.child, since: event.ns });
  }

  /**
   * Judges one exec of the box: answers the attribution when the new program is the
   * attacker's, and records the process as theirs (or as nobody's: a process of the attacker's
   * that the attacker's tree no longer reaches cannot become the defender's by an exec, but an
   * exec outside it clears a stale entry on a reused pid).
   */
  exec(
    event: ExecFacts,
    command: string,
  ): AttributedExec | null | { retry: (final: boolean) => AttributedExec | null | 'unknown' } {
    const found = this.#peerOf(event);
    if (found && 'address' in found) return this.#attribute(event, command, found);
    if (found === null) {
      this.#attacker.delete(event.pid);
      return null;
    }
    // Held connections from the attacker whose opening the tracer has not told yet: the same
    // connections are asked again (the processes holding them may be gone by then).
    return {
      // `final`: the tracer will tell nothing more; until then 'unknown' while no opening is told.
      retry: (final: boolean) => {
        let unknown = false;
        for (const { connection, address } of found.unknown) {
          const openedAt = connection.openedAt();
          if (this.#counts(connection, openedAt, address, found.context, final))
            return this.#attribute(event, command, peerOf(connection));
          unknown ||= openedAt === null;
        }
        return unknown && !final ? 'unknown' : null;
      },
    };
  }

  #attribute(event: ExecFacts, command: string, peer: Peer): AttributedExec {
    this.#attacker.set(event.pid, {
      pid: event.pid,
      since: event.ns,
      uid: event.uid,
      peer: peer.address,
      peerPort: peer.port,
      command,
      setUid: (event.mode & 0o4000) !== 0,
    });
    return {
      pid: event.pid,
      peer: peer.address,
      peerPort: peer.port,
      boxUid: event.uid - this.#o.uidBase,
      boxEuid: event.euid - this.#o.uidBase,
      command,
      cwd: event.cwd,
    };
  }

  /**
   * The attacker address the exec is attributed to, or null; or the attacker's held
   * connections whose opening the tracer has not told yet.
   */
  #peerOf(
    event: ExecFacts,
  ):
    | Peer
    | null
    | { unknown: { connection: HeldConnection; address: AttackerAddress }[]; context: ExecContext } {
    // The process itself, or an ancestor, runs a program of the attacker's.
    for (const pid of [event.pid, ...event.ancestors]) {
      const known = this.#attacker.get(pid);
      if (known) return { address: known.peer, port: known.peerPort };
    }
    // An exec without ancestors was not read whole (lost lines): nobody's.
    const parent = event.ancestors[0];
    if (parent === undefined) return null;
    // A daemon's child executing the daemon's own program again for a connection the daemon
    // accepted (sshd re-executes itself for each connection, before anyone logged in) runs no new
    // program. (A replaced program the tracer did not see counts as the parent's.)
    const reexec =
      (event.previousProgram === 0n || event.previousProgram === event.program) &&
      event.parentProgram === event.program;
    const context: ExecContext = {
      execAt: this.#o.wall(event.ns),
      daemon: reexec ? parent : null,
    };
    const unknown: { connection: HeldConnection; address: AttackerAddress }[] = [];
    for (const pid of [event.pid, ...event.ancestors]) {
      if (!this.#o.facts.judges(pid)) continue;
      for (const connection of this.#o.facts.connections(pid)) {
        const address = this.#o.attackerAddress(connection.remote);
        if (!address) continue;
        const openedAt = connection.openedAt();
        if (openedAt === null) unknown.push({ connection, address });
        else if (this.#counts(connection, openedAt, address, context, false)) return peerOf(connection);
      }
    }
    return unknown.length ? { unknown, context } : null;
  }

  /**
   * Whether a held connection makes the exec the attacker's: it opened before the exec (an exec
   * judged late is not for a connection that came after it), in the window, and not on a port
   * of a daemon that re-executes itself for it.
   */
  #counts(
    connection: HeldConnection,
    openedAt: number | null,
    address: AttackerAddress,
    context: ExecContext,
    final: boolean,
  ): boolean {
    if (!this.#openedInWindow(openedAt, address, final)) return false;
    const opened = openedAt ?? this.#o.watchingSince();
    if (opened > context.execAt + this.#slack) return false;
    return context.daemon === null || !this.#o.facts.listens(context.daemon, connection.localPort);
  }

  /**
   * A connection counts when it opened during the window and while the attacker held the
   * address (an older one from the same address was someone else's: the owner's, or a
   * previous holder's of a reused VPN address). A connection the tracer never saw opening is
   * older than the tracer: it counts, once the tracer has been asked again (`final`), only when
   * the tracer is younger than the window and the address (an API that came up mid-attack).
   */
  #openedInWindow(openedAt: number | null, address: AttackerAddress, final: boolean): boolean {
    const after = Math.max(this.#o.windowStart, address.since) - this.#slack;
    if (openedAt !== null) return openedAt >= after;
    return final && this.#o.watchingSince() > after;
  }
}

const peerOf = (connection: HeldConnection): Peer => ({
  address: connection.remote,
  port: connection.remotePort,
});
