import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.ts';
import { cataloguePackages, loadCatalogue } from '@exploit-grid/operator/catalogue';
import { run, runStreaming } from '../../command.ts';

/** Debian packages of every box, besides debootstrap's minbase and the catalogue's (CATALOGUE_PACKAGES). */
const BASE_PACKAGES = [
  'systemd-sysv',
  'dbus',
  'openssh-server',
  'iproute2',
  'procps',
  'netcat-openbsd',
  'nftables',
  'sudo',
  'less',
  'nano',
  'nodejs',
];

/**
 * Every catalogue entry's packages are in every box (boxes reach no mirror, and a loadout installs
 * at first boot in a second or two); an entry's install script enables what it uses.
 */
export const CATALOGUE_PACKAGES = cataloguePackages(loadCatalogue());

/** Debian packages of every box, besides debootstrap's minbase. */
export const BOX_PACKAGES = [...new Set([...BASE_PACKAGES, ...CATALOGUE_PACKAGES])];

/** Bump when the customisation below changes: it names the image, so boxes get the new one. */
const RECIPE_VERSION = 5;

/** The file inside a box the network unit reads (written per box by the runtime). */
export const BOX_NETWORK_FILE = '/etc/exploit-grid/network';

const NETWORK_SCRIPT = `#!/bin/sh
# Exploit Grid: configures the box's arena address on host0 from ${BOX_NETWORK_FILE}.
set -eu
. ${BOX_NETWORK_FILE}
i=0
while ! ip link show host0 >/dev/null 2>&1; do
  i=$((i + 1)); [ "$i" -gt 100 ] && { echo "host0 did not appear" >&2; exit 1; }
  sleep 0.05
done
ip link set lo up
ip address replace "$ADDRESS" dev host0
ip link set host0 up
ip route replace default via "$GATEWAY" dev host0
`;

const NETWORK_UNIT = `[Unit]
Description=Exploit Grid arena network
DefaultDependencies=no
Before=network.target ssh.service
Wants=network.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/exploit-grid-network

[Install]
WantedBy=multi-user.target
`;

const SSHD_CONFIG = `# Exploit Grid: the owner logs in as root with the password shown on My Box (or their key).
PermitRootLogin yes
PasswordAuthentication yes
HostKey /etc/ssh/ssh_host_ed25519_key
`;

const DPKG_NODOC = `# Exploit Grid: boxes carry no manuals, info pages or translations.
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
`;

/** Units that make no sense in a box or wake 50 boxes at once for nothing. */
const MASKED_UNITS = [
  'apt-daily.timer',
  'apt-daily-upgrade.timer',
  'e2scrub_all.timer',
  'e2scrub_reap.service',
  'dpkg-db-backup.timer',
  'console-getty.service',
  'getty@tty1.service',
  'systemd-networkd-wait-online.service',
];

/**
 * Units the catalogue's packages enable that no box should start by itself: the entries that use the
 * packages run them their own way (job-queue's Redis, ftp-dropbox's vsftpd), and a box without them must
 * not listen on their ports. Disabled, not masked: an owner may still use them.
 */
const DISABLED_UNITS = ['redis-server.service', 'vsftpd.service'];

export type ImageState = 'missing' | 'building' | 'ready' | 'failed';

export interface ImageStatus {
  state: ImageState;
  percent: number;
  step: string | null;
  error: string | null;
}

const RETRY_AFTER_MS = 60_000;

/** debootstrap prints about this many progress lines for the package set above. */
const EXPECTED_LINES = 640;

/**
 * The Debian base image of every box: debootstrap's minbase plus BOX_PACKAGES, customised
 * (arena network unit, sshd for root, no host keys, quiet timers). Built once into
 * `dir/<name>` and reused; each box is an overlay on top of it.
 */
export class BaseImage {
  readonly name: string;
  readonly path: string;
  #status: ImageStatus = { state: 'missing', percent: 0, step: null, error: null };
  #building: Promise<string> | null = null;
  #failedAt = 0;
  readonly #dir: string;
  readonly #suite: string;
  readonly #mirror: string | undefined;
  readonly #log: Logger;

