import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const ROOT = '/sys/fs/cgroup';
/**
 * All boxes together weigh an eighth of a host process when the CPU is contended (v1 shares,
 * v2 weight): players' boxes and the traffic they serve must not slow the API down. Each box
 * still gets up to its own quota (`cpu.max`) from an idle host.
 */
const BOXES_CPU_SHARES = 128;
/** From how many online CPUs PLAYER_CPUS=auto keeps one for the platform. */
const AUTO_MIN_CPUS = 4;
/** The v1 hierarchies a box gets a cgroup in (those the host has). */
const V1_HIERARCHIES = ['memory', 'cpu', 'pids', 'cpuset', 'systemd', 'unified'];
const BOXES_CPU_WEIGHT = 12;

export interface BoxLimits {
  memoryMiB: number;
  /** CPU quota in thousandths of a core (1000 = one core). */
  cpuMillis: number;
  pids: number;
  /**
   * The host's CPUs boxes may run on (a cpuset list such as `1-3`), or null for all: decided by the host
   * (PLAYER_CPUS), never by the API. Every box shares them; the others stay the platform's own.
   */
  cpus?: string | null;
}

/** The CPUs the host has online, as a list of numbers (from /sys/devices/system/cpu/online, `0-3,6`). */
export function onlineCpus(): number[] {
  try {
    return parseCpuList(readFileSync('/sys/devices/system/cpu/online', 'utf8').trim());
  } catch {
    return [0];
  }
}

export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.split(',').filter(Boolean)) {
    const [from, to = from] = part.split('-').map(Number) as [number, number?];
    for (let cpu = from; cpu <= to; cpu++) cpus.push(cpu);
  }
  return cpus;
}

export const formatCpuList = (cpus: number[]) => cpus.join(',');

/**
 * The CPUs players' work (boxes, the VPN servers) runs on, from PLAYER_CPUS: `auto` keeps the first online CPU
 * for the platform on hosts with four or more (players' traffic must not slow the API down; on smaller hosts
 * that would cost the players too much: name the CPUs there, e.g. `1` on two), `all` puts no bound, a list
 * names them (CPUs the host does not have are left out; none left, or all of them, means no bound).
 */
export function resolvePlayerCpus(setting: string, online = onlineCpus()): string | null {
  if (setting === 'all') return null;
  const chosen =
    setting === 'auto'
      ? online.length >= AUTO_MIN_CPUS
        ? online.slice(1)
        : []
      : parseCpuList(setting).filter((cpu) => online.includes(cpu));
  return chosen.length > 0 && chosen.length < online.length ? formatCpuList(chosen) : null;
}

/**
 * Resource limits of one box as a cgroup (v2 unified, or the v1 memory/cpu/pids hierarchies of a
 * hybrid host). The box's launcher joins it before starting systemd-nspawn, so every process of
 * the box is counted and limited, and a hard stop can kill them all.
 */
export class BoxCgroup {
  readonly #dirs: string[];
  readonly #unified: boolean;

  constructor(group: string, name: string) {
    this.#unified = existsSync(path.join(ROOT, 'cgroup.controllers'));
    // On a hybrid (v1) host the box also gets its own cgroup in the systemd and unified
    // hierarchies: systemd-nspawn creates the box's delegated `payload` cgroup below the one it
    // runs in, and boxes must not share it.
    this.#dirs = this.#unified
      ? [path.join(ROOT, group, name)]
      : V1_HIERARCHIES.filter((hierarchy) => existsSync(path.join(ROOT, hierarchy))).map((hierarchy) =>
          path.join(ROOT, hierarchy, group, name),
        );
  }

  /** The `cgroup.procs` files a launcher writes its pid to (of the cgroups that were made). */
  get procsFiles(): string[] {
    return this.#dirs.filter((dir) => existsSync(dir)).map((dir) => path.join(dir, 'cgroup.procs'));
  }

