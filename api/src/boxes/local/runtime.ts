import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BOX_MESSAGES, type VpnProtocol } from '../../contracts/boxes.ts';
import type { Logger } from '../../logger.ts';
import { VpnPki, newTlsCryptKey } from '@exploit-grid/operator/pki';
import {
  loadCatalogue,
  loadoutFiles,
  runChecks,
  type CheckResult,
  type LoadoutSize,
  type ServiceCheck,
} from '@exploit-grid/operator/catalogue';
import type {
  BoxObservation,
  BoxOrchestrator,
  BoxResources,
  BoxSpec,
  OrchestratorEvents,
  OrchestratorStatus,
  RevokedIdentity,
  VpnIdentity,
  VpnProfile,
  VpnSession,
} from '../orchestrator.ts';
import { BoxHasNoDisk, SnapshotImageGone } from '../orchestrator.ts';
import { isUuid } from '../../ids.ts';
import { KeyedLock } from '../../keyed-lock.ts';
import { hostAddress, networkSize, parseNetwork } from './addressing.ts';
import { run, which } from '../../command.ts';
import { BaseImage } from './image.ts';
import {
  DiskSpaceError,
  Machine,
  cgroupGroup,
  listMachineDirs,
  type MachineSpec,
  type MachineState,
} from './machine.ts';
import { WarmPool } from './pool.ts';
import { resolvePlayerCpus, sweepCgroups } from './cgroups.ts';
import { ensureBoxInit } from './syscall-filter.ts';
import { BRIDGE, RouterNetwork, TUN_TCP, TUN_UDP, type AccessPair } from './network.ts';
import { clientConfig } from '../../vpn/client-config.ts';
import { VpnServer, type VpnClientSession } from './openvpn.ts';
import { VpnIngress } from './ingress.ts';
import { ArenaProbe, type ServiceProbe } from './probe.ts';
import { HostReferee, type RefereeTarget, type VerdictSink } from '../../referee/host.ts';
import { traceScript } from '../../referee/trace.ts';
import { Tracer } from '../../referee/tracer.ts';

export interface LocalRuntimeOptions {
  dataDir: string;
  imageDir: string;
  imageSuite: string;
  imageMirror?: string;
  prefix: string;
  arenaSubnet: string;
  transitSubnet: string;
  vpnUdpSubnet: string;
  vpnTcpSubnet: string;
  vpnPublicHost: string;
  vpnListenHost: string;
  vpnUdpPort: number;
  vpnTcpPort: number;
  vpnMaxClients: number;
  stopTimeoutMs: number;
  /** Size of each new box's disk (BOX_DISK_MIB). */
  diskMiB: number;
  /** Where boxes and the VPN servers run (PLAYER_CPUS: auto, all or a CPU list; default auto). */
  playerCpus?: string;
  /** Spare boxes kept booted for new boxes (BOX_WARM_POOL; pool.ts); 0 or absent: none. */
  warmPool?: number;
  /** The loadout sizes new boxes get (BOX_LOADOUT_IN/UP): the spares' loadouts are drawn the same way. */
  loadout?: LoadoutSize;
  /** A box's limits (BOX_MEMORY_MIB, ...), which spares boot with. */
  resources?: BoxResources;
  logger: Logger;
}

/** Commands the local runtime runs on the host, with the Debian package that has each. */
const REQUIRED_COMMANDS: [string, string][] = [
  ['systemd-nspawn', 'systemd-container'],
  ['debootstrap', 'debootstrap'],
  ['openvpn', 'openvpn'],
  ['nft', 'nftables'],
  ['ip', 'iproute2'],
  ['bridge', 'iproute2'],
  ['nsenter', 'util-linux'],
  ['ssh-keygen', 'openssh-client'],
  ['openssl', 'openssl'],
  // Box disks: an ext4 image each, on a loop device.
  ['mkfs.ext4', 'e2fsprogs'],
  ['e2fsck', 'e2fsprogs'],
  ['resize2fs', 'e2fsprogs'],
  ['fallocate', 'util-linux'],
  ['losetup', 'util-linux'],
  // box-init, the boxes' syscall filter, is compiled on the host (static, with libc6-dev).
  ['cc', 'gcc'],
  // The referee watches boxes from the host through the kernel (docs/detection.md).
  ['bpftrace', 'bpftrace'],
];

/** Arena addresses: .1 is the router; boxes start at the 257th address. */
const FIRST_BOX_HOST = 257;
const ROUTER_VPN_PORT = 1194;
/** Host kernel limits boxes need (see #raiseHostLimits), sized for a few hundred boxes. */
const HOST_LIMITS: [string, number][] = [
  ['/proc/sys/fs/inotify/max_user_instances', 8192],
  ['/proc/sys/fs/inotify/max_user_watches', 1_048_576],
  ['/proc/sys/user/max_inotify_instances', 8192],
  ['/proc/sys/kernel/keys/maxkeys', 20_000],
];

/** A box whose systemd has not started this long after its launch is stopped and reported CRASHED. */
const BOOT_TIMEOUT_MS = 90_000;