  constructor(options: { dir: string; suite: string; mirror?: string; logger: Logger }) {
    this.#dir = options.dir;
    this.#suite = options.suite;
    this.#mirror = options.mirror;
    this.#log = options.logger.child({ component: 'box-image' });
    const recipe = JSON.stringify({ suite: options.suite, packages: BOX_PACKAGES, version: RECIPE_VERSION });
    this.name = `debian-${options.suite}-${createHash('sha256').update(recipe).digest('hex').slice(0, 12)}`;
    this.path = path.join(this.#dir, this.name);
    if (existsSync(path.join(this.path, 'etc/os-release')))
      this.#status = { state: 'ready', percent: 100, step: null, error: null };
  }

  get status(): ImageStatus {
    return { ...this.#status };
  }

  /** Answers the image path, building it first when missing (one build at a time). */
  ensure(): Promise<string> {
    if (this.#status.state === 'ready') return Promise.resolve(this.path);
    // After a failed build (no mirror reachable, disk full) try again a minute later, not at every loop pass.
    if (this.#status.state === 'failed' && Date.now() - this.#failedAt < RETRY_AFTER_MS)
      return Promise.reject(new Error(this.#status.error ?? 'the base image build failed'));
    this.#building ??= this.#build().finally(() => (this.#building = null));
    return this.#building;
  }

  async #build(): Promise<string> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    // Half-built trees of a build that was interrupted.
    for (const entry of await readdir(this.#dir)) {
      if (entry.startsWith(`.build-${this.name}`))
        await rm(path.join(this.#dir, entry), { recursive: true, force: true });
    }
    const target = path.join(this.#dir, `.build-${this.name}-${process.pid}`);
    this.#status = { state: 'building', percent: 0, step: 'Starting debootstrap', error: null };
    this.#log.info(
      { image: this.name },
      'Building the box base image with debootstrap (first run only, about a minute)',
    );
    let lines = 0;
    let lastLogged = -10;
    try {
      const args = [
        '--variant=minbase',
        `--include=${BOX_PACKAGES.join(',')}`,
        this.#suite,
        target,
        ...(this.#mirror ? [this.#mirror] : []),
      ];
      await runStreaming('debootstrap', args, (line) => {
        if (!line.startsWith('I: ')) return;
        lines++;
        const percent = Math.min(99, Math.floor((lines / EXPECTED_LINES) * 100));
        this.#status = { state: 'building', percent, step: line.slice(3), error: null };
        if (percent >= lastLogged + 10) {
          lastLogged = percent - (percent % 10);
          this.#log.info({ image: this.name, percent, step: line.slice(3) }, 'Building the box base image');
        }
      });
      await customise(target);
      await rename(target, this.path);
      this.#status = { state: 'ready', percent: 100, step: null, error: null };
      this.#log.info({ image: this.name, path: this.path }, 'Box base image ready');
      return this.path;
    } catch (err) {
      await rm(target, { recursive: true, force: true }).catch(() => undefined);
      const message = err instanceof Error ? err.message : String(err);
      this.#status = { state: 'failed', percent: 0, step: null, error: message };
      this.#failedAt = Date.now();
      this.#log.error({ err, image: this.name }, 'Box base image build failed');
      throw err;
    }
  }
}

async function customise(root: string): Promise<void> {
  const file = (p: string) => path.join(root, p);
  await rm(file('etc/hostname'), { force: true });
  await writeFile(file('etc/machine-id'), '');
  await rm(file('var/lib/dbus/machine-id'), { force: true });
  for (const key of await readdir(file('etc/ssh'))) {
    if (key.startsWith('ssh_host_')) await rm(file(`etc/ssh/${key}`));
  }
  await writeFile(file('etc/ssh/sshd_config.d/exploit-grid.conf'), SSHD_CONFIG);
  // pam_motd runs /etc/update-motd.d as root for every login, before the user's shell: the
  // referee would see root programs in the tree of a user's ssh session (docs/detection.md).
  for (const service of ['sshd', 'login']) {
    const pam = file(`etc/pam.d/${service}`);
    const text = await readFile(pam, 'utf8');
    await writeFile(
      pam,
      text.replace(
        /^(session\s+optional\s+pam_motd\.so.*)$/gm,
        '# $1 (Exploit Grid: runs root programs at login)',
      ),
    );
  }
  await mkdir(file('etc/exploit-grid'), { recursive: true });
  await writeFile(file('usr/local/sbin/exploit-grid-network'), NETWORK_SCRIPT);
  await chmod(file('usr/local/sbin/exploit-grid-network'), 0o755);
  await writeFile(file('etc/systemd/system/exploit-grid-network.service'), NETWORK_UNIT);
  await mkdir(file('etc/systemd/system/multi-user.target.wants'), { recursive: true });
  await rm(file('etc/systemd/system/multi-user.target.wants/exploit-grid-network.service'), { force: true });
  await run('ln', [
    '-s',
    '/etc/systemd/system/exploit-grid-network.service',
    file('etc/systemd/system/multi-user.target.wants/exploit-grid-network.service'),
  ]);
  for (const unit of MASKED_UNITS) {
    await rm(file(`etc/systemd/system/${unit}`), { force: true });
    await run('ln', ['-s', '/dev/null', file(`etc/systemd/system/${unit}`)]);
  }
  await run('systemctl', ['--root', root, '--quiet', 'disable', ...DISABLED_UNITS]);
  // No man, info or translations (minbase has no man command), docs but their copyright
  // files: 40% fewer files to shift into each box's user namespace. dpkg keeps it that way.
  await writeFile(file('etc/dpkg/dpkg.cfg.d/exploit-grid-nodoc'), DPKG_NODOC);
  for (const dir of ['usr/share/man', 'usr/share/info', 'usr/share/locale']) {
    await rm(file(dir), { recursive: true, force: true });
    await mkdir(file(dir), { recursive: true });
  }
  await run('find', [
    file('usr/share/doc'),
    '-mindepth',
    '1',
    '!',
    '-type',
    'd',
    '!',
    '-name',
    'copyright',
    '-delete',
  ]);
  await run('find', [file('usr/share/doc'), '-mindepth', '1', '-type', 'd', '-empty', '-delete']);
  await rm(file('var/cache/apt/archives'), { recursive: true, force: true });
  await mkdir(file('var/cache/apt/archives/partial'), { recursive: true });
}
