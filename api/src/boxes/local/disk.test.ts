import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { testLogger } from '../../testing/logger.ts';
import { requireBoxHost } from '../../testing/netns.ts';
import { sweepCgroups } from './cgroups.ts';
import { BaseImage } from './image.ts';
import { Machine, cgroupGroup, type MachineSpec } from './machine.ts';

const execFileAsync = promisify(execFile);
const MiB = 1024 * 1024;

/**
 * Box disks on this host, below the runtime (runtime.test.ts boots boxes on them): an old box's
 * layer moved onto a disk of its own, and a disk grown when BOX_DISK_MIB was raised. Needs root
 * and the box packages; skips loudly otherwise (fails with REQUIRE_BOX_RUNTIME=1).
 */
describe('box disks on this host (ext4 images on loop devices)', function () {
  this.timeout(60_000);
  const prefix = `egd${randomBytes(2).toString('hex').slice(0, 3)}`;
  let tmp: string | undefined;
  let boxesDir: string;
  let imagePath: string;
  const machines: Machine[] = [];

  const spec = (slot: number): MachineSpec => ({
    slot,
    hostname: `disk-${slot}`,
    address: '10.99.1.2',
    prefixLength: 24,
    gateway: '10.99.1.1',
    rootPasswordHash: '*',
    sshPublicKey: null,
    loadout: [],
    limits: { memoryMiB: 128, cpuMillis: 100, pids: 64 },
  });
  const machine = (id: string, slot: number, diskMiB: number) => {
    const m = new Machine({ id, slot, boxesDir, prefix, diskMiB });
    machines.push(m);
    return m;
  };

  before(async function () {
    this.timeout(300_000);
    await requireBoxHost(this, 'box disk tests');
    tmp = await mkdtemp(path.join(os.tmpdir(), `${prefix}-`));
    boxesDir = path.join(tmp, 'boxes');
    await mkdir(boxesDir, { mode: 0o700 });
    // The image runtime.test.ts builds, in the same cache.
    imagePath = await new BaseImage({
      dir: path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'exploit-grid/images'),
      suite: 'bookworm',
      logger: testLogger,
    }).ensure();
  });

  after(async function () {
    if (!tmp) return;
    for (const m of machines) await m.destroy().catch(() => undefined);
    await sweepCgroups(cgroupGroup(prefix));
    const loops: string[] = [];
    for (let i = 0; i < 50; i++) {
      loops.length = 0;
      for (const device of await readdir('/sys/block')) {
        const backing = await readFile(`/sys/block/${device}/loop/backing_file`, 'utf8').catch(() => '');
        if (backing.startsWith(`${tmp}/`)) loops.push(device);
      }
      if (!loops.length) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const mounts = (await readFile('/proc/self/mounts', 'utf8')).split('\n').filter((l) => l.includes(tmp!));
    await rm(tmp, { recursive: true, force: true });
    expect({ loops, mounts }, 'what the disks left on the host').to.deep.equal({ loops: [], mounts: [] });
  });

  /** Waits until the kernel has let go of the loop device of an unmounted image (it does so a moment later). */
  async function loopReleased(image: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      let attached = false;
      for (const device of await readdir('/sys/block')) {
        const backing = await readFile(`/sys/block/${device}/loop/backing_file`, 'utf8').catch(() => '');
        if (backing.trim() === image) attached = true;
      }
      if (!attached) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect.fail(`the loop device of ${image} was not released`);
  }

  /** A box directory as the runtime made them before disks had a size: the upper layer beside it. */
  async function oldBox(id: string, files: Record<string, string>, bigMiB = 0): Promise<string> {
    const dir = path.join(boxesDir, id);
    for (const sub of ['upper', 'work', 'root']) await mkdir(path.join(dir, sub), { recursive: true });
    const root = path.join(dir, 'root');
    const layers = `lowerdir=${imagePath},upperdir=${dir}/upper,workdir=${dir}/work`;
    await execFileAsync('mount', [
      '-t',
      'overlay',
      'overlay',
      '-o',
      `${layers},metacopy=on,redirect_dir=on`,
      root,
    ]);
    try {
      for (const [file, content] of Object.entries(files)) await writeFile(path.join(root, file), content);
      if (bigMiB) await execFileAsync('fallocate', ['-l', `${bigMiB}M`, path.join(root, 'root/big')]);
    } finally {
      await execFileAsync('umount', [root]);
    }
    return dir;
  }

  it('moves an old box’s layer onto a disk of its own, shifted into its range; one too big for the disk stays as it was', async () => {
    const dir = await oldBox('old-small', { 'root/notes': 'from before disks\n', 'etc/motd': 'changed\n' });
    const small = machine('old-small', 3, 300);
    await small.prepare(imagePath, spec(3));
    expect(await readFile(path.join(dir, 'root/root/notes'), 'utf8')).to.equal('from before disks\n');
    expect(await readFile(path.join(dir, 'root/etc/motd'), 'utf8')).to.equal('changed\n');
    expect(existsSync(path.join(dir, 'upper')), 'the old layer beside the disk').to.equal(false);
    expect(existsSync(path.join(dir, 'disk/upper/root/notes')), 'the layer on the disk').to.equal(true);
    expect((await stat(path.join(dir, 'root/etc/passwd'))).uid).to.equal(Machine.uidBase(3));
    await small.unmount();

    const bigDir = await oldBox('old-big', { 'root/notes': 'kept\n' }, 400);
    const big = machine('old-big', 4, 300);
    let refused: unknown = null;
    await big.prepare(imagePath, spec(4)).catch((err: unknown) => (refused = err));
    expect(String(refused), 'a layer larger than the disk').to.match(/No space left on device/);
    expect(await readFile(path.join(bigDir, 'upper/root/notes'), 'utf8')).to.equal('kept\n');
    expect((await stat(path.join(bigDir, 'upper/root/big'))).size).to.equal(400 * MiB);
    expect(existsSync(path.join(bigDir, 'disk/upper')), 'a partial copy on the disk').to.equal(false);
  });

  it('grows a disk at its next mount, preallocated, when BOX_DISK_MIB was raised; never shrinks one', async () => {
    const first = machine('growing', 5, 300);
    await first.prepare(imagePath, spec(5));
    await writeFile(path.join(first.rootDir, 'root/kept'), 'kept\n');
    const fsSize = async () => {
      const { stdout } = await execFileAsync('df', ['-B1', '--output=size', path.join(first.dir, 'disk')]);
      return Number(stdout.trim().split('\n')[1]);
    };
    const before = await fsSize();
    await first.unmount();
    await loopReleased(path.join(first.dir, 'disk.img'));

    const raised = machine('growing', 5, 400);
    await raised.prepare(imagePath, spec(5));
    const image = await stat(path.join(raised.dir, 'disk.img'));
    expect(image.size).to.equal(400 * MiB);
    expect(image.blocks * 512, 'preallocated on the host').to.be.at.least(400 * MiB);
    expect((await fsSize()) - before, 'the file system’s new size').to.be.above(90 * MiB);
    expect(await readFile(path.join(raised.rootDir, 'root/kept'), 'utf8')).to.equal('kept\n');
    await raised.unmount();
    await loopReleased(path.join(raised.dir, 'disk.img'));

    const lowered = machine('growing', 5, 256);
    await lowered.prepare(imagePath, spec(5));
    expect((await stat(path.join(lowered.dir, 'disk.img'))).size).to.equal(400 * MiB);
    await lowered.unmount();
  });
});
