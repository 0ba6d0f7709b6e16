import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The HTTP server box agents report to, on one address (never the public one). Agents keep
 * their connection open between reports; closing cuts them (they retry and lose nothing).
 */
export class AgentEndpoint {
  #server: Server | null = null;

  /** host:port it listens on (the port the system picked when asked for 0). */
  get address(): { host: string; port: number } | null {
    const address = this.#server?.address() as AddressInfo | null | undefined;
    return address ? { host: address.address, port: address.port } : null;
  }

  async listen(handler: RequestListener, host: string, port: number): Promise<void> {
    if (this.#server) return;
    const server = createServer(handler);
    // Agents send a report every few hundred milliseconds: keep their connections.
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#server = server;
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}
