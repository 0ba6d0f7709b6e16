/**
 * The network end of a service check (`runCheck`'s transports), from a chosen local address and port: the
 * local runtime's checks from the host (api/src/boxes/local/probe.ts) and the Kubernetes VPN servers' checks
 * from their arena address (operator/src/vpnpool/checker.ts) both connect this way, so that a box sees the
 * same client either way.
 */
import http from 'node:http';
import net from 'node:net';

/**
 * The source ports checks use: Linux's default ephemeral range, the ports an attacker's own Linux client
 * uses, so that a port tells a box nothing.
 */
export const PROBE_PORTS = { first: 32768, last: 60999 } as const;
/**
 * The largest TCP segment a connection into the arena announces (SYNs above it are clamped by the routers of
 * both runtimes): what OpenVPN's own clamp leaves or less, so that the platform's checks and every player's
 * connections look the same. Every packet into the arena leaves its router with TTL 64 too.
 */
export const ARENA_MSS = 1300;
/** What a check reads of an answer at most. */
export const MAX_ANSWER = 256 * 1024;

export interface Source {
  localAddress: string;
  localPort: number;
}

/** One HTTP request with `connection: close`, as a browser on Linux would send it; the answer cut at MAX_ANSWER. */
export function httpRequest(
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
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).subarray(0, MAX_ANSWER).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Connects, sends `send`, and answers what came back once it holds `contains` (or the peer closed). */
export function tcpExchange(
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