/**
 * The local adapter of the BoxOrchestrator port: boxes as systemd-nspawn containers and the
 * VPN as two OpenVPN servers, all in a router network namespace on this host (see
 * docs/boxes.md). Boxes and VPN servers run detached and survive API restarts.
 */
export class LocalRuntime implements BoxOrchestrator {
  readonly name = 'local';
  readonly events = new EventEmitter<OrchestratorEvents>();
  /** Read from each running box's network namespace with its open ports (machine.sockets). */
  readonly seesSshClients = true;
  readonly router: RouterNetwork;
  readonly image: BaseImage;
  readonly #o: LocalRuntimeOptions;
  readonly #log: Logger;
  readonly #specs = new Map<string, BoxSpec>();
  /** Work on one box at a time. */
  readonly #locks = new KeyedLock();
  readonly #windows = new Map<string, { attackerUserId: string; boxId: string; until: number }>();
  readonly #servers: Record<VpnProtocol, VpnServer>;
  readonly #ingress: VpnIngress;
  readonly #probe: ArenaProbe;
  #pki: VpnPki | null = null;
  #tlsCryptKey = '';
  #serverName: string;
  /** The CPUs players' work runs on (boxes, VPN servers), or null for any (PLAYER_CPUS). */
  readonly #playerCpus: string | null;
  #unavailable: string | null = 'The box runtime is starting.';
  #accessChain: Promise<void> = Promise.resolve();
  /** Bridge port updates, one after the other (two boxes applied at once must not undo each other). */
  #portsChain: Promise<void> = Promise.resolve();
  #authorize: (userId: string) => Promise<boolean> = async () => false;
  readonly #pool: WarmPool;
  /** The box-init binary (syscall-filter.ts), once compiled. */
  #boxInit = '';
  readonly #bootingSince = new Map<string, number>();
  /** Each box's state as last seen (its init is looked for again only when its launcher changed). */
  readonly #seen = new Map<string, MachineState>();
  /** The launcher (systemd-nspawn) whose bridge port was isolated, by box: once per start. */
  readonly #isolated = new Map<string, number>();
  #closing = false;

  constructor(options: LocalRuntimeOptions) {
    this.#o = options;
    this.#log = options.logger.child({ component: 'local-runtime' });
    const arena = parseNetwork(options.arenaSubnet);
    const vpnUdp = parseNetwork(options.vpnUdpSubnet);
    const vpnTcp = parseNetwork(options.vpnTcpSubnet);
    this.router = new RouterNetwork(
      {
        prefix: options.prefix,
        arena,
        transit: parseNetwork(options.transitSubnet),
        vpnUdp,
        vpnTcp,
        vpnPort: ROUTER_VPN_PORT,
      },
      options.logger,
    );
    this.#probe = new ArenaProbe(this.router, () => this.#servers.UDP.pidNow() ?? this.#servers.TCP.pidNow());
    this.image = new BaseImage({
      dir: options.imageDir,
      suite: options.imageSuite,
      mirror: options.imageMirror,
      logger: options.logger,
    });
    this.#pool = new WarmPool(
      {
        boxesDir: this.#boxesDir,
        size: options.warmPool ?? 0,
        diskMiB: options.diskMiB,
        loadout: options.loadout ?? { in: 0, up: 0 },
        catalogue: loadCatalogue(),
        logger: options.logger,
      },
      {
        imagePath: () => (this.image.status.state === 'ready' ? this.image.path : null),
        slotInUse: (slot) => [...this.#specs.values()].some((spec) => spec.slot === slot),
        machine: (id, slot) => this.#machine({ id, slot }),
        spareSpec: (slot, loadout) =>
          this.#machineSpec(
            {
              id: '',
              slot,
              hostname: '',
              ownerId: '',
              power: true,
              rootPassword: '',
              sshPublicKey: null,
              agentToken: null,
              loadout,
              resources: options.resources ?? { memoryMiB: 512, cpuMillis: 500, pids: 512 },
            },
            this.boxAddress(slot),
            true,
          ),
        boot: async (machine, spec) => {
          await machine.prepare(this.image.path, spec);
          await machine.start(spec, this.router.namespacePath, BRIDGE, this.#boxInit);
        },
      },
    );
    this.#serverName = `${options.prefix}-vpn-server`;
    this.#playerCpus = resolvePlayerCpus(options.playerCpus ?? 'auto');
    const server = (protocol: VpnProtocol, clients: typeof vpnUdp, device: string) =>
      new VpnServer({
        protocol,
        dir: path.join(this.#vpnDir, protocol.toLowerCase()),
        // In a directory of root's alone (openvpn.ts, crlPath).
        socketPath: `/run/exploit-grid/${options.prefix}/management/${protocol.toLowerCase()}.sock`,
        device,
        localAddress: this.router.routerTransitAddress,
        port: ROUTER_VPN_PORT,
        clients,
        routes: [arena],
        maxClients: options.vpnMaxClients,
        group:
          existsSync('/etc/group') && readFileSync('/etc/group', 'utf8').includes('\nnogroup:')
            ? 'nogroup'
            : 'nobody',
        routerNamespacePath: this.router.namespacePath,
        cpus: this.#playerCpus,
        logger: options.logger,
      });
    this.#servers = { UDP: server('UDP', vpnUdp, TUN_UDP), TCP: server('TCP', vpnTcp, TUN_TCP) };
    this.#ingress = new VpnIngress(this.router, {
      listenHost: options.vpnListenHost,
      udpPort: options.vpnUdpPort,
      tcpPort: options.vpnTcpPort,
      routerPort: ROUTER_VPN_PORT,
      logger: options.logger,
    });
    for (const s of Object.values(this.#servers)) {
      s.authorizer = (commonName) => this.#authorize(commonName);
      s.on('connected', (session) => {
        this.events.emit('vpnConnected', toVpnSession(session));
        this.#syncAccess();
      });
      s.on('disconnected', (session) => {
        this.events.emit('vpnDisconnected', toVpnSession(session));
        this.#syncAccess();
      });
    }
  }

