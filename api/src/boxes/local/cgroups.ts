import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const ROOT = '/sys/fs/cgroup';
/**
 * All boxes together weigh an eighth of a host process when the CPU is contended (v1 shares,
 * v2 weight): players' boxes and the traffic they serve must not slow the API down. Each box
 * still gets up to its own quota (`cpu.max`) from an idle host.
 */
const BOXES_CPU_SHARES = 128;
const BOXES_CPU_WEIGHT = 12;

export interface BoxLimits {
  memoryMiB: number;
  /** CPU quota in thousandths of a core (1000 = one core). */
  cpuMillis: number;
  pids: number;
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
      : ['memory', 'cpu', 'pids', 'systemd', 'unified']
          .filter((hierarchy) => existsSync(path.join(ROOT, hierarchy)))
          .map((hierarchy) => path.join(ROOT, hierarchy, group, name));
  }

  /** The `cgroup.procs` files a launcher writes its pid to. */
  get procsFiles(): string[] {
    return this.#dirs.map((dir) => path.join(dir, 'cgroup.procs'));
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
      }
      await writeFile(path.join(parent, 'cpu.weight'), String(BOXES_CPU_WEIGHT));
      await writeFile(path.join(dir, 'memory.max'), memory);
      await writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => undefined);
      await writeFile(path.join(dir, 'cpu.max'), `${quota} ${period}`);
      await writeFile(path.join(dir, 'pids.max'), String(limits.pids));
      return;
    }
    const [memoryDir, cpuDir, pidsDir] = ['memory', 'cpu', 'pids'].map((c) =>
      this.#dirs.find((dir) => dir.startsWith(path.join(ROOT, c) + '/')),
    ) as [string, string, string];
    for (const dir of this.#dirs) await mkdir(dir, { recursive: true });
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
 * Kills every process left in a group of box cgroups and removes them: the last resort of
 * `make boxes-down` when a box's own files are gone (its data directory was deleted under it).
 */
export async function sweepCgroups(group: string): Promise<number> {
  let killed = 0;
  const unified = existsSync(path.join(ROOT, 'cgroup.controllers'));
  const roots = unified
    ? [path.join(ROOT, group)]
    : ['memory', 'cpu', 'pids', 'systemd', 'unified'].map((hierarchy) => path.join(ROOT, hierarchy, group));
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
