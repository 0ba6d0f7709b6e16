import { randomInt } from 'node:crypto';
import {
  CheckNotRun,
  PROBE_PORTS,
  httpRequest,
  tcpExchange,
  type CheckTransports,
} from '@exploit-grid/operator/catalogue';
import { trackedTcp } from '../../referee/conntrack.ts';
import type { RouterNetwork } from './network.ts';

/** Where a box's services are checked from: the box's address and the transports that reach it. */
export interface ServiceProbe {
  address: string;
  /** The VPN address the box sees the checks come from (the attacker's). */
  speakingAs: string;
  transports: CheckTransports;
}

/** How long the router lets a probe's connection open (it stays open as long as it lasts once opened). */
const ALLOW_SECONDS = 30;
/**
 * How long after a check the referee still knows its connection (it judges a trace that runs behind by a
 * second or so).
 */
const REMEMBER_MS = 15_000;

/**
 * The platform's service checks during attacks on the local runtime (docs/game-rules.md): connections from
 * the host that the router lets through to one box's port and renames to the attacker's VPN address, so that
 * the box sees its attacker (a defender who refuses the attacker refuses the checks). Each one uses a random
 * source port, registered with the router first. The referee asks `isProbe` which connections were checks
 * (a service that runs a program for a check, NetDiag's ping, must not credit the attacker), and the
 * router's own connection tracking answers: only a check's connection came from the host.
 */
export class ArenaProbe {
  readonly #router: RouterNetwork;
  /** A process in the router's network namespace (an OpenVPN server), whose /proc shows its conntrack. */
  readonly #routerPid: () => number | null;
  /** `speakingAs:port>boxPort` of each check's connection as registered → until when it is remembered. */
  readonly #registered = new Map<string, number>();
  /** `speakingAs>boxPort` of checks made lately → until when (see isProbe). */
  readonly #recent = new Map<string, number>();
  /** The router's tracked checks as last read, and when a check last started (see isProbe). */
  #conntrack = { at: 0, probes: new Set<string>() };
  #lastStart = 0;

  constructor(router: RouterNetwork, routerPid: () => number | null) {
    this.#router = router;
    this.#routerPid = routerPid;
  }

  /**
   * Whether a connection a box holds (its peer as it arrived, and the box's own port) is one of the
   * platform's checks. Mostly it kept the source port it was registered with. Where an attacker held that
   * port to the same box port, the router renamed the check to another port: then the router's own
   * connection tracking answers (a check is a connection that came from the host), read only while a check
   * of that attacker's to that port is recent. The attacker cannot make one of theirs look like a check.
   */
  isProbe(peerAddress: string, peerPort: number, boxPort: number): boolean {
    const now = Date.now();
    if ((this.#registered.get(`${peerAddress}:${peerPort}>${boxPort}`) ?? 0) > now) return true;
    if ((this.#recent.get(`${peerAddress}>${boxPort}`) ?? 0) <= now) return false;
    // Read at most every 20 ms, but again whenever a check started about the time of the last read (its
    // connection may not have been tracked yet): a stale answer would credit the check to the attacker.
    if (now - this.#conntrack.at > 20 || this.#lastStart >= this.#conntrack.at - 100)
      this.#conntrack = { at: now, probes: this.#readProbes() };
    return this.#conntrack.probes.has(`${peerAddress}:${peerPort}>${boxPort}`);
  }

  /** The router's tracked connections from the host to a box, by how the box sees them (`peer:port>boxPort`). */
  #readProbes(): Set<string> {
    const pid = this.#routerPid();
    const host = this.#router.hostTransitAddress;
    // Original: host → box; reply: box → the renamed peer.
    return new Set(
      pid === null
        ? []
        : trackedTcp(pid)
            .filter((c) => c.original.src === host)
            .map((c) => `${c.reply.dst}:${c.reply.dport}>${c.reply.sport}`),
    );
  }

  /** Drops what is no longer remembered (now and then: the maps stay small). */
  #forget(): void {
    if (this.#registered.size < 4096) return;
    const now = Date.now();
    for (const map of [this.#registered, this.#recent])
      for (const [key, until] of map) if (until <= now) map.delete(key);
  }

  /** Transports to `boxAddress` that the box sees come from `speakingAs`. */
  transports(boxAddress: string, speakingAs: string): CheckTransports {
    return {
      http: (url, init) =>
        this.#connect(boxAddress, speakingAs, Number(new URL(url).port) || 80, (localPort) =>
          httpRequest(url, { ...init, localAddress: this.#router.hostTransitAddress, localPort }),
        ),
      tcp: (address, port, init) =>
        this.#connect(address, speakingAs, port, (localPort) =>
          tcpExchange(address, port, { ...init, localAddress: this.#router.hostTransitAddress, localPort }),
        ),
    };
  }

  async #connect<T>(
    boxAddress: string,
    speakingAs: string,
    boxPort: number,
    connect: (localPort: number) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const port = randomInt(PROBE_PORTS.first, PROBE_PORTS.last + 1);
      await this.#router
        .allowProbe(port, boxAddress, boxPort, speakingAs, ALLOW_SECONDS)
        .catch((err: unknown) => {
          throw new CheckNotRun(`the router did not let the check through: ${String(err)}`);
        });
      const registered = `${speakingAs}:${port}>${boxPort}`;
      const recent = `${speakingAs}>${boxPort}`;
      this.#lastStart = Date.now();
      this.#registered.set(registered, Number.POSITIVE_INFINITY);
      this.#recent.set(recent, Number.POSITIVE_INFINITY);
      try {
        return await connect(port);
      } catch (err) {
        // Another socket of the host holds that port: another one.
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      } finally {
        this.#registered.set(registered, Date.now() + REMEMBER_MS);
        this.#recent.set(recent, Date.now() + REMEMBER_MS);
        this.#forget();
      }
    }
    throw new CheckNotRun('no free source port on the host');
  }
}
