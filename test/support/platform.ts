import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeLoopbackPort } from '../../api/src/net.ts';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
/** The command `make run` ends in; tests start the platform exactly the same way. */
export const mainScript = path.join(repoRoot, 'api/dist/main.js');

/** A port free on 127.0.0.1 (the API's own helper). */
export const freePort = freeLoopbackPort;

/** Where the box tests and benchmarks share the Debian base image (built once). */
export const boxImageDir = path.join(
  process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
  'exploit-grid/images',
);

/**
 * The environment of a platform on the local box runtime with names and subnets of its own, so
 * it runs beside `make run` and other tests: `a.b.c` (`net3`) is the /24 of its transit link
 * (.0/30) and of the players' computers (/30s from .4, see ClientNamespace; the VPN is
 * reached at .5), and 10.`octet`–10.`octet+2` hold the arena and the two VPN subnets.
 */
export function localRuntimeEnv(options: {
  prefix: string;
  net3: string;
  octet: number;
  /** Fixed VPN port (UDP and TCP), for a platform restarted where its clients are; default: any. */
  vpnPort?: number;
}): Record<string, string> {
  const { prefix, net3, octet } = options;
  return {
    ORCHESTRATOR: 'local',
    BOX_PREFIX: prefix,
    BOX_IMAGE_DIR: boxImageDir,
    ARENA_SUBNET: `10.${octet}.0.0/16`,
    TRANSIT_SUBNET: `${net3}.0/30`,
    VPN_UDP_SUBNET: `10.${octet + 1}.0.0/16`,
    VPN_TCP_SUBNET: `10.${octet + 2}.0.0/16`,
    VPN_UDP_PORT: String(options.vpnPort ?? 0),
    VPN_TCP_PORT: String(options.vpnPort ?? 0),
    VPN_PUBLIC_HOST: `${net3}.5`,
    BOX_TICK_MS: '500',
    // One spare, as `make run` keeps two: a suite's first box starts from the warm pool, the others as they
    // come (a spare that does not fit, or none yet: from nothing).
    BOX_WARM_POOL: '1',
  };
}

/** Stops every box and VPN server of a platform's runtime and removes its disks (`make boxes-down --purge`). */
export async function takeDownBoxes(env: Record<string, string>, dataDir: string): Promise<void> {
  await promisify(execFile)(process.execPath, [path.join(repoRoot, 'api/dist/boxes-down.js'), '--purge'], {
    env: { ...process.env, ORCHESTRATOR: 'none', ...env, DATA_DIR: dataDir, LOG_FORMAT: 'json' },
  });
}

/** A platform on the local runtime that one suite started with `startBoxPlatform`. */
export interface BoxPlatform {
  platform: RunningPlatform;
  env: Record<string, string>;
  dataDir: string;
  /**
   * Stops the platform, takes its boxes and VPN servers down as `make boxes-down --purge` does (they outlive
   * the API by design), removes its data directory and throws if the runtime's router namespace stayed.
   */
  stop(): Promise<void>;
}

/** Starts the platform as `make run` does on the local runtime `env`, in a data directory of its own. */
export async function startBoxPlatform(name: string, env: Record<string, string>): Promise<BoxPlatform> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `eg-e2e-${name}-`));
  const takeDown = async () => {
    await takeDownBoxes(env, dataDir);
    await rm(dataDir, { recursive: true, force: true });
  };
  let platform: RunningPlatform;
  try {
    platform = await startPlatform({ env, dataDir, timeoutMs: 120_000 });
  } catch (err) {
    await takeDown();
    throw err;
  }
  return {
    platform,
    env,
    dataDir,
    async stop() {
      await platform.stop();
      await takeDown();
      if (existsSync(`/run/netns/${env.BOX_PREFIX}-router`))
        throw new Error(`the router namespace ${env.BOX_PREFIX}-router was left behind`);
    },
  };
}

/**
 * Where the API keeps its own state (database, secrets, mail) in a DATA_DIR: DATA_DIR/api when
 * started as root but for ORCHESTRATOR=kubernetes (the API then runs as its own user,
 * docs/architecture.md), else DATA_DIR.
 */
export function apiDataDirOf(dataDir: string, env: Record<string, string> = {}): string {
  const asHost =
    process.getuid?.() === 0 &&
    (env.API_USER ?? process.env.API_USER ?? '') !== 'root' &&
    env.ORCHESTRATOR !== 'kubernetes';
  return asHost ? path.join(dataDir, 'api') : dataDir;
}

export interface RunningPlatform {
  url: string;
  dataDir: string;
  /** Where the API keeps its own state: `apiDataDirOf(dataDir)`. */
  apiDataDir: string;
  process: ChildProcess;
  output(): string;
  /** Sends `signal` (SIGTERM by default) and waits for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * For an `afterEach`: after a failed test, prints the last lines the platform logged (request logs
 * left out), for a failure far from here (CI).
 */
export function logPlatformOnFailure(
  test: Mocha.Test | undefined,
  platform: RunningPlatform | undefined,
): void {
  if (test?.state !== 'failed') return;
  const lines = platform?.output().split('\n') ?? [];
  console.error(
    lines
      .filter((line) => !line.includes('Request completed'))
      .slice(-60)
      .join('\n'),
  );
}

/**
 * Starts `node api/dist/main.js` on a free port with a fresh DATA_DIR (embedded
 * PostgreSQL included) and waits until /readyz answers 200.
 */
export async function startPlatform(
  options: {
    env?: Record<string, string>;
    dataDir?: string;
    timeoutMs?: number;
    processGroup?: boolean;
  } = {},
): Promise<RunningPlatform> {
  const { env = {}, timeoutMs = 60_000 } = options;
  // A DATA_DIR passed in belongs to the caller and is kept; a fresh one is deleted on stop.
  const ownsDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-')));
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, [mainScript], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      // Boxes only where a test asks for them (with names and subnets of its own).
      ORCHESTRATOR: 'none',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // In a process group of its own, a signal can reach every process of the platform at
    // once, as Ctrl-C in a terminal does.
    detached: options.processGroup ?? false,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;

  const platform: RunningPlatform = {
    url,
    dataDir,
    apiDataDir: apiDataDirOf(dataDir, env),
    process: child,
    output: () => output,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) {
        if (options.processGroup) process.kill(-child.pid!, signal);
        else child.kill(signal);
      }
      const code = await Promise.race([exited, sleep(20_000).then(() => 'timeout' as const)]);
      if (code === 'timeout') {
        child.kill('SIGKILL');
        throw new Error(`platform did not stop within 20 s\n${output}`);
      }
      if (ownsDataDir) {
        // Boxes outlive the API: take them down before their disks go.
        if (existsSync(path.join(dataDir, 'boxes'))) await takeDownBoxes(env, dataDir);
        await rm(dataDir, { recursive: true, force: true });
      }
      return code;
    },
  };

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`platform exited with ${child.exitCode}\n${output}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return platform;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  await platform.stop().catch(() => undefined);
  throw new Error(`platform not ready within ${timeoutMs} ms\n${output}`);
}
