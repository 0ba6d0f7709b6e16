import { EventEmitter } from 'node:events';
import type { RequestListener } from 'node:http';
import { AgentEndpoint } from '../boxes/agent-endpoint.ts';
import type { VpnProtocol } from '../contracts/boxes.ts';
import { clientConfig } from '../vpn/client-config.ts';
import type {
  BoxObservation,
  BoxOrchestrator,
  BoxSpec,
  OrchestratorEvents,
  OrchestratorStatus,
  RevokedIdentity,
  VpnIdentity,
  VpnProfile,
  VpnSession,
} from '../boxes/orchestrator.ts';
import { VpnPki, newTlsCryptKey } from '@exploit-grid/operator/pki';
import {
  CheckNotRun,
  runChecks,
  type CheckResult,
  type CheckTransports,
  type ServiceCheck,
} from '@exploit-grid/operator/catalogue';
import { FlowRecord } from '../boxes/witness.ts';
import { BoxHasNoDisk, SnapshotImageGone } from '../boxes/orchestrator.ts';

/**
 * How a powered-on box boots: `next-apply` answers PROVISIONING on the call that starts it and
 * RUNNING on the next one (what the local runtime does when the boot is quick); `instant`
 * answers RUNNING at once; `manual` stays PROVISIONING until `finishBoot(id)`.
 */
export type BootMode = 'next-apply' | 'instant' | 'manual';

/** A box as this runtime holds it (what the local runtime's machine state is). */
interface Machine {
  spec: BoxSpec | null;
  state: 'stopped' | 'starting' | 'running' | 'exited';
  /** Names what is on the box's disk: null until its first start (a box that never ran has none). */
  disk: string | null;
  exitCode: number | null;
  openPorts: Record<string, string>;
  /** VPN addresses holding a connection to the box's sshd (holdSsh). */
  sshClients: string[];
}

export interface TestOrchestratorOptions {
  boot?: BootMode;
  /** Clients each VPN server admits (VPN_MAX_CLIENTS). */
  maxClients?: number;
  /** Where the `.ovpn` files point. */
  publicHost?: string;
  udpPort?: number;
  tcpPort?: number;
}

/** A flow as a test has the router see it. */
export interface RouterFlow {
  client: string;
  clientPort: number;
  box: string;
  boxPort: number;
  /** When it became established (epoch ms; default: when first told). */
  openedAt?: number;
  /** Whether the box still sends on it (default true). */
  active?: boolean;
}

export interface AttackWindow {
  attackerUserId: string;
  targetBoxId: string;
  until: Date;
}

const SERVER_NAME = 'test-vpn-server';

/**
 * The BoxOrchestrator port without a host: boxes are records that go through the same phases
 * as the local runtime's (PROVISIONING while booting, RUNNING, STOPPED, CRASHED when they died
 * unasked, STOPPED with `poweredOffInside` after a clean poweroff inside), the VPN admits
 * clients through the installed authorizer, and identities and `.ovpn` files are made with
 * the real PKI and the real client config. Tests drive it (boot, crash, VPN connects) and read
 * what the API asked of it (applyBox/deleteBox calls, revocations, attack windows).
 */
export class TestOrchestrator implements BoxOrchestrator {
  readonly name = 'test';
  readonly events = new EventEmitter<OrchestratorEvents>();
  /**
   * As the local runtime: running boxes are observed with who holds a connection to their sshd. Tests set
   * it false to play a runtime that cannot see that (virtual machines).
   */
  seesSshClients = true;
  readonly #agents = new AgentEndpoint();
  /**
   * Boxes here run agents, as virtual machines do, whose heartbeats show the owner's ssh login too. Tests set
   * it false, with `seesSshClients`, to play a runtime where nothing sees who connects to a box.
   */
  agentsSeeSsh = true;
  readonly #witness = new FlowRecord();
  /** What the routers saw, as tests tell it with routerSees. */
  get witness(): FlowRecord | undefined {
    return this.agentsSeeSsh ? this.#witness : undefined;
  }
  readonly #routerFlows = new Map<string, RouterFlow>();

