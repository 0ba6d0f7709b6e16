import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { Sql } from '../db/sql.ts';
import type { ThrottleLimit, ThrottleName } from '../auth/throttle.ts';
import { createAccount, type TestAccount } from './accounts.ts';
import { startTestPlatform, type TestPlatform } from './fixtures.ts';
import { TestOrchestrator, type TestOrchestratorOptions } from './orchestrator.ts';

export interface Answer<T = unknown> {
  status: number;
  body: T;
}

/** A platform on the TestOrchestrator, with a plain database client and an HTTP caller. */
export interface BoxTestPlatform {
  platform: TestPlatform;
  orchestrator: TestOrchestrator;
  /** A plain connection for arranging rows and checking them behind the API's back. */
  db: pg.Client;
  /** Calls /api/v1`path`; the body of the answer is parsed JSON (null when empty). */
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown },
  ): Promise<Answer<T>>;
  /** A new verified, signed-in player. */
  account(handle?: string): Promise<TestAccount>;
  /** Plain SQL on the platform's ORM (for the Ledger). */
  sql(): Sql;
  close(): Promise<void>;
}

/**
 * Many players sign up and sign in from 127.0.0.1 in these tests, and create and delete boxes faster than
 * players do (the limits have tests of their own: api/src/http/limits.test.ts).
 */
const generous: ThrottleLimit = { points: 100_000, durationSeconds: 60, blockSeconds: 1 };
const THROTTLES: ThrottleName[] = [
  'signupIp',
  'loginIp',
  'tokenIp',
  'mailIp',
  'mailAccount',
  'userCalls',
  'boxCooldown',
  'boxChanges',
  'checkout',
];

export async function startBoxPlatform(
  options: {
    env?: Record<string, string>;
    orchestrator?: TestOrchestratorOptions;
    /** Limits to keep as they are (or set) instead of the generous ones. */
    throttleLimits?: Partial<Record<ThrottleName, ThrottleLimit>>;
  } = {},
): Promise<BoxTestPlatform> {
  const orchestrator = new TestOrchestrator(options.orchestrator);
  const platform = await startTestPlatform({
    orchestrator,
    // Service checks run when a test calls a round (service-checks.test.ts), not on their own.
    env: { BOX_TICK_MS: '200', SERVICE_CHECK_INTERVAL_SECONDS: '300', ...options.env },
    throttleLimits: {
      ...Object.fromEntries(THROTTLES.map((name) => [name, generous])),
      ...options.throttleLimits,
    },
  });
  const db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  return {
    platform,
    orchestrator,
    db,
    async call<T>(method: string, path: string, o: { token?: string; body?: unknown } = {}) {
      const headers: Record<string, string> = {};
      if (o.body !== undefined) headers['content-type'] = 'application/json';
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      const res = await fetch(`${platform.baseUrl}/api/v1${path}`, {
        method,
        headers,
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
    account: (handle) => createAccount(platform, { handle }),
    sql: () => new Sql(platform.orm.em.fork() as EntityManager),
    async close() {
      await db.end();
      await platform.close();
    },
  };
}

/** Polls `probe` until `accept` takes its answer; fails with the last answer after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T> | T,
  accept: (value: T) => boolean,
  options: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let last: T;
  for (;;) {
    last = await probe();
    if (accept(last)) return last;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${options.what ?? 'a condition'}; last: ${JSON.stringify(last)}`,
      );
    await sleep(20);
  }
}
