import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, defineConfig } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.ts';
import { entities } from './entities.ts';
import { migrations } from './migrations/index.ts';

export type Orm = MikroORM;

export function ormConfig(databaseUrl: string, logger: Logger) {
  const log = logger.child({ component: 'orm' });
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: {
      migrationsList: migrations,
      snapshot: false,
      transactional: true,
      allOrNothing: true,
    },
    pool: { min: 0, max: 10 },
    // Request handlers fork the EntityManager explicitly; the global one is off limits.
    allowGlobalContext: false,
    loggerFactory: () => ({
      log: (namespace, message) => log.debug({ namespace }, message),
      error: (namespace, message) => log.error({ namespace }, message),
      // 57P01 "terminating connection due to administrator command" is PostgreSQL
      // shutting down, which is expected when Ctrl-C reaches it together with us.
      warn: (namespace, message) =>
        message.includes('administrator command')
          ? log.debug({ namespace }, message)
          : log.warn({ namespace }, message),
      logQuery: (context) => log.trace({ query: context.query, took: context.took }, 'Query'),
      setDebugMode: () => undefined,
      isEnabled: () => true,
    }),
  });
}

/** Connects and applies every pending migration (all or nothing). */
export async function openDatabase(databaseUrl: string, logger: Logger): Promise<Orm> {
  const orm = await MikroORM.init(ormConfig(databaseUrl, logger));
  try {
    const applied = await orm.migrator.up();
    if (applied.length > 0) {
      logger.info({ migrations: applied.map((m) => m.name) }, 'Applied database migrations');
    }
  } catch (err) {
    await orm.close(true);
    throw err;
  }
  return orm;
}

/** True when a trivial query succeeds within the timeout. */
export async function pingDatabase(orm: Orm, timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([orm.em.fork().getConnection().execute('select 1'), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