  /** Every spec applyBox was given, in order. */
  readonly applied: BoxSpec[] = [];
  /** The next deleteBox fails with this (a runtime that cannot remove a disk now), then it works again. */
  failNextDelete: Error | null = null;
  /** Every id deleteBox was given, in order. */
  readonly deleted: string[] = [];
  /** Every list setRevoked was given, in order. */
  readonly revocations: RevokedIdentity[][] = [];
  /** Identities issued, in order. */
  readonly issued: VpnIdentity[] = [];
  /** Loadouts of spares by slot (what spareLoadout answers; tests set them). */
  readonly spares = new Map<number, string[]>();
  /** Every list of used slots prepareSpares was given, in order. */
  readonly spareRequests: number[][] = [];

  boot: BootMode;
  readonly maxClients: number;
  /** Answers of status(); change `unavailableReason` to make the runtime unusable. */
  unavailableReason: string | null = null;
  image: OrchestratorStatus['image'] = { state: 'ready', percent: 100, step: null };
  /** When set, applyBox rejects with it (a runtime failure). */
  failApply: Error | null = null;
  /** When set, openAttackWindow rejects with it. */
  failWindows: Error | null = null;
  /** Runs once at the next boxIds() call, before it answers (to stage races with the loop). */
  beforeNextBoxIds: (() => Promise<void>) | null = null;

  readonly #o: Required<Omit<TestOrchestratorOptions, 'boot' | 'maxClients'>>;
  readonly #machines = new Map<string, Machine>();
  readonly #sessions: VpnSession[] = [];
  readonly #windows = new Map<string, AttackWindow>();
  #revoked: RevokedIdentity[] = [];
  #authorize: ((userId: string) => Promise<boolean>) | null = null;
  #pki: VpnPki | null = null;
  #tlsCryptKey = '';
  #nextHost = 2;
  #started = false;
  #closed = false;

