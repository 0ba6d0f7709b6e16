import { spawn } from 'node:child_process';
import { constants, existsSync, openSync, closeSync } from 'node:fs';
import {
  chown,
  chmod,
  lchown,
  lstat,
  mkdir,
  open,
  readFile,
  readdir,
  rename,
  symlink,
  rm,
  realpath,
  stat,
  statfs,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { AGENT_FILES, AGENT_SERVICE } from '@exploit-grid/operator/agent-install';
import {
  LOADOUT_DIR,
  LOADOUT_SERVICE,
  LOADOUT_UNIT,
  LOADOUT_UNIT_FILE,
  type BoxFile,
} from '@exploit-grid/operator/catalogue';
import { BOX_NETWORK_FILE } from './image.ts';
import { BoxHasNoDisk } from '../orchestrator.ts';
import { BoxCgroup, type BoxLimits } from './cgroups.ts';
import { run } from '../../command.ts';
import { parseBoxSockets, type BoxSockets } from './sockets.ts';
import { BOX_INIT_PATH, DENIED_SYSCALLS } from './syscall-filter.ts';

/** Exit code of systemd-nspawn when the box asked for a reboot: start it again. */
const REBOOT_EXIT = 133;
const UID_RANGE = 65536;
/** Each file of a box's console log (console.log, then console.log.1 once it is full). */
export const CONSOLE_LOG_BYTES = 1024 * 1024;
/**
 * The box launcher's console writer (sh, in the box's directory): copies its input to `console.log` and
 * starts a new file each `$EG_CONSOLE_BYTES` bytes, keeping the one before as console.log.1
 * (each launch starts a new file too). `head -c` reads no more than it writes.
 */
export const CONSOLE_WRITER = [
  'while :; do',
  '  mv -f console.log console.log.1 2>/dev/null',
  '  head -c "$EG_CONSOLE_BYTES" > console.log',
  '  [ "$(wc -c < console.log)" -lt "$EG_CONSOLE_BYTES" ] && break',
  'done',
].join('\n');
/**
 * A box disk is made only while the file system keeps this much free after it (5 % of the file
 * system, at least 1 GiB): the platform's own data (PostgreSQL, secrets) lives there too.
 */
const HOST_RESERVE_FRACTION = 0.05;
const HOST_RESERVE_MIN_BYTES = 1024 ** 3;

/** The box's disk image in its directory, and where it is mounted. */
const DISK_IMAGE = 'disk.img';
const DISK_MOUNT = 'disk';

/** The host file system has no room for another box disk. */
export class DiskSpaceError extends Error {}

export interface MachineSpec {
  /** Runtime slot: names the machine and picks its UID range. */
  slot: number;
  hostname: string;
  address: string;
  prefixLength: number;
  gateway: string;
  /** crypt(3) hash of the root password, written on first start only. */
  rootPasswordHash: string;
  sshPublicKey: string | null;
  /** The box's loadout (operator/catalogue), written on first start only and installed by the box at boot. */
  loadout: BoxFile[];
  limits: BoxLimits;
}

export type MachineState =
  | { state: 'absent' }
  | { state: 'stopped' }
  | { state: 'starting'; pid: number }
  | { state: 'running'; pid: number; leader: number }
  | { state: 'exited'; code: number | null };

/**
 * One box of the local runtime: a systemd-nspawn system container booting the base image
 * through an overlay (the box's own changes live in `upper/`), in a user namespace of its own
 * (box root is an unprivileged UID on the host), in a network namespace of its own that the
 * container owns (so box root can firewall its box), attached to the arena bridge of the
 * router namespace, inside a cgroup with memory, CPU and process limits.
 *
 * The launcher runs detached from the API: boxes keep running across API restarts and are
 * found again by their pid file; `exit` records how the box ended.
 */
export class Machine {
  readonly id: string;
  readonly dir: string;
  readonly machineName: string;
  readonly #prefix: string;
  /** Size of a new disk of this box (an existing disk keeps its size). */
  readonly #diskMiB: number;

  constructor(options: { id: string; slot: number; boxesDir: string; prefix: string; diskMiB: number }) {
    this.id = options.id;
    this.dir = path.join(options.boxesDir, options.id);
    this.machineName = `${options.prefix}-b${options.slot}`;
    this.#prefix = options.prefix;
    this.#diskMiB = options.diskMiB;
  }

  /** Whether the box's disk was made ready once (identity written). */
  get provisioned(): boolean {
    return existsSync(path.join(this.dir, 'provisioned'));
  }

  /** Whether the box was never prepared for a start: no disk, no root, no launcher. */
  get neverPrepared(): boolean {
    return ['disk.img', 'root', 'upper', 'pid'].every((file) => !existsSync(path.join(this.dir, file)));
  }

  /** systemd-nspawn's host-side veth of this machine, a port of the arena bridge. */
  get interfaceName(): string {
    return `vb-${this.machineName}`;
  }
  get rootDir(): string {
    return path.join(this.dir, 'root');
  }
  cgroup(): BoxCgroup {
    return new BoxCgroup(cgroupGroup(this.#prefix), this.machineName);
  }
  static uidBase(slot: number): number {
    // Ranges from 0x10000000 up, one per slot, clear of ordinary host users.
    return UID_RANGE * (4096 + slot);
  }

  async #pid(): Promise<number | null> {
    const text = await readFile(path.join(this.dir, 'pid'), 'utf8').catch(() => null);
    if (!text) return null;
    const pid = Number(text.trim());
    try {
      // The launcher runs in the box's directory, which a spare's launcher keeps when the spare becomes
      // a box (its directory renamed). Compared as a file, not a path: a process of a box (which took a
      // stale pid) sees paths of its own mount namespace, but never this directory.
      const [cwd, dir] = await Promise.all([stat(`/proc/${pid}/cwd`), stat(this.dir)]);
      if (cwd.dev === dir.dev && cwd.ino === dir.ino) return pid;
      // Launchers from before that named the directory on their command line, which any process can say:
      // it must also have the host's root (a box's processes have the box's).
      const [root, hostRoot] = await Promise.all([stat(`/proc/${pid}/root`), stat('/')]);
      if (root.dev !== hostRoot.dev || root.ino !== hostRoot.ino) return null;
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
      return cmdline.includes(`exploit-grid-box:${this.dir}\0`) ? pid : null;
    } catch {
      return null;
    }
  }

  /**
   * The container's init (PID 1 inside), once booted. `known` is the one found before for this
   * launcher: still it while it lives with that parent (no walk of the box's cgroups then).
   */
  async #leader(launcher: number, known?: number): Promise<number | null> {
    if (known !== undefined) {
      const stat = await readFile(`/proc/${known}/stat`, 'utf8').catch(() => null);
      const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields && fields[0] !== 'Z' && Number(fields[1]) !== launcher) {
        const parentComm = await readFile(`/proc/${fields[1]}/comm`, 'utf8').catch(() => '');
        if (parentComm.trim() === 'systemd-nspawn') return known;
      }
    }
    for (const pid of await this.cgroup().pids()) {
      try {
        const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const ppid = Number(fields[1]);
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const parentComm = await readFile(`/proc/${ppid}/comm`, 'utf8').catch(() => '');
        if (comm === 'systemd' && parentComm.trim() === 'systemd-nspawn' && ppid !== launcher) return pid;
      } catch {
        // process ended while we looked
      }
    }
    return null;
  }

  /** `known`: the state this machine was last seen in (its init is looked for again only when it changed). */
  async state(known?: MachineState): Promise<MachineState> {
    if (!existsSync(this.dir)) return { state: 'absent' };
    const pid = await this.#pid();
    if (pid !== null) {
      const leader = await this.#leader(
        pid,
        known?.state === 'running' && known.pid === pid ? known.leader : undefined,
      );
      // Booted (and billed) from the moment the box's systemd runs, whatever listens in it.
      if (leader !== null) return { state: 'running', pid, leader };
      return { state: 'starting', pid };
    }
    const exit = await readFile(path.join(this.dir, 'exit'), 'utf8').catch(() => null);
    if (exit !== null) return { state: 'exited', code: exit.trim() === '' ? null : Number(exit.trim()) };
    return existsSync(path.join(this.dir, 'launched'))
      ? { state: 'exited', code: null }
      : { state: 'stopped' };
  }

  /**
   * The box's listening TCP ports and the peers of connections to its ssh port (read from the host through
   * the box's own /proc: its network namespace's tables).
   */
  async sockets(leader: number): Promise<BoxSockets> {
    const tables = await Promise.all(
      ['tcp', 'tcp6'].map((table) => readFile(`/proc/${leader}/net/${table}`, 'utf8').catch(() => '')),
    );
    return parseBoxSockets(tables);
  }

  /** Creates the box's directories and cgroup and mounts its root. Idempotent. */
  async prepare(currentImage: string, spec: MachineSpec): Promise<void> {
    // A box keeps the image it was made from (its upper layer only makes sense on that one);
    // new boxes get the current image.
    const recorded = await readFile(path.join(this.dir, 'image'), 'utf8').catch(() => null);
    const imagePath = recorded && existsSync(recorded) ? recorded : currentImage;
    if (recorded !== imagePath) {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFile(path.join(this.dir, 'image'), imagePath);
    }
    await chmod(this.dir, 0o700).catch(() => undefined);
    if (!(await isMountPoint(this.rootDir))) {
      await mountDisk(this.dir, this.#diskMiB);
      await mountOverlay(imagePath, this.dir);
    }
    // The box's `/` is the upper directory, made 0700 above: every user of the box but root
    // (messagebus, sshd's privilege separation, services) could not get past `/`.
    // The box directory (0700) keeps host users out.
    await chmod(this.rootDir, 0o755);
    await this.cgroup().create(spec.limits);
    // The box's user namespace sees host UID base+n as n. Shifting the tree here takes a
    // fraction of a second on the overlay (metadata copy-up only); systemd-nspawn's own
    // --private-users-ownership=chown pass over the same tree takes ten times longer.
    const base = Machine.uidBase(spec.slot);
    if ((await lstat(this.rootDir)).uid !== base) await shiftOwnership(this.rootDir, base);
    await this.#writeBoxFiles(spec);
  }

  /** Files the runtime owns inside the box; identity and secrets only on first start. */
  async #writeBoxFiles(spec: MachineSpec): Promise<void> {
    const base = Machine.uidBase(spec.slot);
    const root = this.rootDir;
    const firstStart = !existsSync(path.join(this.dir, 'provisioned'));
    // Box root may have planted symlinks on its last run: nothing written here follows one (a
    // link to an absolute path would lead to the host's file of that name; see boxDirectory).
    const write = async (file: string, content: string | Buffer, mode = 0o644) => {
      const full = path.join(await boxDirectory(root, path.dirname(file), base), path.basename(file));
      await rm(full, { force: true });
      await writeFile(full, content, { mode, flag: 'wx' });
      await chmod(full, mode);
      await lchown(full, base, base);
    };
    await write(
      BOX_NETWORK_FILE.slice(1),
      `ADDRESS=${spec.address}/${spec.prefixLength}\nGATEWAY=${spec.gateway}\n`,
    );
    // Boxes made before the referee watched from the host ran an agent inside: it goes.
    for (const leftover of [
      `etc/systemd/system/multi-user.target.wants/${AGENT_SERVICE}`,
      ...Object.values(AGENT_FILES).map((file) => file.slice(1)),
    ]) {
      // Only inside the box: a directory on the way may be box root's link to a host path.
      const parent = await realpath(path.join(root, path.dirname(leftover))).catch(() => null);
      if (parent?.startsWith(`${root}/`))
        await rm(path.join(parent, path.basename(leftover)), { force: true });
    }
    if (!firstStart) return;
    await this.#writeIdentity(spec, write);
    const hostKey = path.join(root, 'etc/ssh/ssh_host_ed25519_key');
    await rm(hostKey, { force: true });
    await rm(`${hostKey}.pub`, { force: true });
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `root@${spec.hostname}`, '-f', hostKey]);
    await chown(hostKey, base, base);
    await chown(`${hostKey}.pub`, base, base);
    if (spec.loadout.length > 0) {
      for (const file of spec.loadout) await write(file.path.slice(1), file.content, file.mode);
      // Root's alone, names included: another user of the box lists nothing there before the installer ran.
      await chmod(path.join(root, LOADOUT_DIR.slice(1)), 0o700);
      // Installed by the box itself at this first boot, as root, by a unit that runs once.
      await write(LOADOUT_UNIT.slice(1), LOADOUT_UNIT_FILE);
      const wants = await boxDirectory(root, 'etc/systemd/system/multi-user.target.wants', base);
      await rm(path.join(wants, LOADOUT_SERVICE), { force: true });
      await symlink(LOADOUT_UNIT, path.join(wants, LOADOUT_SERVICE));
      await lchown(path.join(wants, LOADOUT_SERVICE), base, base);
    }
    await writeFile(path.join(this.dir, 'provisioned'), new Date().toISOString());
  }

  /** Who the box is: its hostname, root's password and ssh key. */
  async #writeIdentity(
    spec: MachineSpec,
    write: (file: string, content: string, mode?: number) => Promise<void>,
  ): Promise<void> {
    const base = Machine.uidBase(spec.slot);
    const root = this.rootDir;
    await write('etc/hostname', `${spec.hostname}\n`);
    await write(
      'etc/hosts',
      `127.0.0.1\tlocalhost\n127.0.1.1\t${spec.hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
    );
    const shadowPath = path.join(await boxDirectory(root, 'etc', base), 'shadow');
    // Never through a link (to a host file).
    const handle = await open(shadowPath, constants.O_RDONLY | constants.O_NOFOLLOW);
    const shadow = (await handle.readFile('utf8').finally(() => handle.close()))
      .split('\n')
      .map((line) =>
        line.startsWith('root:') ? line.replace(/^root:[^:]*:/, `root:${spec.rootPasswordHash}:`) : line,
      )
      .join('\n');
    await write('etc/shadow', shadow, 0o640);
    if (spec.sshPublicKey) {
      await chmod(await boxDirectory(root, 'root/.ssh', base), 0o700);
      await write('root/.ssh/authorized_keys', `${spec.sshPublicKey}\n`, 0o600);
    }
  }

  /**
   * Makes a running spare (see pool.ts), now in this box's directory, this box: its hostname (the file and
   * the running box's own), root's password and key, and the box's limits. Its ssh host key, machine id and
   * loadout are its own already: it was booted for no one (root locked, no key) and nobody could reach it
   * (the router knows a box's port from its first start on), so nothing in it works against these writes.
   * Throws when the box is not running (then it is of no use: see pool.ts).
   */
  async takeOver(spec: MachineSpec): Promise<void> {
    const base = Machine.uidBase(spec.slot);
    const root = this.rootDir;
    await this.#writeIdentity(spec, async (file, content, mode = 0o644) => {
      const full = path.join(await boxDirectory(root, path.dirname(file), base), path.basename(file));
      // Written beside and renamed over: the box never reads half a file (sshd reads shadow at each login).
      const partial = `${full}.eg-new`;
      await rm(partial, { force: true });
      await writeFile(partial, content, { mode, flag: 'wx' });
      await chmod(partial, mode);
      await lchown(partial, base, base);
      await rename(partial, full);
    });
    // The init as it is now (the one seen before the writes could have ended).
    const now = await this.state();
    if (now.state !== 'running') throw new Error(`the spare is ${now.state}`);
    await run('nsenter', [`--target=${now.leader}`, '--uts', 'hostname', spec.hostname]);
    await this.cgroup().create(spec.limits);
    await writeFile(path.join(this.dir, 'provisioned'), new Date().toISOString());
  }

  /**
   * Starts the box detached from the API. The launcher shell joins the cgroup, enters the
   * router's network namespace (nspawn creates the box's own namespace and its bridge port
   * there) and restarts nspawn when the box reboots itself.
   */
  async start(
    spec: MachineSpec,
    routerNamespacePath: string,
    bridge: string,
    boxInit: string,
  ): Promise<number> {
    await rm(path.join(this.dir, 'exit'), { force: true });
    const nspawn = [
      'systemd-nspawn',
      '--quiet',
      '--register=no',
      '--keep-unit',
      // No console in the box: its systemd logs to its journal (on its disk), and box root has no
      // /dev/console to write to the host without end. The log holds nspawn's own lines.
      '--console=pipe',
      // Relative to the launcher's directory (the box's), which follows a spare that becomes a box.
      '--directory=root',
      `--machine=${this.machineName}`,
      `--hostname=${spec.hostname}`,
      `--private-users=${Machine.uidBase(spec.slot)}:${UID_RANGE}`,
      '--private-users-ownership=chown',
      `--network-bridge=${bridge}`,
      `--system-call-filter=~${DENIED_SYSCALLS.join(' ')}`,
      // The box's systemd starts under box-init's filter (no new user namespaces), so nspawn
      // runs a command instead of --boot; SIGRTMIN+3 is what --boot would stop it with.
      `--bind-ro=${boxInit}:${BOX_INIT_PATH}`,
      '--kill-signal=SIGRTMIN+3',
      '--',
      BOX_INIT_PATH,
      '/lib/systemd/systemd',
    ];
    const script = [
      'for f in $EG_CGROUP_PROCS; do echo $$ > "$f"; done',
      // What nspawn writes goes through CONSOLE_WRITER: a box rebooting itself without end adds
      // lines at each start, and they must not fill the host's disk.
      'pipe=console.pipe',
      'rm -f "$pipe" && mkfifo -m 600 "$pipe" || exit 1',
      `(${CONSOLE_WRITER}) < "$pipe" &`,
      'exec > "$pipe" 2>&1',
      'rm -f "$pipe"',
      'while :; do',
      `  nsenter --net="$EG_ROUTER_NETNS" "$@" </dev/null`,
      '  code=$?',
      `  [ "$code" -eq ${REBOOT_EXIT} ] || break`,
      'done',
      'echo "$code" > exit',
    ].join('\n');
    const log = openSync(path.join(this.dir, 'console.log'), 'a');
    try {
      const child = spawn('sh', ['-c', script, `exploit-grid-box:${this.machineName}`, ...nspawn], {
        detached: true,
        // Every path of the launcher is relative to it (see #pid).
        cwd: this.dir,
        stdio: ['ignore', log, log],
        env: {
          PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
          EG_CGROUP_PROCS: this.cgroup().procsFiles.join(' '),
          EG_ROUTER_NETNS: routerNamespacePath,
          EG_CONSOLE_BYTES: String(CONSOLE_LOG_BYTES),
        },
      });
      const pid = child.pid;
      if (pid === undefined) throw new Error('could not start systemd-nspawn');
      child.unref();
      await writeFile(path.join(this.dir, 'pid'), String(pid));
      await writeFile(path.join(this.dir, 'launched'), new Date().toISOString());
      return pid;
    } finally {
      closeSync(log);
    }
  }

  /** Asks the box to power off; after `timeoutMs` kills whatever is left. Then unmounts its root. */
  async stop(timeoutMs: number): Promise<void> {
    const pid = await this.#pid();
    if (pid !== null) {
      const leader = await this.#leader(pid);
      // SIGRTMIN+4 asks systemd inside for a clean poweroff.
      if (leader !== null) await run('kill', ['-s', 'SIGRTMIN+4', String(leader)]).catch(() => undefined);
      else await run('kill', ['-s', 'TERM', String(pid)]).catch(() => undefined);
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && (await this.#pid()) !== null) await sleep(100);
    }
    await this.cgroup().killAll();
    await rm(path.join(this.dir, 'pid'), { force: true });
    await rm(path.join(this.dir, 'launched'), { force: true });
    await rm(path.join(this.dir, 'exit'), { force: true });
    await this.unmount();
  }

  /** Unmounts the box's root, then its disk (which frees the disk's loop device). */
  async unmount(): Promise<void> {
    for (const dir of [this.rootDir, path.join(this.dir, DISK_MOUNT)])
      if (await isMountPoint(dir)) await run('umount', [dir]).catch(() => run('umount', ['-l', dir]));
  }

  /**
   * Saves the box's own changes (its disk's `upper` layer: files, owners, modes, whiteouts and the overlay's
   * attributes) to `file`, a compressed tar; answers its size. A disk in use (a running box) is frozen while it
   * is read, so the snapshot holds a consistent file system, for `SNAPSHOT_LIVE_MS` at most (the box waits
   * meanwhile); a stopped box's disk is mounted for the read. The snapshot is never larger than the disk
   * (box root could make tar's headers outgrow its content), and the host keeps its reserve.
   */
  async snapshot(file: string): Promise<number> {
    const mountPoint = path.join(this.dir, DISK_MOUNT);
    const mounted = await isMountPoint(mountPoint);
    if (!mounted) {
      if (!existsSync(path.join(this.dir, DISK_IMAGE))) throw new BoxHasNoDisk(this.id);
      await mountDisk(this.dir, this.#diskMiB);
    }
    const partial = `${file}.partial`;
    try {
      const limit = (await lstat(path.join(this.dir, DISK_IMAGE))).size;
      if (!(await hostHasRoom(path.dirname(file), limit)))
        throw new DiskSpaceError(`no room for a snapshot of up to ${Math.ceil(limit / 1024 ** 2)} MiB`);
      const tar = [
        `--fsize=${limit}`,
        'tar',
        ...SNAPSHOT_TAR,
        '--create',
        '--file',
        partial,
        '-C',
        path.join(mountPoint, 'upper'),
        '.',
      ];
      if (!mounted) await run('prlimit', tar, { timeoutMs: SNAPSHOT_STOPPED_MS });
      else
        try {
          await run('fsfreeze', ['--freeze', mountPoint]);
          await run('prlimit', tar, { timeoutMs: SNAPSHOT_LIVE_MS });
        } finally {
          // Whatever happened (a freeze that took effect though its command failed included).
          await thaw(mountPoint);
        }
      await rename(partial, file);
      return (await lstat(file)).size;
    } finally {
      await rm(partial, { force: true });
      if (!mounted) await run('umount', [mountPoint]).catch(() => run('umount', ['-l', mountPoint]));
    }
  }

  /** Thaws the box's disk if a snapshot left it frozen (an API that died meanwhile). */
  async thaw(): Promise<void> {
    const mountPoint = path.join(this.dir, DISK_MOUNT);
    if (await isMountPoint(mountPoint)) await thaw(mountPoint);
  }

  /**
   * Replaces the box's disk (the box is stopped) by a new one holding snapshot `file`, to be booted over
   * `imagePath` (the image it was taken on). The box's identity was in the snapshot: it is not written
   * again, and no loadout is installed again. The old disk comes back when this fails.
   */
  async restore(file: string, imagePath: string): Promise<void> {
    await this.unmount();
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const image = path.join(this.dir, DISK_IMAGE);
    const previous = `${image}.before-restore`;
    const had = existsSync(image);
    if (had) await rename(image, previous);
    const mountPoint = path.join(this.dir, DISK_MOUNT);
    try {
      await mountDisk(this.dir, this.#diskMiB);
      try {
        await run(
          'tar',
          [...SNAPSHOT_TAR, '--extract', '--file', file, '-C', path.join(mountPoint, 'upper')],
          { timeoutMs: SNAPSHOT_STOPPED_MS },
        );
      } finally {
        await run('umount', [mountPoint]).catch(() => run('umount', ['-l', mountPoint]));
      }
    } catch (err) {
      await rm(image, { force: true });
      if (had) await rename(previous, image);
      throw err;
    }
    await rm(previous, { force: true });
    await writeFile(path.join(this.dir, 'image'), imagePath);
    await writeFile(path.join(this.dir, 'provisioned'), new Date().toISOString());
  }

  /** Stops the box (waiting `timeoutMs` for it to power off) and removes everything it had: disk, cgroup, logs. */
  async destroy(timeoutMs = 2000): Promise<void> {
    await this.stop(timeoutMs);
    await this.cgroup().remove();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Forgets a box that ended by itself (after its state was read), so it can start again. */
  async clearExit(): Promise<void> {
    await this.cgroup().killAll();
    await rm(path.join(this.dir, 'exit'), { force: true });
    await rm(path.join(this.dir, 'launched'), { force: true });
    await rm(path.join(this.dir, 'pid'), { force: true });
    await this.unmount();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How snapshots are written and read: gzip (fast), numeric owners (the box's shifted UIDs), ACLs and every
 * extended attribute (the overlay's `trusted.overlay.*`: what a layer means depends on them), holes kept.
 */
/** How long a running box's disk may stay frozen for a snapshot; a larger one must be taken stopped. */
const SNAPSHOT_LIVE_MS = 60_000;
/** How long a snapshot of (or a restore into) a stopped box may take. */
const SNAPSHOT_STOPPED_MS = 15 * 60_000;

/** `fsfreeze --unfreeze`, where a disk that is not frozen is no error. */
async function thaw(mountPoint: string): Promise<void> {
  await run('fsfreeze', ['--unfreeze', mountPoint]).catch(() => undefined);
}

const SNAPSHOT_TAR = [
  '--use-compress-program=gzip -1',
  '--numeric-owner',
  '--acls',
  '--xattrs',
  '--xattrs-include=*',
  '--sparse',
];

/**
 * `root/relative` as a real directory inside the box, never following a link: a missing part is
 * made, and a part that is a symlink or not a directory (box root may have put one there, even
 * pointing at a host path) is replaced by a directory. New directories belong to box root.
 */
async function boxDirectory(root: string, relative: string, owner: number): Promise<string> {
  let dir = root;
  for (const part of relative.split('/').filter(Boolean)) {
    dir = path.join(dir, part);
    const stat = await lstat(dir).catch(() => null);
    if (stat?.isDirectory()) continue;
    // rm removes a link itself, not what it points at.
    if (stat) await rm(dir, { force: true });
    await mkdir(dir, { mode: 0o755 });
    await chown(dir, owner, owner);
  }
  return dir;
}

async function isMountPoint(dir: string): Promise<boolean> {
  const mounts = await readFile('/proc/self/mounts', 'utf8');
  const escaped = dir.replace(/ /g, '\\040');
  return mounts.split('\n').some((line) => line.split(' ')[1] === escaped);
}

/** Box directories present under `boxesDir` (box ids), for finding orphans. */
export async function listMachineDirs(boxesDir: string): Promise<string[]> {
  return (await readdir(boxesDir, { withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name);
}

/**
 * Mounts the box's own disk on `dir/disk`: an ext4 file system in `dir/disk.img` on a loop
 * device, so the kernel holds box root to its size (this host's kernels have no project quotas).
 * A new image is preallocated (fallocate, and mkfs told not to discard): the host's blocks are
 * taken when the disk is made, never later, so a box filling its disk cannot fill the host.
 * A box made before disks had a size moves its changes onto a disk of its own.
 */
async function mountDisk(dir: string, sizeMiB: number): Promise<void> {
  const mountPoint = path.join(dir, DISK_MOUNT);
  if (await isMountPoint(mountPoint)) return;
  await mkdir(mountPoint, { recursive: true, mode: 0o700 });
  const image = path.join(dir, DISK_IMAGE);
  if (!existsSync(image)) await makeDiskImage(image, sizeMiB);
  else {
    await growDisk(image, sizeMiB);
    // Blocks the file system gave back through the loop device (ext4 zeroes some ranges that
    // way) are taken again before the box runs: its disk stays preallocated. Best effort: a host
    // too full for them still holds the image to its size.
    await run('fallocate', ['-l', String((await lstat(image)).size), image]).catch(() => undefined);
  }
  // `-o loop` attaches a loop device that goes away with the unmount (autoclear); after a host
  // reboot the next start attaches it again.
  await run('mount', ['-o', 'loop,noatime', image, mountPoint]);
  await keepPreallocated(mountPoint);
  await chmod(mountPoint, 0o700);
  const legacy = path.join(dir, 'upper');
  if (existsSync(legacy) && !existsSync(path.join(mountPoint, 'upper'))) {
    // Copied aside first: a copy that does not fit leaves the old layer as it was.
    const copy = path.join(mountPoint, 'upper.moving');
    await rm(copy, { recursive: true, force: true });
    try {
      await run('cp', ['-a', legacy, copy]);
    } catch (err) {
      await rm(copy, { recursive: true, force: true });
      await run('umount', [mountPoint]).catch(() => undefined);
      throw err;
    }
    await rename(copy, path.join(mountPoint, 'upper'));
    await rm(legacy, { recursive: true, force: true });
    await rm(path.join(dir, 'work'), { recursive: true, force: true });
  }
  for (const sub of ['upper', 'work'])
    await mkdir(path.join(mountPoint, sub), { mode: 0o700 }).catch(() => undefined);
}

/**
 * Grows a disk (not mounted) to `sizeMiB` when BOX_DISK_MIB was raised since it was made; never
 * shrinks it. The image is extended (preallocated, within the host's reserve), checked and
 * resized. A host without the room leaves the disk as it was.
 */
async function growDisk(image: string, sizeMiB: number): Promise<void> {
  const size = sizeMiB * 1024 * 1024;
  const current = (await lstat(image)).size;
  if (current >= size || !(await hostHasRoom(path.dirname(image), size - current))) return;
  // Not while the kernel still holds it (a lazy unmount not yet released): it is checked below.
  if (await attachedToLoop(image)) return;
  // resize2fs wants a file system checked since it was last mounted; one that needs more than
  // that is left as it is.
  if (
    !(await run('e2fsck', ['-f', '-p', image]).then(
      () => true,
      () => false,
    ))
  )
    return;
  await run('fallocate', ['-l', String(size), image]);
  await run('resize2fs', [image]);
}

async function attachedToLoop(image: string): Promise<boolean> {
  for (const device of await readdir('/sys/block').catch(() => [])) {
    const backing = await readFile(`/sys/block/${device}/loop/backing_file`, 'utf8').catch(() => '');
    if (backing.trim() === image) return true;
  }
  return false;
}

/** Whether the host file system keeps its reserve (see HOST_RESERVE_FRACTION) after `bytes` more. */
async function hostHasRoom(dir: string, bytes: number): Promise<boolean> {
  const fs = await statfs(dir);
  const reserve = Math.max(HOST_RESERVE_MIN_BYTES, fs.blocks * fs.bsize * HOST_RESERVE_FRACTION);
  return fs.bavail * fs.bsize - bytes >= reserve;
}

/** Stops the disk's loop device from punching holes into its image (discards, unmapping zeroes). */
async function keepPreallocated(mountPoint: string): Promise<void> {
  const mounts = await readFile('/proc/self/mounts', 'utf8');
  const device = mounts
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => fields[1] === mountPoint)?.[0];
  const name = device ? path.basename(device) : null;
  if (!name?.startsWith('loop')) return;
  for (const limit of ['discard_max_bytes', 'write_zeroes_unmap_max_bytes'])
    await writeFile(`/sys/block/${name}/queue/${limit}`, '0').catch(() => undefined);
}

async function makeDiskImage(image: string, sizeMiB: number): Promise<void> {
  const size = sizeMiB * 1024 * 1024;
  if (!(await hostHasRoom(path.dirname(image), size))) {
    const fs = await statfs(path.dirname(image));
    throw new DiskSpaceError(
      `no room for a ${sizeMiB} MiB box disk: ${Math.floor((fs.bavail * fs.bsize) / 1024 ** 2)} MiB free`,
    );
  }
  const partial = `${image}.new`;
  await rm(partial, { force: true });
  try {
    await run('fallocate', ['-l', String(size), partial]);
    // No discard and no lazy zeroing of the inode tables at the first mount: both punch holes
    // into the image through the loop device, giving back blocks the box would take again.
    await run('mkfs.ext4', [
      '-q',
      '-F',
      '-m',
      '0',
      '-E',
      'nodiscard,lazy_itable_init=0,lazy_journal_init=0',
      partial,
    ]);
    await rename(partial, image);
  } finally {
    await rm(partial, { force: true });
  }
}

/**
 * Mounts `dir/root` as an overlay: the image below, the box's disk (`dir/disk/upper`) for the
 * box's own changes (metacopy: a change of owner copies metadata only). Answers the root path.
 */
async function mountOverlay(imagePath: string, dir: string): Promise<string> {
  await mkdir(path.join(dir, 'root'), { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const root = path.join(dir, 'root');
  const disk = path.join(dir, DISK_MOUNT);
  const layers = `lowerdir=${imagePath},upperdir=${path.join(disk, 'upper')},workdir=${path.join(disk, 'work')}`;
  // xino: the lower and upper layers are different file systems now (the image, the box's disk),
  // and without it a file would show its layer's device, not the overlay's: shiftOwnership,
  // which does not cross mounts, would skip every file of the image.
  await run('mount', [
    '-t',
    'overlay',
    'overlay',
    '-o',
    `${layers},metacopy=on,redirect_dir=on,xino=on`,
    root,
  ]);
  return root;
}

/** The parent cgroup of every box of a runtime prefix. */
export const cgroupGroup = (prefix: string) => (prefix === 'eg' ? 'exploit-grid' : `exploit-grid-${prefix}`);

/**
 * Adds `base` to the owner and group of every file under `root` (not crossing mounts), and
 * restores the set-user/group-ID bits that a change of owner clears. The root directory
 * goes last: systemd-nspawn takes a root owned by the range's base as already shifted.
 */
export async function shiftOwnership(root: string, base: number): Promise<void> {
  const rootDevice = (await lstat(root)).dev;
  const shift = async (file: string): Promise<void> => {
    const stat = await lstat(file);
    if (stat.dev !== rootDevice) return;
    if (stat.isDirectory() && file !== root) await shiftChildren(file);
    const uid = stat.uid >= base ? stat.uid : base + stat.uid;
    const gid = stat.gid >= base ? stat.gid : base + stat.gid;
    if (uid === stat.uid && gid === stat.gid) return;
    await lchown(file, uid, gid);
    if (!stat.isSymbolicLink() && stat.mode & 0o6000) await chmod(file, stat.mode & 0o7777);
  };
  const shiftChildren = async (dir: string): Promise<void> => {
    const entries = await readdir(dir);
    // A bounded fan-out keeps the walk fast without opening thousands of files at once.
    for (let i = 0; i < entries.length; i += 64)
      await Promise.all(entries.slice(i, i + 64).map((entry) => shift(path.join(dir, entry))));
  };
  await shiftChildren(root);
  await shift(root);
}
