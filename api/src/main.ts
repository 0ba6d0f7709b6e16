import { ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger } from './logger.ts';
import { startPlatform } from './server.ts';
import { HOST_CHANNEL_ENV } from './host/protocol.ts';
import { runAsHost } from './host/launch.ts';

/** Entry point of `make run` and of the container image. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee the configuration table in README.md.\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config);

  // As root, this process does the host work and runs the API as its own user beside it. With
  // ORCHESTRATOR=kubernetes there is no host work, and the cluster's credentials are root's files
  // (a kubeconfig and the files it names): that API stays one process (in a cluster it is not root).
  if (process.getuid?.() === 0 && config.apiUser !== 'root' && config.orchestrator !== 'kubernetes') {
    try {
      process.exit(await runAsHost(config, logger));
    } catch (err) {
      logger.fatal({ err }, 'Could not start');
      setTimeout(() => process.exit(1), 100);
      return;
    }
  }

  let shuttingDown = false;
  let firstSignalAt = 0;
  let platform: Awaited<ReturnType<typeof startPlatform>> | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      // Ctrl-C reaches every process of a terminal's process group, and supervisors
      // (node --watch, make dev) forward it too: a burst of signals is one request.
      // Another one a moment later means "stop now".
      if (Date.now() - firstSignalAt < 1000) return;
      logger.warn({ signal }, 'Second signal: exiting now');
      process.exit(1);
    }
    shuttingDown = true;
    firstSignalAt = Date.now();
    logger.info({ signal }, 'Shutting down');
    // A signal can come while the platform is still starting (its port answers before the box
    // machinery is up): main() closes it as soon as startPlatform returns, or exits if it fails.
    // Exiting here instead would orphan the embedded PostgreSQL.
    if (!platform) return;
    void platform.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'Shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  // Started by the host process: without it there are no boxes to run, so stop as well.
  if (process.env[HOST_CHANNEL_ENV] === '1') process.once('disconnect', () => shutdown('SIGTERM'));

  try {
    platform = await startPlatform(config, logger);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      logger.fatal(
        `Port ${config.port} on ${config.host} is already in use: stop the other process or set PORT.`,
      );
    } else {
      logger.fatal({ err }, 'Could not start');
    }
    // Let a pretty-printing log transport flush before exiting.
    setTimeout(() => process.exit(1), 100);
    return;
  }
  if (shuttingDown) {
    await platform.close();
    process.exit(0);
  }
  logger.info(
    { url: platform.url, publicUrl: config.publicUrl },
    `Exploit Grid is up on ${config.publicUrl}`,
  );
}

void main();
