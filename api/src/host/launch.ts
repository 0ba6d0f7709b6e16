import { execFile, spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { chmod, lchown, lstat, mkdir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createOrchestrator } from '../orchestrator-factory.ts';
import type { BoxOrchestrator } from '../boxes/orchestrator.ts';
import { HOST_CHANNEL_ENV } from './protocol.ts';
import { serveRuntime } from './serve.ts';

const execFileAsync = promisify(execFile);

/**
 * Where the API process sees what it needs, in a mount namespace of its own: the checkout and
 * Node.js read-only, its own data read-write. Bind mounts, so the directories above them (a
 * clone in root's 0700 home) need not be open to the API's user.
 */
const MOUNTS = '/run/exploit-grid/api';
/** What the API keeps in DATA_DIR: moved into DATA_DIR/api the first time it runs as its own user. */
const API_STATE = ['postgres', 'postgres.secret', 'jwt.secret', 'mail'];

export interface ServiceUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * `make run` as root: this process keeps root for the host work of the local box runtime
 * (namespaces, containers, nftables, OpenVPN, the referee) and starts the API as an
 * unprivileged user beside it; the API asks for host work over the IPC channel, through the
 * validated calls of `protocol.ts` (docs/architecture.md, "Privileges"). Resolves with the
 * API's exit code once it has exited and the runtime is let go of.
 */
export async function runAsHost(config: Config, logger: Logger): Promise<number> {
  const log = logger.child({ component: 'host' });
  const user = await ensureServiceUser(config.apiUser, log);
  const apiData = await prepareApiData(config.dataDir, user, log);

  // Boxes, VPN servers and the tracer outlive this process: they must not hold the checkout as
  // their working directory (every path the runtime uses is absolute).
  process.chdir('/');
  const runtime: BoxOrchestrator | null =
    config.orchestrator === 'local' ? await createOrchestrator(config, logger) : null;

  const repoRoot = realpathSync(path.resolve(import.meta.dirname, '../../..'));
  const entry = realpathSync(process.argv[1]!);
  if (!entry.startsWith(`${repoRoot}/`)) throw new Error(`The API's entry ${entry} is not in ${repoRoot}.`);
  const nodePath = realpathSync(process.execPath);
  const nodePrefix = path.dirname(path.dirname(nodePath));
  const mounts = { app: `${MOUNTS}/app`, data: `${MOUNTS}/data`, node: `${MOUNTS}/node` };
  for (const dir of Object.values(mounts)) await mkdir(dir, { recursive: true, mode: 0o755 });

  // Binding a port below 1024 is the one privilege the API may keep.
  const caps = config.port > 0 && config.port < 1024 ? ['+net_bind_service'] : [];
  const capList = ['-all', ...caps].join(',');
  const dropPrivileges = [
    'setpriv',
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    '--clear-groups',
    `--inh-caps=${capList}`,
    ...(caps.length ? [`--ambient-caps=${capList}`] : []),
    `--bounding-set=${capList}`,
    '--no-new-privs',
    '--',
  ];
  // Positional parameters, not interpolation: paths may hold anything.
  const script = [
    'set -e',
    'mount --bind "$1" "$4"; mount -o remount,bind,ro "$4"',
    'mount --bind "$2" "$5"',
    'mount --bind "$3" "$6"; mount -o remount,bind,ro "$6"',
    'cd "$4"',
    'shift 6',
    'exec "$@"',
  ].join('\n');
  const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--watch'));
  const child = spawn(
    'unshare',
    [
      // slave: unmounts on the host (a deleted box's disk) reach the API's namespace too.
      '--mount',
      '--propagation',
      'slave',
      '--',
      'sh',
      '-c',
      script,
      'sh',
      repoRoot,
      apiData,
      nodePrefix,
      mounts.app,
      mounts.data,
      mounts.node,
      ...dropPrivileges,
      path.join(mounts.node, path.relative(nodePrefix, nodePath)),
      ...execArgv,
      path.join(mounts.app, path.relative(repoRoot, entry)),
      ...process.argv.slice(2),
    ],
    {
      // A session of its own and no terminal: the API must not read what root types, nor type into
      // root's terminal (TIOCSTI needs the terminal to be the caller's controlling one). Its output
      // is copied to ours.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
      env: {
        ...process.env,
        LOG_FORMAT: config.logFormat,
        DATA_DIR: mounts.data,
        HOME: mounts.data,
        ...(runtime ? { [HOST_CHANNEL_ENV]: '1' } : {}),
      },
    },
  );
  child.stdout!.pipe(process.stdout);
  child.stderr!.pipe(process.stderr);
  log.info(
    { user: user.name, uid: user.uid, pid: child.pid },
    'Started the API as its own user; the host work stays in this process',
  );

  const served = runtime ? serveRuntime(child, runtime, logger) : null;
  let stopping = false;
  const forward = (signal: NodeJS.Signals) => {
    // The API is in a session of its own: Ctrl-C in the terminal and a service manager's SIGTERM
    // reach it through us.
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    if (stopping) return;
    stopping = true;
    // An API that does not finish shutting down is stopped outright.
    setTimeout(() => child.kill('SIGKILL'), config.shutdownTimeoutMs + 15_000).unref();
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);

  const code = await new Promise<number>((resolve) => {
    child.once('exit', (exitCode, signal) =>
      resolve(exitCode ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1)),
    );
    child.once('error', (err) => {
      log.fatal({ err }, 'Could not start the API');
      resolve(1);
    });
  });
  // Whatever the API left behind in its session (its database when it died) goes with it.
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // nothing left
  }
  await served?.stop();
  // Boxes and VPN servers keep running for the next start (close only lets go of them).
  await runtime?.close().catch((err: unknown) => log.error({ err }, 'Could not let go of the box runtime'));
  return code;
}