  constructor(options: TestOrchestratorOptions = {}) {
    this.boot = options.boot ?? 'next-apply';
    this.maxClients = options.maxClients ?? 250;
    this.#o = {
      publicHost: options.publicHost ?? '127.0.0.1',
      udpPort: options.udpPort ?? 1194,
      tcpPort: options.tcpPort ?? 1194,
    };
  }

  get started(): boolean {
    return this.#started;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The CA the identities are issued from (to check certificates against). */
  get caCertificatePem(): string {
    if (!this.#pki) throw new Error('VPN is not ready');
    return this.#pki.caCertificatePem;
  }

  get tlsCryptKey(): string {
    return this.#tlsCryptKey;
  }

  async start(): Promise<void> {
    if (this.#started) return;
    const { pki } = await VpnPki.create('Exploit Grid Test VPN CA', 1);
    this.#pki = pki;
    this.#tlsCryptKey = newTlsCryptKey();
    this.#started = true;
  }

  status(): OrchestratorStatus {
    return { available: this.unavailableReason === null, reason: this.unavailableReason, image: this.image };
  }

  /** The address a box of `slot` has (as the local runtime: one per slot on the arena network). */
  boxAddress(slot: number): string {
    return `10.66.1.${slot + 1}`;
  }

  async applyBox(spec: BoxSpec): Promise<BoxObservation> {
    this.applied.push(structuredClone(spec));
    if (this.failApply) throw this.failApply;
    const ip = this.boxAddress(spec.slot);
    const observe = (
      phase: BoxObservation['phase'],
      reason: string | null = null,
      extra: Partial<BoxObservation> = {},
    ): BoxObservation => ({ phase, ip, openPorts: {}, reason, ...extra });
    if (this.unavailableReason)
      return observe(spec.power ? 'PROVISIONING' : 'STOPPED', this.unavailableReason);
    let machine = this.#machines.get(spec.id);
    if (!machine) {
      machine = { spec, state: 'stopped', disk: null, exitCode: null, openPorts: {}, sshClients: [] };
      this.#machines.set(spec.id, machine);
    }
    machine.spec = structuredClone(spec);
    if (!spec.power) {
      // Stopping a running box, or clearing the exit of one that ended by itself.
      machine.state = 'stopped';
      machine.exitCode = null;
      machine.openPorts = {};
      machine.sshClients = [];
      return observe('STOPPED');
    }
    switch (machine.state) {
      case 'running':
        return observe('RUNNING', null, running(machine));
      case 'starting':
        if (this.boot === 'manual') return observe('PROVISIONING', 'Booting');
        this.#run(machine);
        return observe('RUNNING', null, running(machine));
      case 'exited':
        if (machine.exitCode === 0)
          return observe('STOPPED', 'The box was powered off from inside.', { poweredOffInside: true });
        return observe('CRASHED', `The box stopped unexpectedly (exit ${machine.exitCode ?? 'signal'}).`);
      case 'stopped':
        if (this.boot === 'instant') {
          this.#run(machine);
          return observe('RUNNING', null, running(machine));
        }
        machine.state = 'starting';
        return observe('PROVISIONING', 'Booting');
    }
  }

  /** A box that finished booting runs sshd (as every real box does), and whatever was set to run. */
  #run(machine: Machine): void {
    machine.state = 'running';
    machine.disk ??= `disk-${++this.#disks}`;
    if (Object.keys(machine.openPorts).length === 0) machine.openPorts = { '22': 'ssh' };
  }

  /** Snapshot id → the box and the disk it saved. */
  readonly snapshots = new Map<string, { boxId: string; disk: string }>();
  /** The next snapshotBox fails with this, then it works again. */
  failNextSnapshot: Error | null = null;
  /** Snapshots whose box image is gone (restoreBox throws SnapshotImageGone). */
  readonly imageGone = new Set<string>();
  /** While set, restoreBox waits for it (a runtime slow to halt a box and swap its disk). */
  holdRestore: Promise<void> | null = null;
  #disks = 0;

  /** What is on a box's disk (see snapshots): null before its first start or after a reset. */
  diskOf(id: string): string | null {
    return this.#machines.get(id)?.disk ?? null;
  }

  /** Puts something new on a box's disk (what its owner does in it). */
  writeDisk(id: string): string {
    const machine = this.#need(id);
    machine.disk = `disk-${++this.#disks}`;
    return machine.disk;
  }

  async snapshotBox(id: string, snapshotId: string): Promise<{ sizeBytes: number }> {
    const failure = this.failNextSnapshot;
    this.failNextSnapshot = null;
    if (failure) throw failure;
    const disk = this.#machines.get(id)?.disk;
    if (!disk) throw new BoxHasNoDisk(id);
    this.snapshots.set(snapshotId, { boxId: id, disk });
    return { sizeBytes: 4096 };
  }

  async restoreBox(id: string, snapshotId: string): Promise<void> {
    await this.holdRestore;
    const snapshot = this.snapshots.get(snapshotId);
    if (!snapshot || snapshot.boxId !== id) throw new Error(`no snapshot ${snapshotId} of box ${id}`);
    if (this.imageGone.has(snapshotId)) throw new SnapshotImageGone(snapshotId);
    let machine = this.#machines.get(id);
    if (!machine) {
      machine = { spec: null, state: 'stopped', disk: null, exitCode: null, openPorts: {}, sshClients: [] };
      this.#machines.set(id, machine);
    }
    machine.state = 'stopped';
    machine.openPorts = {};
    machine.disk = snapshot.disk;
  }

  async deleteSnapshot(id: string, snapshotId: string): Promise<void> {
    if (this.snapshots.get(snapshotId)?.boxId === id) this.snapshots.delete(snapshotId);
  }

  async deleteBox(id: string): Promise<void> {
    const failure = this.failNextDelete;
    if (failure) {
      this.failNextDelete = null;
      throw failure;
    }
    this.deleted.push(id);
    this.#machines.delete(id);
    for (const [key, w] of this.#windows) if (w.targetBoxId === id) this.#windows.delete(key);
  }

  async boxIds(): Promise<string[]> {
    const hook = this.beforeNextBoxIds;
    this.beforeNextBoxIds = null;
    if (hook) await hook();
    return [...this.#machines.keys()];
  }

  async issueVpnIdentity(userId: string): Promise<VpnIdentity> {
    if (!this.#pki) throw new Error('VPN is not ready');
    const identity = await this.#pki.issueClient(userId);
    this.issued.push(identity);
    return identity;
  }

  vpnProfile(): VpnProfile | null {
    if (!this.#pki) return null;
    return {
      remoteHost: this.#o.publicHost,
      ports: { UDP: this.#o.udpPort, TCP: this.#o.tcpPort },
      serverName: SERVER_NAME,
      caPem: this.#pki.caCertificatePem,
      tlsCryptKey: this.#tlsCryptKey,
    };
  }

  vpnClientConfig(protocol: VpnProtocol, identity: VpnIdentity, label: string): string {
    const profile = this.vpnProfile();
    if (!profile) throw new Error('VPN is not ready');
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

  /** Replaces the revocation list and cuts the live sessions of revoked players (as client-kill does). */
  async setRevoked(revoked: RevokedIdentity[]): Promise<void> {
    this.#revoked = revoked.map((r) => ({ ...r }));
    this.revocations.push(this.#revoked.map((r) => ({ ...r })));
    const users = new Set(revoked.map((r) => r.userId));
    for (const session of [...this.#sessions]) if (users.has(session.userId)) this.#drop(session);
  }

  /** The current revocation list (what the CRL would hold). */
  get revoked(): readonly RevokedIdentity[] {
    return this.#revoked;
  }

  setVpnAuthorizer(authorize: (userId: string) => Promise<boolean>): void {
    this.#authorize = authorize;
  }

  /** Asks the authorizer the API installed, as a VPN server does for each client. */
  authorize(commonName: string): Promise<boolean> {
    if (!this.#authorize) throw new Error('no VPN authorizer installed');
    return this.#authorize(commonName);
  }

  vpnSessions(): VpnSession[] {
    return this.#sessions.map((s) => ({ ...s }));
  }

  poolUsage(): Record<VpnProtocol, { clients: number; maxClients: number }> {
    const count = (protocol: VpnProtocol) => this.#sessions.filter((s) => s.protocol === protocol).length;
    return {
      UDP: { clients: count('UDP'), maxClients: this.maxClients },
      TCP: { clients: count('TCP'), maxClients: this.maxClients },
    };
  }

  /**
   * A VPN client of `userId` connects: refused (null) when the authorizer says no, the server
   * is full or the user already has a client on that protocol; else the session, announced
   * with `vpnConnected`.
   */
  async connectVpn(
    userId: string,
    protocol: VpnProtocol = 'UDP',
    options: { realAddress?: string | null } = {},
  ): Promise<VpnSession | null> {
    if (this.#sessions.filter((s) => s.protocol === protocol).length >= this.maxClients) return null;
    if (this.#sessions.some((s) => s.userId === userId && s.protocol === protocol)) return null;
    if (!(await this.authorize(userId))) return null;
    const host = this.#nextHost++;
    const session: VpnSession = {
      userId,
      protocol,
      vpnAddress: `${protocol === 'UDP' ? '10.8' : '10.9'}.${Math.floor(host / 250)}.${host % 250}`,
      connectedAt: new Date(),
      // Where the player's computer connects from (a documentation address unless the test says).
      realAddress: options.realAddress === undefined ? `203.0.113.${host % 250}` : options.realAddress,
    };
    this.#sessions.push(session);
    this.events.emit('vpnConnected', { ...session });
    return { ...session };
  }

  /** The user's client on `protocol` (or every client of theirs) goes away, with `vpnDisconnected`. */
  disconnectVpn(userId: string, protocol?: VpnProtocol): void {
    for (const session of [...this.#sessions])
      if (session.userId === userId && (!protocol || session.protocol === protocol)) this.#drop(session);
  }

  #drop(session: VpnSession): void {
    const index = this.#sessions.indexOf(session);
    if (index < 0) return;
    this.#sessions.splice(index, 1);
    // Its connections go with the tunnel.
    for (const machine of this.#machines.values())
      machine.sshClients = machine.sshClients.filter((a) => a !== session.vpnAddress);
    this.events.emit('vpnDisconnected', { ...session });
  }

  async openAttackWindow(attackerUserId: string, targetBoxId: string, until: Date): Promise<void> {
    if (this.failWindows) throw this.failWindows;
    this.#windows.set(`${attackerUserId}|${targetBoxId}`, { attackerUserId, targetBoxId, until });
  }

  /**
   * Box id → port → whether its service answers a check (tests set it; ports not set answer). An
   * answering service says `SSH-2.0-test ok`, over HTTP with status 200.
   */
  readonly serviceAnswers = new Map<string, Map<number, boolean | 'not-run'>>();
  /** Every probe serviceProbe gave: whom it spoke as, to which box. */
  readonly probes: { boxId: string; speakingAs: string }[] = [];

  /** As the local runtime: while the attacker's window is open and they have a VPN address. */
  async checkServices(
    attackerUserId: string,
    boxId: string,
    checks: ServiceCheck[],
    timeoutMs: number,
  ): Promise<CheckResult[] | null> {
    const window = this.#windows.get(`${attackerUserId}|${boxId}`);
    const session = this.#sessions.findLast((s) => s.userId === attackerUserId);
    if (!window || window.until <= new Date() || !session) return null;
    this.probes.push({ boxId, speakingAs: session.vpnAddress });
    const answers = (port: number) => {
      if (this.serviceAnswers.get(boxId)?.get(port) === 'not-run')
        throw new CheckNotRun('the test’s router let nothing through');
      if (this.serviceAnswers.get(boxId)?.get(port) === false)
        throw Object.assign(new Error(`connect ECONNREFUSED 10.66.1.1:${port}`), { code: 'ECONNREFUSED' });
      return 'SSH-2.0-test ok';
    };
    const transports: CheckTransports = {
      http: async (url) => ({ status: 200, body: answers(Number(new URL(url).port)) }),
      tcp: async (_address, port) => answers(port),
    };
    return runChecks(checks, '10.66.1.1', transports, timeoutMs);
  }

  async closeAttackWindow(attackerUserId: string, targetBoxId: string): Promise<void> {
    this.#windows.delete(`${attackerUserId}|${targetBoxId}`);
  }

  /**
   * Whether a player's VPN client reaches a box's sshd now, as the real runtime's network lets
   * it: the box runs, the player is connected, and owns the box or has an open attack window on it.
   */
  reaches(userId: string, boxId: string): boolean {
    const machine = this.#machines.get(boxId);
    if (machine?.state !== 'running' || !machine.spec) return false;
    if (!this.#sessions.some((s) => s.userId === userId)) return false;
    if (machine.spec.ownerId === userId) return true;
    const window = this.#windows.get(`${userId}|${boxId}`);
    return window !== undefined && window.until > new Date();
  }

  /**
   * The player's VPN client opens a connection to the box's sshd and holds it (an ssh session), as far as the
   * network lets it (see reaches): false when it cannot. The box is then observed with the player's VPN
   * address among its `sshClients` until `releaseSsh` ends it.
   */
  holdSsh(userId: string, boxId: string): boolean {
    const machine = this.#machines.get(boxId);
    const session = this.#sessions.find((s) => s.userId === userId);
    if (!machine || !session || !this.reaches(userId, boxId)) return false;
    if (!machine.sshClients.includes(session.vpnAddress)) machine.sshClients.push(session.vpnAddress);
    return true;
  }

  /** Ends the player's connections to the box's sshd (holdSsh). */
  releaseSsh(userId: string, boxId: string): void {
    const machine = this.#machines.get(boxId);
    const addresses = new Set(this.#sessions.filter((s) => s.userId === userId).map((s) => s.vpnAddress));
    if (machine) machine.sshClients = machine.sshClients.filter((a) => !addresses.has(a));
  }

  /**
   * Whether a box opens a connection to a player's computer now, as the real runtime's network
   * lets it: only to an attacker with an open attack window (reverse shells), never to its owner.
   */
  reachedFromBox(boxId: string, userId: string): boolean {
    const machine = this.#machines.get(boxId);
    if (machine?.state !== 'running' || !machine.spec) return false;
    if (!this.#sessions.some((s) => s.userId === userId)) return false;
    const window = this.#windows.get(`${userId}|${boxId}`);
    return window !== undefined && window.until > new Date();
  }

  /** Attack windows open at `now`. */
  attackWindows(now = new Date()): AttackWindow[] {
    return [...this.#windows.values()].filter((w) => w.until > now).map((w) => ({ ...w }));
  }

  prepareSpares(usedSlots: number[]): void {
    this.spareRequests.push([...usedSlots]);
  }

  async spareLoadout(slot: number): Promise<string[] | null> {
    return this.spares.get(slot) ?? null;
  }

  /** Serves the agents' endpoint on loopback, on a port of the system's choosing (see agentUrl). */
  async serveAgents(handler: RequestListener): Promise<() => Promise<void>> {
    await this.#agents.listen(handler, '127.0.0.1', 0);
    return () => this.#agents.close();
  }

  /** Where a test plays a box agent: the base URL of the endpoint served by serveAgents. */
  get agentUrl(): string {
    const address = this.#agents.address;
    if (!address) throw new Error('the platform serves no agent endpoint');
    return `http://127.0.0.1:${address.port}`;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#agents.close();
  }

  async destroy(): Promise<void> {
    this.#machines.clear();
    this.#windows.clear();
    for (const session of [...this.#sessions]) this.#drop(session);
  }

  // ---- what the runtime sees change on its own --------------------------------------

  /**
   * The router reports a flow between a VPN client and a box (its whole list, as a VPN server
   * does every 2 seconds): `openedAt` defaults to now, `active` (the box sends on it) to true.
   * `ended: true` takes it off the router's list.
   */
  routerSees(flow: RouterFlow & { ended?: boolean }): void {
    const key = `${flow.client}:${flow.clientPort}>${flow.box}:${flow.boxPort}`;
    if (flow.ended) this.#routerFlows.delete(key);
    else this.#routerFlows.set(key, { openedAt: Date.now(), ...flow });
    this.routerReports();
  }

  /** The router reports again what it holds (time passes for its flows). */
  routerReports(now = Date.now()): void {
    this.#witness.report(
      SERVER_NAME,
      [...this.#routerFlows.values()].map((f) => ({
        client: f.client,
        clientPort: f.clientPort,
        box: f.box,
        boxPort: f.boxPort,
        openedSecondsAgo: Math.max(0, Math.round((now - f.openedAt!) / 1000)),
        idleSeconds: f.active === false ? null : 0,
      })),
      now,
    );
  }

  /** The runtime's view of a box (undefined when it holds none). */
  machine(id: string): Readonly<Machine> | undefined {
    return this.#machines.get(id);
  }

  /** A box in manual boot mode finishes booting; the API hears `boxChanged`. */
  finishBoot(id: string): void {
    const machine = this.#need(id);
    if (machine.state !== 'starting') throw new Error(`box ${id} is not booting (${machine.state})`);
    this.#run(machine);
    this.events.emit('boxChanged', id);
  }

  /** The box dies without being asked (exit code not 0); the API hears `boxChanged`. */
  crash(id: string, exitCode = 137): void {
    const machine = this.#need(id);
    machine.state = 'exited';
    machine.exitCode = exitCode;
    machine.openPorts = {};
    machine.sshClients = [];
    this.events.emit('boxChanged', id);
  }

  /** The player ran `poweroff` inside; the API hears `boxChanged`. */
  powerOffInside(id: string): void {
    const machine = this.#need(id);
    machine.state = 'exited';
    machine.exitCode = 0;
    machine.openPorts = {};
    machine.sshClients = [];
    this.events.emit('boxChanged', id);
  }

  /** Something inside the box listens (what applyBox reports as openPorts while it runs). */
  setOpenPorts(id: string, ports: Record<string, string>): void {
    this.#need(id).openPorts = { ...ports };
    this.events.emit('boxChanged', id);
  }

  /** A box the runtime holds without the API knowing it (left over from elsewhere). */
  addOrphan(id: string): void {
    this.#machines.set(id, {
      spec: null,
      state: 'running',
      disk: 'orphan',
      exitCode: null,
      openPorts: {},
      sshClients: [],
    });
  }

  /** applyBox calls for one box. */
  appliedTo(id: string): BoxSpec[] {
    return this.applied.filter((s) => s.id === id);
  }

  #need(id: string): Machine {
    const machine = this.#machines.get(id);
    if (!machine) throw new Error(`the runtime holds no box ${id}`);
    return machine;
  }
}

/** What a running box shows: its listening ports and who holds a connection to its sshd. */
function running(machine: Machine): Partial<BoxObservation> {
  return { openPorts: { ...machine.openPorts }, sshClients: [...machine.sshClients] };
}
