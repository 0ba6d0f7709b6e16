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

export interface RunningPlatform {
  url: string;
  dataDir: string;
  process: ChildProcess;
  output(): string;
  /** Sends `signal` (SIGTERM by default) and waits for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
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
        if (existsSync(path.join(dataDir, 'boxes')))
          await promisify(execFile)(
            process.execPath,
            [path.join(repoRoot, 'api/dist/boxes-down.js'), '--purge'],
            {
              env: { ...process.env, ORCHESTRATOR: 'none', ...env, DATA_DIR: dataDir, LOG_FORMAT: 'json' },
            },
          );
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