/** The API's user: made once as a system user with no login and no home of its own. */
export async function ensureServiceUser(name: string, log: Logger): Promise<ServiceUser> {
  const lookup = async (): Promise<ServiceUser | null> => {
    try {
      const { stdout } = await execFileAsync('getent', ['passwd', name]);
      const [, , uid, gid] = stdout.trim().split(':');
      return { name, uid: Number(uid), gid: Number(gid) };
    } catch {
      return null;
    }
  };
  const found = await lookup();
  if (found) {
    if (found.uid === 0) throw new Error(`API_USER ${name} is root: the API must run unprivileged.`);
    return found;
  }
  await execFileAsync('useradd', [
    '--system',
    '--user-group',
    '--no-create-home',
    '--home-dir',
    '/nonexistent',
    '--shell',
    '/usr/sbin/nologin',
    '--comment',
    'Exploit Grid API',
    name,
  ]);
  log.info({ user: name }, 'Created the system user the API runs as');
  const made = await lookup();
  if (!made) throw new Error(`Could not create the system user ${name}.`);
  return made;
}

/**
 * DATA_DIR stays root's (the host work keeps the VPN's CA, the boxes' disks and the referee's
 * state there); the API's own state (database, secrets, mail) lives in DATA_DIR/api, owned by
 * its user and open to no one else. State of an earlier run as root is moved there once.
 */
export async function prepareApiData(dataDir: string, user: ServiceUser, log: Logger): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  const apiDir = path.join(dataDir, 'api');
  const fresh = !existsSync(apiDir);
  await mkdir(apiDir, { recursive: true, mode: 0o700 });
  if (fresh) {
    const moved: string[] = [];
    for (const name of API_STATE) {
      if (!existsSync(path.join(dataDir, name))) continue;
      await rename(path.join(dataDir, name), path.join(apiDir, name));
      moved.push(name);
    }
    if (moved.length) log.info({ moved }, 'Moved the API state of an earlier run into DATA_DIR/api');
  }
  await chownTree(apiDir, user);
  await chmod(apiDir, 0o700);
  return apiDir;
}

/**
 * Gives a tree to the API's user, never following links; walked only while its top is not the
 * user's yet (the top is handed over last, so an interrupted walk is done again).
 */
async function chownTree(dir: string, user: ServiceUser): Promise<void> {
  const top = await lstat(dir);
  if (top.uid === user.uid && top.gid === user.gid) return;
  const walk = async (target: string) => {
    const info = await lstat(target);
    if (info.uid !== user.uid || info.gid !== user.gid) await lchown(target, user.uid, user.gid);
    if (info.isDirectory()) {
      for (const entry of await readdir(target)) await walk(path.join(target, entry));
    }
  };
  for (const entry of await readdir(dir)) await walk(path.join(dir, entry));
  await lchown(dir, user.uid, user.gid);
}
