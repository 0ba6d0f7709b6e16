import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { createOrchestrator } from './orchestrator-factory.ts';

/**
 * `make boxes-down`: stops every box and VPN server of the local runtime and removes what it
 * made on the host (network namespaces, mounts, cgroups). Box disks are kept unless --purge;
 * the next `make run` starts the boxes that should be running again.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config);
  const orchestrator = await createOrchestrator(config, logger);
  if (!orchestrator.destroy) {
    logger.info(`Nothing to take down: ${orchestrator.status().reason ?? orchestrator.name}`);
    return;
  }
  await orchestrator.destroy({ keepDisks: !process.argv.includes('--purge') });
  logger.info('Local box runtime stopped and removed from the host');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
