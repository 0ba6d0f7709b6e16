// Boxes on one host (issue: local runtime). Needs root and the box packages (make box-deps).
//
// 1. Start time: from `POST /boxes` to a successful `ssh root@<box> true` with the box's password
//    after `POST /boxes/{hostname}/power {on:true}` — through the API exactly as `make run` serves
//    it, image cached, the box's loadout (3 ways in, 2 up) installed. A new player arrives with the
//    warm pool full (BOX_WARM_POOL spares booted: the bench waits for them between samples); the
//    pool's refill is what follows each start. Baseline in the same run: systemd-nspawn booting the
//    same base image directly (no API, no user namespace, no overlay, no loadout) until ssh answers.
//    Goal: p50 <= 1 s. Also printed: the first start of a box with the pool off (BOX_WARM_POOL=0's
//    path: a spare that does not fit is the same), and the start of an existing box.
// 2. Memory per idle box (its cgroup's usage) and how many idle boxes this host holds.
//    Goal: >= 50 idle boxes.
//
//   node test/bench/boxes.ts                 (or: make bench-boxes)
//   BENCH_BOXES=50 BENCH_START_SAMPLES=7 node test/bench/boxes.ts
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createVerifiedAccount } from '../support/accounts.ts';
import { sshArgs } from '../support/netns.ts';
import { startPlatform } from '../support/platform.ts';

const run = promisify(execFile);
const START_GOAL_MS = 1000;
const WARM_POOL = 2;
const BOX_GOAL = 50;
const boxes = Number(process.env.BENCH_BOXES ?? 50);
const startSamples = Number(process.env.BENCH_START_SAMPLES ?? 7);

if (process.getuid?.() !== 0) {
  console.error('bench-boxes: needs root (containers, network namespaces).');
  process.exit(2);
}

const prefix = `egb${randomBytes(1).toString('hex')}`;
const imageDir = path.join(
  process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
  'exploit-grid/images',
);
// The data directory is ours, not the platform helper's: it may only go after the boxes in it.
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-bench-boxes-'));
const platform = await startPlatform({
  dataDir,
  timeoutMs: 300_000,
  env: {
    LOG_LEVEL: 'warn',
    ORCHESTRATOR: 'local',
    BOX_PREFIX: prefix,
    BOX_IMAGE_DIR: imageDir,
    ARENA_SUBNET: '10.230.0.0/16',
    TRANSIT_SUBNET: '10.229.0.0/30',
    VPN_UDP_SUBNET: '10.231.0.0/16',
    VPN_TCP_SUBNET: '10.232.0.0/16',
    VPN_UDP_PORT: '0',
    VPN_TCP_PORT: '0',
    BOX_TICK_MS: '250',
    BOX_MEMORY_MIB: '256',
    BOX_WARM_POOL: String(WARM_POOL),
    STARTING_FREE_CREDITS: '1000',
    // Many players sign up from this one machine: each gets an address of its own.
    TRUST_PROXY: 'loopback',
  },
});
const router = `/run/netns/${prefix}-router`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

/** ssh from the router namespace (the box's gateway) with the box's password. */
async function sshWorks(ip: string, password: string): Promise<boolean> {
  try {
    await run('nsenter', [`--net=${router}`, ...sshArgs({ password }, 1), `root@${ip}`, 'true'], {
      timeout: 3000,
      env: { ...process.env, SSHPASS: password },
    });
    return true;
  } catch {
    return false;
  }
}

interface Player {
  api: (p: string, init?: RequestInit) => Promise<Response>;
}

async function player(i: number): Promise<Player> {
  const { accessToken } = await createVerifiedAccount(
    platform,
    {
      handle: `bench${i}`,
      email: `bench${i}@example.com`,
      password: 'bench-password-1',
    },
    { 'x-forwarded-for': `198.51.100.${i + 1}` },
  );
  const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
  return { api: (p, init = {}) => fetch(`${platform.url}/api/v1${p}`, { ...init, headers }) };
}

/**
 * Creates a box and powers it on at once (the worst case: its disk is prepared on the way), and
 * answers the ms from POST /boxes until ssh works.
 */
async function startBox(p: Player): Promise<{ ms: number; id: string }> {
  const t0 = performance.now();
  const created = (await (await p.api('/boxes', { method: 'POST', body: '{}' })).json()) as {
    id: string;
    hostname: string;
  };
  await powerOnUntilSsh(p, created.hostname);
  return { ms: performance.now() - t0, id: created.id };
}