  async create(limits: BoxLimits): Promise<void> {
    const memory = String(limits.memoryMiB * 1024 * 1024);
    const period = 100_000;
    const quota = Math.max(1000, Math.round((limits.cpuMillis / 1000) * period));
    if (this.#unified) {
      const dir = this.#dirs[0]!;
      const parent = path.dirname(dir);
      await mkdir(dir, { recursive: true });
      for (const level of [ROOT, parent]) {
        await writeFile(path.join(level, 'cgroup.subtree_control'), '+memory +cpu +pids').catch(
          () => undefined,
        );
        if (limits.cpus)
          await writeFile(path.join(level, 'cgroup.subtree_control'), '+cpuset').catch(() => undefined);
      }
      await writeFile(path.join(parent, 'cpu.weight'), String(BOXES_CPU_WEIGHT));
      // All boxes together on the players' CPUs (an empty list on v2 means the parent's: all of them).
      if (limits.cpus || existsSync(path.join(parent, 'cpuset.cpus')))
        await writeFile(path.join(parent, 'cpuset.cpus'), limits.cpus ?? '').catch(() => undefined);
      await writeFile(path.join(dir, 'memory.max'), memory);
      await writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => undefined);
      await writeFile(path.join(dir, 'cpu.max'), `${quota} ${period}`);
      await writeFile(path.join(dir, 'pids.max'), String(limits.pids));
      return;
    }
    const [memoryDir, cpuDir, pidsDir, cpusetDir] = ['memory', 'cpu', 'pids', 'cpuset'].map((c) =>
      this.#dirs.find((dir) => dir.startsWith(path.join(ROOT, c) + '/')),
    ) as [string, string, string, string | undefined];
    for (const dir of this.#dirs) if (dir !== cpusetDir) await mkdir(dir, { recursive: true });
    if (cpusetDir && limits.cpus) await makeV1Cpuset(cpusetDir, limits.cpus);
    await writeFile(path.join(memoryDir, 'memory.limit_in_bytes'), memory);
    await writeFile(path.join(path.dirname(cpuDir), 'cpu.shares'), String(BOXES_CPU_SHARES));
    await writeFile(path.join(cpuDir, 'cpu.cfs_period_us'), String(period));
    await writeFile(path.join(cpuDir, 'cpu.cfs_quota_us'), String(quota));
    await writeFile(path.join(pidsDir, 'pids.max'), String(limits.pids));
  }

  /** Every process in the box's cgroup (and below it). */
  async pids(): Promise<number[]> {
    const found = new Set<number>();
    const walk = async (dir: string) => {
      if (!existsSync(dir)) return;
      const text = await readFile(path.join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
      for (const line of text.split('\n')) if (line) found.add(Number(line));
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        if (entry.isDirectory()) await walk(path.join(dir, entry.name));
      }
    };
    for (const dir of this.#dirs) await walk(dir);
    return [...found];
  }

  /** Memory the box uses now, in bytes (for the benchmark and diagnostics). */
  async memoryBytes(): Promise<number | null> {
    const file = this.#unified
      ? path.join(this.#dirs[0]!, 'memory.current')
      : path.join(this.#dirs[0]!, 'memory.usage_in_bytes');
    const text = await readFile(file, 'utf8').catch(() => null);
    return text === null ? null : Number(text.trim());
  }

  /** SIGKILLs everything in the box (the hard stop). */
  async killAll(): Promise<void> {
    for (let round = 0; round < 5; round++) {
      const pids = await this.pids();
      if (pids.length === 0) return;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Removes the cgroup directories (deepest first); they must be empty of processes. */
  async remove(): Promise<void> {
    const removeTree = async (dir: string): Promise<void> => {
      if (!existsSync(dir)) return;
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        if (entry.isDirectory()) await removeTree(path.join(dir, entry.name));
      }
      await rmdir(dir).catch(() => undefined);
    };
    for (const dir of this.#dirs) await removeTree(dir);
  }
}

/**
 * A v1 cpuset for a box below its group's, on the players' CPUs: a new cpuset starts with no CPUs and no
 * memory nodes (a process cannot join it), so both levels get the root's memory nodes and those CPUs. Where
 * that fails the box's cpuset is removed again and the box runs unbound (its launcher joins what exists).
 */
async function makeV1Cpuset(dir: string, cpus: string): Promise<void> {
  const root = path.join(ROOT, 'cpuset');
  try {
    const mems = (await readFile(path.join(root, 'cpuset.mems'), 'utf8')).trim();
    for (const level of [path.dirname(dir), dir]) {
      await mkdir(level, { recursive: true });
      await writeFile(path.join(level, 'cpuset.mems'), mems);
      await writeFile(path.join(level, 'cpuset.cpus'), cpus);
    }
  } catch {
    await rmdir(dir).catch(() => undefined);
  }
}

/**
 * Kills every process left in a group of box cgroups and removes them: the last resort of
 * `make boxes-down` when a box's own files are gone (its data directory was deleted under it).
 */
export async function sweepCgroups(group: string): Promise<number> {
  let killed = 0;
  const unified = existsSync(path.join(ROOT, 'cgroup.controllers'));
  const roots = unified
    ? [path.join(ROOT, group)]
    : V1_HIERARCHIES.map((hierarchy) => path.join(ROOT, hierarchy, group));
  for (const root of roots) {
    if (!existsSync(root)) continue;
    for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory()) continue;
      const cgroup = new BoxCgroup(group, entry.name);
      killed += (await cgroup.pids()).length;
      await cgroup.killAll();
      await cgroup.remove();
    }
    await rmdir(root).catch(() => undefined);
  }
  return killed;
}
