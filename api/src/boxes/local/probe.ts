import http from 'node:http';
import net from 'node:net';
import { CheckNotRun, type CheckTransports } from '@exploit-grid/operator/catalogue';
import type { RouterNetwork } from './network.ts';

/** Where a box's services are checked from: the box's address and the transports that reach it. */
export interface ServiceProbe {
  address: string;
  /** The VPN address the box sees the checks come from (the attacker's). */
  speakingAs: string;
  transports: CheckTransports;
}

/** The source ports probes use on the host's transit address (above Linux's default ephemeral range). */
export const PROBE_PORTS = { first: 61000, count: 1000 } as const;
/** How long the router lets a probe's connection open (it stays open as long as it lasts once opened). */
const ALLOW_SECONDS = 30;
/**
 * How long after a probe the referee still knows its connection (it judges a trace that runs behind,
 * by a second or so). Short: the attacker's own connections from the same port are theirs again after it.
 */
const REMEMBER_MS = 15_000;
/** What a probe reads of an answer at most. */
const MAX_ANSWER = 256 * 1024;

/**
 * The platform's service checks during attacks on the local runtime (docs/game-rules.md): connections from
 * the host that the router lets through to one box and renames to the attacker's VPN address, so that the
 * box sees its attacker (a defender who refuses the attacker refuses the checks). Each one uses a source
 * port of its own, registered with the router first; the referee is told which connections they were, so
 * that a service running a program for a check (NetDiag's ping) is not taken for the attacker's.
 */
export class ArenaProbe {
  readonly #router: RouterNetwork;
  #next = 0;
  /** `speakingAs:port` → until when the referee ignores it (epoch ms). */
  readonly #probes = new Map<string, number>();

  constructor(router: RouterNetwork) {
    this.#router = router;
  }

  /**
   * Whether a connection a box holds (by its peer as it arrived) was one of the platform's probes. The box's
   * own port is left out: box root may move a service (a `dnat` to another port) and still serve it.
   */
  isProbe(peerAddress: string, peerPort: number): boolean {
    const until = this.#probes.get(`${peerAddress}:${peerPort}`);
    return until !== undefined && until > Date.now();
  }

  /** Transports to `boxAddress` that the box sees come from `speakingAs`. */
  transports(boxAddress: string, speakingAs: string): CheckTransports {
    return {
      http: (url, init) =>
        this.#connect(boxAddress, speakingAs, (localPort) =>
          httpRequest(url, { ...init, localAddress: this.#router.hostTransitAddress, localPort }),
        ),
      tcp: (address, port, init) =>
        this.#connect(address, speakingAs, (localPort) =>
          tcpExchange(address, port, { ...init, localAddress: this.#router.hostTransitAddress, localPort }),
        ),
    };
  }

  async #connect<T>(
    boxAddress: string,
    speakingAs: string,
    connect: (localPort: number) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const port = PROBE_PORTS.first + (this.#next++ % PROBE_PORTS.count);
      await this.#router.allowProbe(port, boxAddress, speakingAs, ALLOW_SECONDS).catch((err: unknown) => {
        throw new CheckNotRun(`the router did not let the check through: ${String(err)}`);
      });
      const key = `${speakingAs}:${port}`;
      this.#probes.set(key, Number.POSITIVE_INFINITY);
      try {
        return await connect(port);
      } catch (err) {
        // Another socket of the host holds that port: the next one.
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw err;
      } finally {
        this.#probes.set(key, Date.now() + REMEMBER_MS);
        this.#forget();
      }
    }
  }

  #forget(): void {
    if (this.#probes.size < 2 * PROBE_PORTS.count) return;
    const now = Date.now();
    for (const [key, until] of this.#probes) if (until <= now) this.#probes.delete(key);
  }
}

interface Source {
  localAddress: string;
  localPort: number;
}

function httpRequest(
  url: string,
  init: { method: 'GET' | 'POST'; form?: Record<string, string>; timeoutMs: number } & Source,
): Promise<{ status: number; body: string }> {
  const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: init.method,
        agent: false,
        localAddress: init.localAddress,
        localPort: init.localPort,
        headers: {
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)',
          connection: 'close',
          ...(body !== undefined
            ? {
                'content-type': 'application/x-www-form-urlencoded',
                'content-length': Buffer.byteLength(body),
              }
            : {}),
        },
        signal: AbortSignal.timeout(init.timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size >= MAX_ANSWER) return;
          chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Connects, sends `send`, and answers what came back once it holds `contains` (or the peer closed). */
function tcpExchange(
  address: string,
  port: number,
  init: { send: string; contains: string; timeoutMs: number } & Source,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = net.connect({
      host: address,
      port,
      localAddress: init.localAddress,
      localPort: init.localPort,
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`timed out after ${init.timeoutMs / 1000} s`));
    }, init.timeoutMs);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    socket.on('connect', () => {
      if (init.send) socket.write(init.send);
    });
    socket.on('data', (chunk: Buffer) => {
      if (received.length < MAX_ANSWER) received += chunk.toString('latin1');
      if (received.includes(init.contains)) done();
    });
    socket.on('end', done);
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
