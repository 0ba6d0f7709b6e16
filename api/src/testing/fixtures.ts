import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../config.ts';
import { startPlatform, type Platform, type PlatformOptions } from '../server.ts';
import { testLogger } from './logger.ts';
import { createTestDatabase } from './setup.ts';

export { testLogger };

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', PORT: '0', LOG_FORMAT: 'json', ...overrides });
}

export interface TestPlatform extends Platform {
  /** Base URL for requests, e.g. http://127.0.0.1:41234. */
  baseUrl: string;
  port: number;
  databaseUrl: string;
  dropDatabase(): Promise<void>;
}

/** The whole API (HTTP + Socket.IO) on a free port, on a database of its own. */
export async function startTestPlatform(
  options: PlatformOptions & { env?: Record<string, string> } = {},
): Promise<TestPlatform> {
  const database = await createTestDatabase();
  const config = testConfig({ DATABASE_URL: database.url, ...options.env });
  const platform = await startPlatform(config, testLogger, options);
  const { port } = platform.httpServer.address() as AddressInfo;
  return {
    ...platform,
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    databaseUrl: database.url,
    close: async () => {
      await platform.close();
      await database.drop();
    },
    dropDatabase: database.drop,
  };
}