/** Powers a box on and answers the ms until `ssh root@box true` works. */
async function powerOnUntilSsh(p: Player, hostname: string): Promise<number> {
  const t0 = performance.now();
  const powered = await p.api(`/boxes/${hostname}/power`, { method: 'POST', body: '{"on":true}' });
  if (!powered.ok) throw new Error(`power on: ${powered.status} ${await powered.text()}`);
  for (;;) {
    const box = (await (await p.api('/boxes/my')).json()) as {
      ip: string | null;
      ssh_password: string;
      status: string;
    };
    if (
      box.ip &&
      (box.status === 'RUNNING' || box.status === 'PROVISIONING') &&
      (await sshWorks(box.ip, box.ssh_password))
    )
      return performance.now() - t0;
    if (performance.now() - t0 > 120_000) throw new Error(`box not reachable: ${JSON.stringify(box)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits for the warm pool to be full again (the spares' `ready` markers). */
async function poolFull(): Promise<void> {
  const t0 = performance.now();
  const dir = path.join(dataDir, 'boxes');
  for (;;) {
    const entries = await readdir(dir).catch(() => [] as string[]);
    const ready = entries.filter(
      (entry) => entry.startsWith('.spare-') && existsSync(path.join(dir, entry, 'ready')),
    );
    if (ready.length >= WARM_POOL) return;
    if (performance.now() - t0 > 180_000)
      throw new Error(`the warm pool did not fill up: ${entries.join(' ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Baseline: nspawn boots the base image directly (read-only image under a tmpfs overlay) until ssh answers. */
async function baselineBoot(): Promise<number> {
  const image = (await run('sh', ['-c', `ls -d ${imageDir}/debian-*`])).stdout.trim().split('\n')[0]!;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'eg-bench-'));
  const ns = `${prefix}-base`;
  await run('ip', ['netns', 'add', ns]);
  await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  // The image ships without ssh host keys (each box gets its own): lend the snapshot one.
  const hostKey = path.join(dir, 'ssh_host_ed25519_key');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  const t0 = performance.now();
  const child = execFile('nsenter', [
    `--net=/run/netns/${ns}`,
    'systemd-nspawn',
    '--quiet',
    '--register=no',
    '--keep-unit',
    '--console=read-only',
    `--directory=${image}`,
    '--volatile=overlay',
    `--bind-ro=${hostKey}:/etc/ssh/ssh_host_ed25519_key`,
    `--machine=${prefix}-base`,
    '--boot',
  ]);
  child.on('error', () => undefined);
  try {
    for (;;) {
      try {
        await run(
          'nsenter',
          [`--net=/run/netns/${ns}`, 'sh', '-c', 'ssh-keyscan -T 1 127.0.0.1 2>/dev/null | grep -q ssh'],
          {
            timeout: 3000,
          },
        );
        return performance.now() - t0;
      } catch {
        if (performance.now() - t0 > 60_000) throw new Error('baseline box never answered');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    child.kill('SIGKILL');
    await run('ip', ['netns', 'del', ns]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

try {
  // Wait for the image (a first run builds it, about a minute).
  const first = await player(0);
  for (;;) {
    const runtime = (await (await first.api('/boxes/runtime')).json()) as {
      available: boolean;
      reason: string | null;
      image: { state: string; percent: number };
    };
    if (!runtime.available) throw new Error(runtime.reason ?? 'runtime unavailable');
    if (runtime.image.state === 'ready') break;
    process.stdout.write(`\rbase image: ${runtime.image.percent}%   `);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }

  // Baseline and ours alternate, so load on a shared machine hits both alike.
  const players: Player[] = [first];
  for (let i = 1; i < boxes; i++) players.push(await player(i));
  const baseline: number[] = [];
  const starts: { ms: number; id: string }[] = [];
  const createdAt = new Map<Player, number>();
  for (const p of players.slice(0, startSamples)) {
    baseline.push(await baselineBoot());
    await poolFull();
    createdAt.set(p, Date.now());
    starts.push(await startBox(p));
  }
  // The same first start without a spare that fits: a reset box (a new loadout, no disk) boots from nothing.
  const colds: number[] = [];
  for (const p of players.slice(0, Math.min(3, startSamples))) {
    const box = (await (await p.api('/boxes/my')).json()) as { hostname: string };
    // The creation cooldown counts resets too.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, createdAt.get(p)! + 16_000 - Date.now())));
    const reset = await p.api(`/boxes/${box.hostname}/reset`, { method: 'POST', body: '{}' });
    if (!reset.ok) throw new Error(`reset: ${reset.status} ${await reset.text()}`);
    colds.push(await powerOnUntilSsh(p, box.hostname));
  }
  // Start → ssh of a box that exists (stopped, disk ready): the everyday case.
  const restarts: number[] = [];
  for (const p of players.slice(0, Math.min(3, startSamples))) {
    const box = (await (await p.api('/boxes/my')).json()) as { hostname: string };
    await p.api(`/boxes/${box.hostname}/power`, { method: 'POST', body: '{"on":false}' });
    for (;;) {
      const now = (await (await p.api('/boxes/my')).json()) as { status: string };
      if (now.status === 'STOPPED') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    restarts.push(await powerOnUntilSsh(p, box.hostname));
  }
  const startP50 = median(starts.map((s) => s.ms));
  const baselineP50 = median(baseline);
  console.log(
    `\ncreate to ssh: p50 ${startP50.toFixed(0)} ms, p90 ${percentile(
      starts.map((s) => s.ms),
      90,
    ).toFixed(
      0,
    )} ms (n=${starts.length}); first start without a spare (after a reset) to ssh: p50 ${median(colds).toFixed(0)} ms ` +
      `(n=${colds.length}); start of an existing box to ssh: p50 ${median(restarts).toFixed(0)} ms ` +
      `(n=${restarts.length}); baseline nspawn boot to sshd: p50 ${baselineP50.toFixed(0)} ms; ` +
      `ratio ${(startP50 / baselineP50).toFixed(2)} (goal: create to ssh p50 <= ${START_GOAL_MS} ms)`,
  );

  // The rest of the boxes, a few at a time.
  const rest = players.slice(startSamples);
  for (let i = 0; i < rest.length; i += 5) {
    await Promise.all(rest.slice(i, i + 5).map((p) => startBox(p)));
    process.stdout.write(`\rrunning boxes: ${Math.min(boxes, startSamples + i + 5)}   `);
  }
  await new Promise((resolve) => setTimeout(resolve, 10_000)); // let them settle idle
  const memory: number[] = [];
  const cgroupRoot = (await readFile('/proc/self/mounts', 'utf8')).includes('cgroup2 /sys/fs/cgroup ')
    ? `/sys/fs/cgroup/exploit-grid-${prefix}`
    : `/sys/fs/cgroup/memory/exploit-grid-${prefix}`;
  for (const entry of (await run('ls', [cgroupRoot])).stdout.trim().split('\n')) {
    const file = cgroupRoot.includes('/memory/') ? 'memory.usage_in_bytes' : 'memory.current';
    const bytes = Number(
      (await readFile(path.join(cgroupRoot, entry, file), 'utf8').catch(() => '0')).trim(),
    );
    if (bytes > 0) memory.push(bytes);
  }
  const mib = (b: number) => (b / 1024 / 1024).toFixed(0);
  const free = os.freemem();
  const perBox = median(memory);
  const holdable = Math.floor((free + memory.reduce((a, b) => a + b, 0)) / perBox);
  console.log(
    `idle boxes running: ${memory.length}; memory per idle box: median ${mib(perBox)} MiB, max ${mib(Math.max(...memory))} MiB; ` +
      `host free now ${mib(free)} MiB → about ${holdable} idle boxes fit (goal >= ${BOX_GOAL})`,
  );
  const ok = startP50 <= START_GOAL_MS && memory.length >= Math.min(boxes, BOX_GOAL) && holdable >= BOX_GOAL;
  process.exitCode = ok ? 0 : 1;
} catch (err) {
  console.error(err);
  const problems = platform
    .output()
    .split('\n')
    .filter((line) => /"level":(40|50|60)/.test(line));
  if (problems.length) console.error(`platform warnings and errors:\n${problems.slice(-20).join('\n')}`);
  process.exitCode = 1;
} finally {
  await platform.stop();
  await run('node', [path.join(import.meta.dirname, '../../api/dist/boxes-down.js'), '--purge'], {
    env: {
      ...process.env,
      ORCHESTRATOR: 'local',
      BOX_PREFIX: prefix,
      DATA_DIR: dataDir,
      ARENA_SUBNET: '10.230.0.0/16',
      TRANSIT_SUBNET: '10.229.0.0/30',
      VPN_UDP_SUBNET: '10.231.0.0/16',
      VPN_TCP_SUBNET: '10.232.0.0/16',
    },
  }).catch((err: unknown) => console.error('boxes-down failed', err));
  await rm(dataDir, { recursive: true, force: true });
}
