import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import type { Config } from './config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded-postgres.ts';
import { openDatabase, type Orm } from './db/orm.ts';
import type { Logger } from './logger.ts';
import { createRealtime, rejectAllTokens, type Realtime, type TokenVerifier } from './realtime/io.ts';

export interface Platform {
  /** Where the server listens, e.g. http://127.0.0.1:3000. */
  url: string;
  orm: Orm;
  realtime: Realtime;
  httpServer: HttpServer;
  /** Stops everything that was started, in reverse order. Safe to call twice. */
  close(): Promise<void>;
}

export interface PlatformOptions {
  verifyToken?: TokenVerifier;
}

/** Starts the database (embedded when DATABASE_URL is unset), the HTTP server and Socket.IO. */
export async function startPlatform(
  config: Config,
  logger: Logger,
  options: PlatformOptions = {},
): Promise<Platform> {
  const cleanups: (() => Promise<void>)[] = [];
  const runCleanups = async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (err) {
        logger.error({ err }, 'Shutdown step failed');
      }
    }
    cleanups.length = 0;
  };

  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir: config.dataDir, logger });
      cleanups.push(() => embedded.stop());
      databaseUrl = embedded.url;
    }
    const orm = await openDatabase(databaseUrl, logger);
    cleanups.push(() => orm.close());

    const app = createApp({ config, logger, orm });
    const httpServer = createServer(app);
    const realtime = createRealtime(httpServer, {
      verifyToken: options.verifyToken ?? rejectAllTokens,
      logger,
    });

    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(config.port, config.host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
    cleanups.push(() => closeHttp(httpServer, realtime, config.shutdownTimeoutMs));

    const { port } = httpServer.address() as AddressInfo;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host === '0.0.0.0' || host === '[::]' ? 'localhost' : host}:${port}`;

    let closing: Promise<void> | undefined;
    return { url, orm, realtime, httpServer, close: () => (closing ??= runCleanups()) };
  } catch (err) {
    await runCleanups();
    throw err;
  }
}

/** Stops accepting, disconnects sockets, lets requests in flight finish, then cuts what is left. */
async function closeHttp(httpServer: HttpServer, realtime: Realtime, timeoutMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
  realtime.io.disconnectSockets(true);
  await realtime.io.close().catch(() => undefined);
  httpServer.closeIdleConnections();
  const timer = setTimeout(() => httpServer.closeAllConnections(), timeoutMs);
  await closed;
  clearTimeout(timer);
}
