/**
 * The operator's HTTP endpoints: `/metrics` (Prometheus), `/healthz` (the process serves and its
 * loop turns: liveness) and `/readyz` (its caches are synced, or it waits as a follower:
 * readiness). Nothing else; no request body is read.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.ts';

export interface HealthSource {
  ready(): { ok: boolean; reason: string };
}

export async function serveOperatorHttp(
  port: number,
  host: string,
  metrics: Metrics,
  health: HealthSource,
): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://operator');
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    if (request.method !== 'GET') return send(405, 'text/plain', 'method not allowed\n');
    switch (url.pathname) {
      case '/healthz':
        return send(200, 'text/plain', 'ok\n');
      case '/readyz': {
        const { ok, reason } = health.ready();
        return send(ok ? 200 : 503, 'text/plain', `${reason}\n`);
      }
      case '/metrics':
        metrics.registry.metrics().then(
          (text) => send(200, metrics.registry.contentType, text),
          (error: unknown) => send(500, 'text/plain', `${String(error)}\n`),
        );
        return;
      default:
        return send(404, 'text/plain', 'not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
