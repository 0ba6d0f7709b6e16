import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase, type Orm } from '../db/orm.ts';
import { startPlatform, type Platform, type PlatformOptions } from '../server.ts';
import { testLogger } from './logger.ts';
import { createTestDatabase } from './setup.ts';

export { testLogger };

/** Test settings: a free port; argon2 at its cheapest (tests hash a lot; production cost is tested apart). */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    LOG_FORMAT: 'json',
    // Tests that need real boxes start a runtime of their own (unique names and subnets).
    ORCHESTRATOR: 'none',
    ARGON2_MEMORY_KIB: '8192',
    ARGON2_TIME_COST: '1',
    ...overrides,
  });
}

export interface TestPlatform extends Platform {
  /** Base URL for requests, e.g. http://127.0.0.1:41234. */
  baseUrl: string;
  port: number;
  databaseUrl: string;
  dataDir: string;
  dropDatabase(): Promise<void>;
}

/** The whole API (HTTP + Socket.IO) on a free port, on a database of its own. */
export async function startTestPlatform(
  options: PlatformOptions & { env?: Record<string, string> } = {},
): Promise<TestPlatform> {
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-api-data-'));
  const config = testConfig({ DATABASE_URL: database.url, DATA_DIR: dataDir, ...options.env });
  const platform = await startPlatform(config, testLogger, options);
  const { port } = platform.httpServer.address() as AddressInfo;
  return {
    ...platform,
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    databaseUrl: database.url,
    dataDir,
    close: async () => {
      await platform.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
    dropDatabase: database.drop,
  };
}

export interface TestDatabase {
  /** The ORM on a migrated database of its own. */
  orm: Orm;
  /** A plain connection for arranging rows and checking them behind the code's back. */
  client: pg.Client;
  close(): Promise<void>;
}

/** A migrated database for one suite, with the ORM and a plain client on it. */
export async function openTestDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  const orm = await openDatabase(database.url, testLogger);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  return {
    orm,
    client,
    close: async () => {
      await client.end();
      await orm.close();
      await database.drop();
    },
  };
}