  get #vpnDir(): string {
    return path.join(this.#o.dataDir, 'vpn');
  }
  get #boxesDir(): string {
    return path.join(this.#o.dataDir, 'boxes');
  }

  /** Why this host cannot run boxes, or null. */
  static async hostProblem(): Promise<string | null> {
    if (process.platform !== 'linux')
      return 'Boxes run on Linux only; this API runs on ' + process.platform + '.';
    if (process.getuid?.() !== 0)
      return 'The local box runtime needs root (network namespaces, containers, VPN): run the API as root.';
    const missing: string[] = [];
    for (const [command, pkg] of REQUIRED_COMMANDS) {
      if (!(await which(command)) && !missing.includes(pkg)) missing.push(pkg);
    }
    if (missing.length)
      return `The local box runtime needs these Debian packages: ${missing.join(', ')} (run \`make box-deps\`).`;
    if (!existsSync('/dev/net/tun')) return 'The local box runtime needs /dev/net/tun for the VPN.';
    return null;
  }

  async start(): Promise<void> {
    const problem = await LocalRuntime.hostProblem();
    if (problem) {
      // Players read the reason; the host's problem (packages, root) is for the operators, in the log.
      this.#unavailable = BOX_MESSAGES.runtimeUnavailable;
      this.#log.warn(problem);
      return;
    }
    try {
      await mkdir(this.#boxesDir, { recursive: true, mode: 0o700 });
      this.#boxInit = await ensureBoxInit(path.join(this.#o.dataDir, 'box-init'));
      await this.#raiseHostLimits();
      await this.router.ensure();
      await this.#loadPki();
      const crl = await this.#pki!.crl([]);
      await this.#ensureServers(crl);
      await this.#ingress.ensure();
      await this.#thawDisks();
      this.#unavailable = null;
      // The first run builds the base image now, with progress in the log, not at the first box.
      this.image.ensure().catch(() => undefined);
    } catch (err) {
      // Players see that boxes are down; the command output (host details) stays in the log.
      this.#unavailable = BOX_MESSAGES.runtimeUnavailable;
      this.#log.error({ err }, 'Local box runtime failed to start');
    }
  }

  /** Thaws every box disk a snapshot left frozen (an API that died while it read one). */
  async #thawDisks(): Promise<void> {
    for (const id of await listMachineDirs(this.#boxesDir)) {
      const slot = await this.#slotOnDisk(id);
      if (slot !== null) await this.#machine({ id, slot }).thaw();
    }
  }

  /**
   * Kernel limits that every box counts against its creator (root): each booted systemd holds
   * about ten inotify instances, and the default of 128 stops the 13th box halfway through its
   * boot. Only ever raised, never lowered.
   */
  async #raiseHostLimits(): Promise<void> {
    for (const [file, wanted] of HOST_LIMITS) {
      const current = Number((await readFile(file, 'utf8').catch(() => '0')).trim());
      if (current >= wanted) continue;
      try {
        await writeFile(file, String(wanted));
        this.#log.info(
          { setting: file.replace('/proc/sys/', '').replaceAll('/', '.'), from: current, to: wanted },
          'Raised a kernel limit for boxes',
        );
      } catch (err) {
        this.#log.warn({ err, file }, 'Could not raise a kernel limit; fewer boxes will fit');
      }
    }
  }

  async #ensureServers(crlPem: string): Promise<void> {
    const server = await this.#serverIdentity();
    for (const s of Object.values(this.#servers)) {
      await s.ensure({
        caPem: this.#pki!.caCertificatePem,
        certificatePem: server.certificatePem,
        privateKeyPem: server.privateKeyPem,
        tlsCryptKey: this.#tlsCryptKey,
        crlPem,
      });
    }
  }

  async #loadPki(): Promise<void> {
    const dir = path.join(this.#vpnDir, 'pki');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const caCert = path.join(dir, 'ca.crt');
    const caKey = path.join(dir, 'ca.key');
    if (existsSync(caCert) && existsSync(caKey)) {
      this.#pki = await VpnPki.load({
        certificatePem: await readFile(caCert, 'utf8'),
        privateKeyPem: await readFile(caKey, 'utf8'),
      });
    } else {
      const { pki, ca } = await VpnPki.create();
      await writeFile(caKey, ca.privateKeyPem, { mode: 0o600 });
      await writeFile(caCert, ca.certificatePem, { mode: 0o644 });
      this.#pki = pki;
      this.#log.info('Created the VPN certificate authority');
    }
    const tls = path.join(dir, 'tls-crypt.key');
    if (!existsSync(tls)) await writeFile(tls, newTlsCryptKey(), { mode: 0o600 });
    this.#tlsCryptKey = await readFile(tls, 'utf8');
  }

  async #serverIdentity(): Promise<{ certificatePem: string; privateKeyPem: string }> {
    const dir = path.join(this.#vpnDir, 'pki');
    const cert = path.join(dir, 'server.crt');
    const key = path.join(dir, 'server.key');
    if (existsSync(cert) && existsSync(key))
      return { certificatePem: await readFile(cert, 'utf8'), privateKeyPem: await readFile(key, 'utf8') };
    const issued = await this.#pki!.issueServer(this.#serverName);
    await writeFile(key, issued.privateKeyPem, { mode: 0o600 });
    await writeFile(cert, issued.certificatePem, { mode: 0o644 });
    return issued;
  }

  status(): OrchestratorStatus {
    const image = this.image.status;
    let reason = this.#unavailable;
    if (!reason && image.state === 'failed')
      reason = 'The box base image could not be built; the details are in the API log.';
    return {
      available: reason === null,
      reason,
      image: { state: image.state, percent: image.percent, step: image.step },
    };
  }

  boxAddress(slot: number): string {
    const arena = this.router.layout.arena;
    if (FIRST_BOX_HOST + slot >= networkSize(arena) - 1) throw new RangeError('the arena network is full');
    return hostAddress(arena, FIRST_BOX_HOST + slot);
  }

  #machine(spec: Pick<BoxSpec, 'id' | 'slot'>): Machine {
    return new Machine({
      id: spec.id,
      slot: spec.slot,
      boxesDir: this.#boxesDir,
      prefix: this.#o.prefix,
      diskMiB: this.#o.diskMiB,
    });
  }

  applyBox(spec: BoxSpec): Promise<BoxObservation> {
    return this.#locks.run(spec.id, async () => {
      const known = this.#specs.get(spec.id);
      this.#specs.set(spec.id, spec);
      if (!known || known.ownerId !== spec.ownerId || known.slot !== spec.slot) {
        await this.#syncPorts();
        // The owner's VPN sessions may be older than this spec (connected first, or after an API restart).
        this.#syncAccess();
        await this.#accessChain;
      }
      const ip = this.boxAddress(spec.slot);
      const observe = (
        phase: BoxObservation['phase'],
        reason: string | null = null,
        extra: Partial<BoxObservation> = {},
      ): BoxObservation => ({
        phase,
        ip,
        openPorts: {},
        reason,
        ...extra,
      });
      if (this.#unavailable) return observe(spec.power ? 'PROVISIONING' : 'STOPPED', this.#unavailable);
      const machine = this.#machine(spec);
      const state = await machine.state(this.#seen.get(spec.id));
      this.#seen.set(spec.id, state);
      if (state.state !== 'starting') this.#bootingSince.delete(spec.id);
      if (!spec.power) {
        // A box that never ran has no disk yet: its disk is made (from a spare, so Start stays quick)
        // at its first power-on, which its owner pays for, not for every box created.
        if (state.state === 'absent' || (state.state === 'stopped' && !machine.provisioned))
          return observe('STOPPED');
        if (state.state === 'running' || state.state === 'starting') {
          await machine.stop(this.#o.stopTimeoutMs);
          this.#log.info({ box: spec.id }, 'Box stopped');
        } else if (state.state === 'exited') await machine.clearExit();
        return observe('STOPPED');
      }
      switch (state.state) {
        case 'running':
          await this.#isolate(spec.id, machine, state.pid);
          return observe('RUNNING', null, await machine.sockets(state.leader));
        case 'starting': {
          await this.#isolate(spec.id, machine, state.pid);
          const since = this.#bootingSince.get(spec.id) ?? Date.now();
          this.#bootingSince.set(spec.id, since);
          if (Date.now() - since < BOOT_TIMEOUT_MS) return observe('PROVISIONING', 'Booting');
          // A box whose init never starts is of no use to its owner: stop it and say so.
          const consoleTail = (await readFile(path.join(machine.dir, 'console.log'), 'utf8').catch(() => ''))
            .split('\n')
            .slice(-15)
            .join('\n');
          this.#log.error({ box: spec.id, console: consoleTail }, 'Box did not finish booting; stopping it');
          await machine.stop(this.#o.stopTimeoutMs);
          this.#bootingSince.delete(spec.id);
          return observe('CRASHED', `The box did not finish booting within ${BOOT_TIMEOUT_MS / 1000} s.`);
        }
        case 'exited':
          if (state.code === 0)
            return observe('STOPPED', 'The box was powered off from inside.', { poweredOffInside: true });
          return observe('CRASHED', `The box stopped unexpectedly (exit ${state.code ?? 'signal'}).`);
        case 'absent':
        case 'stopped': {
          const image = this.image.status;
          if (image.state !== 'ready') {
            this.image.ensure().catch(() => undefined);
            const now = this.image.status;
            if (now.state === 'failed')
              return observe(
                'PROVISIONING',
                'The base image could not be built; the details are in the API log.',
              );
            return observe('PROVISIONING', `Preparing the Debian base image (${now.percent}%)`);
          }
          const machineSpec = await this.#machineSpec(spec, ip, !machine.provisioned);
          if (!machine.provisioned && (await this.#pool.claim(machine, machineSpec, spec.loadout))) {
            await this.#reachable();
            await this.router.forgetNeighbour(ip);
            const now = await machine.state();
            this.#seen.set(spec.id, now);
            this.#log.info({ box: spec.id, machine: machine.machineName, ip }, 'Box started from a spare');
            this.events.emit('boxChanged', spec.id);
            if (now.state !== 'running') return observe('PROVISIONING', 'Booting');
            await this.#isolate(spec.id, machine, now.pid);
            return observe('RUNNING', null, await machine.sockets(now.leader));
          }
          try {
            await machine.prepare(this.image.path, machineSpec);
          } catch (err) {
            if (!(err instanceof DiskSpaceError)) throw err;
            // Tried again at each pass: it starts once the host has room.
            this.#log.error({ box: spec.id, err: err.message }, 'No room on the host for a box disk');
            return observe('PROVISIONING', 'The host has no room for this box’s disk right now.');
          }
          await this.#reachable();
          await machine.start(machineSpec, this.router.namespacePath, BRIDGE, this.#boxInit);
          this.#log.info({ box: spec.id, machine: machine.machineName, ip }, 'Box starting');
          void this.#watchBoot(spec.id, machine);
          return observe('PROVISIONING', 'Booting');
        }
      }
    });
  }

  /** Reports the moment a started box's systemd runs (or the box dies), instead of at the next loop pass. */
  async #watchBoot(id: string, machine: Machine): Promise<void> {
    const deadline = Date.now() + BOOT_TIMEOUT_MS;
    while (Date.now() < deadline && !this.#closing) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const state = await machine.state().catch(() => null);
      if (state && state.state !== 'starting') {
        this.events.emit('boxChanged', id);
        return;
      }
    }
  }

  async #machineSpec(spec: BoxSpec, ip: string, firstStart: boolean): Promise<MachineSpec> {
    const hash = (
      await run('openssl', ['passwd', '-6', '-stdin'], { input: `${spec.rootPassword}\n` })
    ).trim();
    return {
      slot: spec.slot,
      hostname: spec.hostname,
      address: ip,
      prefixLength: this.router.layout.arena.prefix,
      gateway: this.router.routerArenaAddress,
      rootPasswordHash: hash,
      sshPublicKey: spec.sshPublicKey,
      // Read from the catalogue only for the start that writes them.
      loadout: firstStart
        ? loadoutFiles(spec.loadout, undefined, (id) =>
            this.#log.warn(
              { box: spec.id, entry: id },
              'A loadout entry the catalogue no longer has is left out',
            ),
          )
        : [],
      limits: { ...spec.resources, cpus: this.#playerCpus },
    };
  }

  /**
   * Boxes of this runtime run no agent: the referee watches them from the host, where box root
   * cannot reach it (docs/detection.md). Nothing to serve.
   */
  async serveAgents(): Promise<() => Promise<void>> {
    return async () => undefined;
  }

  /** The referee of this runtime: it watches attacked boxes from the host (docs/detection.md). */
  referee(sink: VerdictSink): HostReferee {
    const { vpnUdp, vpnTcp, arena } = this.router.layout;
    const referee: HostReferee = new HostReferee({
      host: {
        target: (boxId) => this.refereeTarget(boxId),
        vpnSessions: () => this.vpnSessions(),
        windowOpen: (uidBase) => this.#windowOpen(uidBase),
        isProbe: (address, port, boxPort) => this.#probe.isProbe(address, port, boxPort),
      },
      tracer: new Tracer({
        dir: this.#refereeDir,
        // Every box namespace's connections, whatever their addresses (a box's NAT or local proxy).
        script: traceScript({ networks: [vpnUdp, vpnTcp, arena], hostNetns: hostNetns() }),
        logger: this.#o.logger,
        wants: (uid) => referee.wants(uid),
      }),
      sink,
      logger: this.#o.logger,
    });
    return referee;
  }

  /** Whether the box whose root is host uid `uidBase` has an attack window open. */
  #windowOpen(uidBase: number): boolean {
    const now = Date.now();
    for (const window of this.#windows.values()) {
      if (window.until <= now) continue;
      const spec = this.#specs.get(window.boxId);
      if (spec && Machine.uidBase(spec.slot) === uidBase) return true;
    }
    return false;
  }

  get #refereeDir(): string {
    return path.join(this.#o.dataDir, 'referee');
  }

  /** Where a box lives on this host, for the referee. */
  async refereeTarget(boxId: string): Promise<RefereeTarget | null> {
    // The box's slot on disk too: an API that restarts judges running attacks before it applies boxes.
    const slot = this.#specs.get(boxId)?.slot ?? (await this.#slotOnDisk(boxId));
    if (slot === null) return null;
    const machine = this.#machine({ id: boxId, slot });
    const state = await machine.state();
    return {
      boxId,
      address: this.boxAddress(slot),
      uidBase: Machine.uidBase(slot),
      rootDir: machine.rootDir,
      cgroupPath: `/${cgroupGroup(this.#o.prefix)}/${machine.machineName}/`,
      init: state.state === 'running' ? state.leader : null,
      cgroups: new Map(),
    };
  }

  deleteBox(id: string): Promise<void> {
    return this.#locks.run(id, async () => {
      const spec = this.#specs.get(id);
      const slot = spec?.slot ?? (await this.#slotOnDisk(id));
      const machine = slot === null ? null : this.#machine({ id, slot });
      // A box never started has nothing at its slot but, maybe, the spare it was to take over (pool.ts).
      if (machine && !machine.neverPrepared) await machine.destroy();
      else await rm(path.join(this.#boxesDir, id), { recursive: true, force: true });
      this.#specs.delete(id);
      this.#seen.delete(id);
      this.#isolated.delete(id);
      for (const [key, w] of this.#windows) if (w.boxId === id) this.#windows.delete(key);
      await this.#syncPorts();
      this.#syncAccess();
      this.#log.info({ box: id }, 'Box deleted');
    });
  }

  /** Keeps the warm pool full for the next new boxes (pool.ts), in the background of the loop. */
  prepareSpares(usedSlots: number[]): void {
    if (this.#unavailable || this.#closing || this.image.status.state !== 'ready') return;
    this.#pool.refill(usedSlots);
  }

  /** The loadout of the spare a box made now at `slot` would take over, or null. */
  async spareLoadout(slot: number): Promise<string[] | null> {
    if (this.#unavailable) return null;
    return this.#pool.loadoutAt(slot);
  }

  async #slotOnDisk(id: string): Promise<number | null> {
    const text = await readFile(path.join(this.#boxesDir, id, 'slot'), 'utf8').catch(() => null);
    return text === null ? null : Number(text);
  }

  async boxIds(): Promise<string[]> {
    return listMachineDirs(this.#boxesDir);
  }

  /**
   * Isolates the box's bridge port (it talks to the router only, never to another box), once
   * for each start: the port lives as long as the launcher, and the flag sits in the router's
   * namespace, out of box root's reach. Until the port exists, it is tried again at each pass.
   */
  async #isolate(boxId: string, machine: Machine, launcher: number): Promise<void> {
    if (this.#isolated.get(boxId) === launcher) return;
    try {
      await this.router.isolatePort(machine.interfaceName);
      this.#isolated.set(boxId, launcher);
    } catch {
      // not there yet (the box is still starting)
    }
  }

  /**
   * Loads every known box's bridge port and address into the router. Serialised, and the boxes
   * read when it runs: two boxes applied at once each replace the whole set, and the one that
   * ran last must not be the one that knew only its own box (the other's ARP would be dropped).
   */
  #syncPorts(): Promise<void> {
    const next = this.#portsChain.catch(() => undefined).then(() => this.#loadPorts());
    this.#portsChain = next;
    return next;
  }

  /** Makes a box that is about to start for the first time reachable: its port, its owner's access. */
  async #reachable(): Promise<void> {
    await this.#syncPorts();
    this.#syncAccess();
    await this.#accessChain;
  }

  /**
   * Boxes that have a disk (they started once). A box never started is nobody's to reach: the spare at its
   * slot (pool.ts) is not its yet.
   */
  #started(): BoxSpec[] {
    return [...this.#specs.values()].filter((spec) => !this.#machine(spec).neverPrepared);
  }

  async #loadPorts(): Promise<void> {
    if (this.#unavailable) return;
    const specs = this.#started();
    for (const spec of specs) {
      const file = path.join(this.#boxesDir, spec.id, 'slot');
      if (!existsSync(file)) {
        await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
        await writeFile(file, String(spec.slot));
      }
    }
    await this.router.setBoxPorts(
      specs.map((spec) => ({
        interfaceName: this.#machine(spec).interfaceName,
        address: this.boxAddress(spec.slot),
      })),
    );
  }

  /** Recomputes who may reach which box and loads it into the router (serialised, atomic). */
  #syncAccess(): void {
    this.#accessChain = this.#accessChain
      .then(async () => {
        if (this.#unavailable) return;
        await this.router.setAccess(this.accessPairs());
      })
      .catch((err: unknown) => this.#log.error({ err }, 'Could not update VPN access rules'));
  }

  /** Settles pending access updates (tests). */
  async accessSettled(): Promise<void> {
    await this.#accessChain;
  }

  accessPairs(now = Date.now()): AccessPair[] {
    const sessions = this.vpnSessions();
    const pairs: AccessPair[] = [];
    const started = this.#started();
    const boxOf = new Map(started.map((s) => [s.ownerId, s]));
    for (const session of sessions) {
      const own = boxOf.get(session.userId);
      if (own)
        pairs.push({
          vpnAddress: session.vpnAddress,
          boxAddress: this.boxAddress(own.slot),
          until: null,
          boxMayConnect: false,
        });
    }
    for (const window of this.#windows.values()) {
      const target = started.find((spec) => spec.id === window.boxId);
      if (!target || window.until <= now) continue;
      for (const session of sessions) {
        if (session.userId === window.attackerUserId)
          pairs.push({
            vpnAddress: session.vpnAddress,
            boxAddress: this.boxAddress(target.slot),
            until: window.until,
            // Reverse shells are part of the game, inside the window only.
            boxMayConnect: true,
          });
      }
    }
    return pairs;
  }

  async issueVpnIdentity(userId: string): Promise<VpnIdentity> {
    if (!this.#pki) throw new Error(this.#unavailable ?? 'VPN is not ready');
    return this.#pki.issueClient(userId);
  }

  vpnProfile(): VpnProfile | null {
    if (!this.#pki) return null;
    return {
      remoteHost: this.#o.vpnPublicHost,
      ports: {
        UDP: this.#ingress.udpPort || this.#o.vpnUdpPort,
        TCP: this.#ingress.tcpPort || this.#o.vpnTcpPort,
      },
      serverName: this.#serverName,
      caPem: this.#pki.caCertificatePem,
      tlsCryptKey: this.#tlsCryptKey,
    };
  }

  vpnClientConfig(protocol: VpnProtocol, identity: VpnIdentity, label: string): string {
    const profile = this.vpnProfile();
    if (!profile) throw new Error(this.#unavailable ?? 'VPN is not ready');
    return clientConfig({
      protocol,
      remoteHost: profile.remoteHost,
      remotePort: profile.ports[protocol],
      serverName: profile.serverName,
      caPem: profile.caPem,
      certificatePem: identity.certificatePem,
      privateKeyPem: identity.privateKeyPem,
      tlsCryptKey: profile.tlsCryptKey,
      label,
    });
  }

  async setRevoked(revoked: RevokedIdentity[]): Promise<void> {
    if (!this.#pki) return;
    const crl = await this.#pki.crl(
      revoked.map((r) => ({ serialNumber: r.serialNumber, revokedAt: r.revokedAt })),
    );
    for (const server of Object.values(this.#servers)) {
      await server.writeCrl(crl);
      for (const r of revoked) await server.kill(r.userId);
    }
  }

  setVpnAuthorizer(authorize: (userId: string) => Promise<boolean>): void {
    this.#authorize = authorize;
  }

  vpnSessions(): VpnSession[] {
    return Object.values(this.#servers).flatMap((s) => s.sessions.map(toVpnSession));
  }

  poolUsage(): Record<VpnProtocol, { clients: number; maxClients: number }> {
    return {
      UDP: { clients: this.#servers.UDP.sessions.length, maxClients: this.#o.vpnMaxClients },
      TCP: { clients: this.#servers.TCP.sessions.length, maxClients: this.#o.vpnMaxClients },
    };
  }

  async openAttackWindow(attackerUserId: string, targetBoxId: string, until: Date): Promise<void> {
    this.#windows.set(`${attackerUserId}|${targetBoxId}`, {
      attackerUserId,
      boxId: targetBoxId,
      until: until.getTime(),
    });
    this.#syncAccess();
    await this.#accessChain;
  }

  /**
   * The box's services as its attacker reaches them: from the host, renamed on the arena to the
   * attacker's VPN address (their latest session's), while their window on the box is open.
   */
  serviceProbe(attackerUserId: string, boxId: string): ServiceProbe | null {
    const window = this.#windows.get(`${attackerUserId}|${boxId}`);
    const spec = this.#specs.get(boxId);
    if (this.#unavailable || !window || window.until <= Date.now() || !spec) return null;
    const session = this.vpnSessions()
      .filter((s) => s.userId === attackerUserId)
      .sort((a, b) => b.connectedAt.getTime() - a.connectedAt.getTime())[0];
    if (!session) return null;
    const address = this.boxAddress(spec.slot);
    return {
      address,
      speakingAs: session.vpnAddress,
      transports: this.#probe.transports(address, session.vpnAddress),
    };
  }

  /** Where a box's snapshots are kept: beside the boxes, not in the box's directory (a reset keeps them). */
  #snapshotFiles(boxId: string, snapshotId: string): { data: string; meta: string } {
    if (!isUuid(boxId) || !isUuid(snapshotId)) throw new TypeError('not a box or snapshot id');
    const dir = path.join(this.#boxesDir, '.snapshots', boxId);
    return { data: path.join(dir, `${snapshotId}.tar.gz`), meta: path.join(dir, `${snapshotId}.json`) };
  }

  snapshotBox(id: string, snapshotId: string): Promise<{ sizeBytes: number }> {
    return this.#locks.run(id, async () => {
      const slot = this.#specs.get(id)?.slot ?? (await this.#slotOnDisk(id));
      if (slot === null) throw new BoxHasNoDisk(id);
      const machine = this.#machine({ id, slot });
      const imagePath = await readFile(path.join(machine.dir, 'image'), 'utf8');
      const files = this.#snapshotFiles(id, snapshotId);
      await mkdir(path.dirname(files.data), { recursive: true, mode: 0o700 });
      const sizeBytes = await machine.snapshot(files.data);
      await writeFile(files.meta, JSON.stringify({ imagePath, slot }));
      this.#log.info({ box: id, snapshot: snapshotId, sizeBytes }, 'Box snapshot taken');
      return { sizeBytes };
    });
  }

  restoreBox(id: string, snapshotId: string): Promise<void> {
    return this.#locks.run(id, async () => {
      const files = this.#snapshotFiles(id, snapshotId);
      const meta = JSON.parse(await readFile(files.meta, 'utf8')) as { imagePath: string; slot: number };
      if (!existsSync(meta.imagePath)) throw new SnapshotImageGone(meta.imagePath);
      const machine = this.#machine({ id, slot: meta.slot });
      const state = await machine.state(this.#seen.get(id));
      if (state.state === 'running' || state.state === 'starting') await machine.stop(this.#o.stopTimeoutMs);
      else if (state.state === 'exited') await machine.clearExit();
      await machine.restore(files.data, meta.imagePath);
      await writeFile(path.join(machine.dir, 'slot'), String(meta.slot));
      this.#seen.delete(id);
      this.#log.info({ box: id, snapshot: snapshotId }, 'Box restored from a snapshot');
    });
  }

  async deleteSnapshot(id: string, snapshotId: string): Promise<void> {
    const files = this.#snapshotFiles(id, snapshotId);
    await rm(files.data, { force: true });
    await rm(files.meta, { force: true });
    await rm(path.dirname(files.data)).catch(() => undefined /* others are left */);
  }

  async checkServices(
    attackerUserId: string,
    boxId: string,
    checks: ServiceCheck[],
    timeoutMs: number,
  ): Promise<CheckResult[] | null> {
    const probe = this.serviceProbe(attackerUserId, boxId);
    if (!probe) return null;
    return runChecks(checks, probe.address, probe.transports, timeoutMs);
  }

  async closeAttackWindow(attackerUserId: string, targetBoxId: string): Promise<void> {
    this.#windows.delete(`${attackerUserId}|${targetBoxId}`);
    this.#syncAccess();
    await this.#accessChain;
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#pool.close();
    // The VPN ingress stays, like the VPN servers: players keep their tunnels across API restarts.
    for (const server of Object.values(this.#servers)) server.detach();
    await this.#accessChain;
  }

  async destroy(options: { keepDisks?: boolean } = {}): Promise<void> {
    this.#closing = true;
    await this.#pool.destroy();
    await this.#ingress.destroy();
    for (const id of await this.boxIds()) {
      const slot = this.#specs.get(id)?.slot ?? (await this.#slotOnDisk(id));
      if (options.keepDisks && slot !== null) {
        const machine = this.#machine({ id, slot });
        await machine
          .stop(this.#o.stopTimeoutMs)
          .catch((err: unknown) => this.#log.warn({ err }, 'Box stop failed'));
        await machine.cgroup().remove();
      } else await this.deleteBox(id).catch((err: unknown) => this.#log.warn({ err }, 'Box removal failed'));
    }
    for (const server of Object.values(this.#servers)) await server.stop();
    await new Tracer({ dir: this.#refereeDir, script: '', logger: this.#o.logger }).destroy();
    await this.#sweepHost();
    await this.router.destroy();
    await rm(`/run/exploit-grid/${this.#o.prefix}`, { recursive: true, force: true });
  }

  /**
   * Whatever is left of this runtime on the host even when its files are gone (a data directory
   * deleted under running boxes): processes in its cgroups, its overlay mounts, its VPN servers.
   */
  async #sweepHost(): Promise<void> {
    const killed = await sweepCgroups(cgroupGroup(this.#o.prefix));
    if (killed) this.#log.warn({ processes: killed }, 'Killed box processes that had lost their files');
    const mounts = (await readFile('/proc/self/mounts', 'utf8'))
      .split('\n')
      .map((line) => line.split(' ')[1] ?? '')
      .filter((mount) => mount.startsWith(`${this.#boxesDir}/`));
    for (const mount of mounts.reverse()) await run('umount', ['-l', mount]).catch(() => undefined);
    // Box disks' loop devices (a lazy unmount frees them once nothing holds them).
    for (const device of await readdir('/sys/block').catch(() => [])) {
      if (!device.startsWith('loop')) continue;
      const backing = await readFile(`/sys/block/${device}/loop/backing_file`, 'utf8').catch(() => '');
      if (backing.startsWith(`${this.#boxesDir}/`))
        await run('losetup', ['-d', `/dev/${device}`]).catch(() => undefined);
    }
    for (const entry of await readdir('/proc').catch(() => [])) {
      if (!/^\d+$/.test(entry)) continue;
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.startsWith('openvpn\0') && cmdline.includes(`${this.#vpnDir}/`)) {
        try {
          process.kill(Number(entry), 'SIGTERM');
        } catch {
          // gone already
        }
      }
    }
  }
}

function toVpnSession(session: VpnClientSession): VpnSession {
  return {
    userId: session.commonName,
    protocol: session.protocol,
    vpnAddress: session.vpnAddress,
    connectedAt: session.connectedAt,
    realAddress: session.realAddress,
  };
}

/** The inode of the network namespace this process runs in (the host's), when it can be read. */
function hostNetns(): number | undefined {
  try {
    const inode = /^net:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/net'))?.[1];
    return inode === undefined ? undefined : Number(inode);
  } catch {
    return undefined;
  }
}
