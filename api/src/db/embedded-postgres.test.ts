import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { testLogger } from '../testing/logger.ts';
import { runningEmbeddedUrl, startEmbeddedPostgres } from './embedded-postgres.ts';

async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL', function () {
  this.timeout(120_000);
  let dataDir: string;
  beforeEach(async () => (dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-embedded-'))));
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('initialises a cluster under DATA_DIR on first start and keeps its data across restarts', async () => {
    const first = await startEmbeddedPostgres({ dataDir, logger: testLogger });
    try {
      await query(first.url, 'create table kept (v text); insert into kept values ($$still here$$)');
    } finally {
      await first.stop();
    }
    expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).to.equal(true);

    const second = await startEmbeddedPostgres({ dataDir, logger: testLogger });
    try {
      expect(await query(second.url, 'select v from kept')).to.deep.equal([{ v: 'still here' }]);
      // Same generated password, kept private.
      expect(second.url).to.include(
        encodeURIComponent((await readFile(path.join(dataDir, 'postgres.secret'), 'utf8')).trim()),
      );
      expect((await stat(path.join(dataDir, 'postgres.secret'))).mode & 0o077).to.equal(0);
    } finally {
      await second.stop();
    }
  });

  it('listens on loopback only and requires the password', async () => {
    const db = await startEmbeddedPostgres({ dataDir, logger: testLogger });
    try {
      const [row] = await query(db.url, "select current_setting('listen_addresses') as listen");
      expect(row?.listen).to.equal('127.0.0.1');
      const wrong = new URL(db.url);
      wrong.password = 'wrong';
      let error: Error | undefined;
      try {
        await query(wrong.toString(), 'select 1');
      } catch (err) {
        error = err as Error;
      }
      expect(error?.message).to.match(/password authentication failed/);
    } finally {
      await db.stop();
    }
  });

  it('recovers a cluster whose server was left running by a killed process', async () => {
    const db = await startEmbeddedPostgres({ dataDir, logger: testLogger });
    const pid = Number(
      (await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0],
    );
    expect(pid).to.be.greaterThan(0);
    // Simulate the owner being SIGKILLed: the server keeps running, holding the lock.
    const again = await startEmbeddedPostgres({ dataDir, logger: testLogger });
    try {
      expect(await query(again.url, 'select 1 as one')).to.deep.equal([{ one: 1 }]);
      expect(() => process.kill(pid, 0)).to.throw();
    } finally {
      await again.stop();
      await db.stop().catch(() => undefined);
    }
  });
});

describe('finding a running platform’s database (the staff CLI, as root)', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-staff-url-'));
    await mkdir(path.join(dataDir, 'api/postgres'), { recursive: true });
    await writeFile(path.join(dataDir, 'api/postgres/postmaster.pid'), '123\n/x\n1700000000\n54321\n');
    await writeFile(path.join(dataDir, 'api/postgres.secret'), 'pass word\n');
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('reads the port and password of the API’s state in DATA_DIR/api', async () => {
    expect(await runningEmbeddedUrl(dataDir)).to.equal(
      'postgresql://exploit_grid:pass%20word@127.0.0.1:54321/exploit_grid',
    );
  });

  it('follows no link the API’s user may have planted, and reads no file of another owner', async () => {
    const secret = path.join(dataDir, 'root-only.key');
    await writeFile(secret, 'a secret of root’s', { mode: 0o600 });
    await rm(path.join(dataDir, 'api/postgres.secret'));
    await symlink(secret, path.join(dataDir, 'api/postgres.secret'));
    expect(await runningEmbeddedUrl(dataDir)).to.equal(null);

    await rm(path.join(dataDir, 'api/postgres.secret'));
    await writeFile(path.join(dataDir, 'api/postgres.secret'), 'pass word\n');
    if (process.getuid?.() === 0) {
      await chown(path.join(dataDir, 'api/postgres.secret'), 65534, 65534);
      expect(await runningEmbeddedUrl(dataDir)).to.equal(null);
    }
  });
});
