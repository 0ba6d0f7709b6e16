import { EventEmitter } from 'node:events';
import type { VpnProtocol } from '../contracts/boxes.ts';
import type { Attack } from '../contracts/index.ts';
import type { Logger } from '../logger.ts';
import type {
  BoxObservation,
  BoxOrchestrator,
  BoxSpec,
  OrchestratorEvents,
  OrchestratorStatus,
  RevokedIdentity,
  VpnIdentity,
  VpnSession,
} from '../boxes/orchestrator.ts';
import { BoxHasNoDisk, SnapshotImageGone } from '../boxes/orchestrator.ts';
import { clientConfig } from '../vpn/client-config.ts';
import type { CheckResult, ServiceCheck } from '@exploit-grid/operator/catalogue';
import type { Referee, VerdictSink } from '../referee/host.ts';
import { apiEvents, apiMethods, hostEvents, hostMethods, type HostState } from './protocol.ts';
import { RpcPeer, type IpcPort } from './rpc.ts';

type ApiPeer = RpcPeer<typeof apiMethods, typeof hostMethods, typeof apiEvents, typeof hostEvents>;

/**
 * The API's side of the host process: the box runtime that runs there as root, behind the
 * BoxOrchestrator port. The port's synchronous calls (status, VPN sessions, pool usage, client
 * configurations) answer from a copy the host process keeps up to date.
 */
export class HostOrchestrator implements BoxOrchestrator {
  readonly name = 'local';
  readonly events = new EventEmitter<OrchestratorEvents>();
  /** The local runtime in the host process sees them (its observations carry them through). */
  readonly seesSshClients = true;
  readonly #peer: ApiPeer;
  #state: HostState = {
    status: {
      available: false,
      reason: 'The box runtime is starting.',
      image: { state: 'missing', percent: 0, step: null },
    },
    sessions: [],
    pool: { UDP: { clients: 0, maxClients: 0 }, TCP: { clients: 0, maxClients: 0 } },
    vpnProfile: null,
  };
  #authorize: (userId: string) => Promise<boolean> = async () => false;
  #sink: VerdictSink | null = null;

  constructor(port: IpcPort, logger: Logger) {
    this.#peer = new RpcPeer({
      port,
      serves: apiMethods,
      calls: hostMethods,
      emits: apiEvents,
      hears: hostEvents,
      logger: logger.child({ component: 'host-client' }),
    });
    const sink = () => {
      if (!this.#sink) throw new Error('No referee is running.');
      return this.#sink;
    };
    this.#peer.serve({
      authorize: (userId) => this.#authorize(userId),
      running: () => sink().running(),
      recordCommands: (attackId, commands) => sink().recordCommands(attackId, commands),
      recordFoothold: (attackId, message) => sink().recordFoothold(attackId, message),
      recordEviction: (attackId, message) => sink().recordEviction(attackId, message),
      recordOwn: (attackId, message) => sink().recordOwn(attackId, message),
    });
    this.#peer.on('state', (state) => (this.#state = state));
    this.#peer.on('vpnConnected', (session) => {
      this.#state.sessions = [...this.#state.sessions.filter((s) => !sameSession(s, session)), session];
      this.events.emit('vpnConnected', session);
    });
    this.#peer.on('vpnDisconnected', (session) => {
      this.#state.sessions = this.#state.sessions.filter((s) => !sameSession(s, session));
      this.events.emit('vpnDisconnected', session);
    });
    this.#peer.on('boxChanged', (id) => this.events.emit('boxChanged', id));
  }

  async start(): Promise<void> {
    this.#state = await this.#peer.call('start');
  }

  status(): OrchestratorStatus {
    return this.#state.status;
  }

  applyBox(spec: BoxSpec): Promise<BoxObservation> {
    return this.#peer.call('applyBox', spec);
  }

  deleteBox(id: string): Promise<void> {
    return this.#peer.call('deleteBox', id);
  }

  boxIds(): Promise<string[]> {
    return this.#peer.call('boxIds');
  }

  issueVpnIdentity(userId: string): Promise<VpnIdentity> {
    return this.#peer.call('issueVpnIdentity', userId);
  }

  vpnClientConfig(protocol: VpnProtocol, identity: VpnIdentity, label: string): string {
    const profile = this.#state.vpnProfile;
    if (!profile) throw new Error(this.#state.status.reason ?? 'VPN is not ready');
    return clientConfig({
      protocol,
      remoteHost: profile.remoteHost,
      remotePort: profile.ports[protocol],
      serverName: profile.serverName,
      caPem: profile.caPem,
      tlsCryptKey: profile.tlsCryptKey,
      certificatePem: identity.certificatePem,
      privateKeyPem: identity.privateKeyPem,
      label,
    });
  }

  setRevoked(revoked: RevokedIdentity[]): Promise<void> {
    return this.#peer.call('setRevoked', revoked);
  }

  setVpnAuthorizer(authorize: (userId: string) => Promise<boolean>): void {
    this.#authorize = authorize;
  }

  vpnSessions(): VpnSession[] {
    return this.#state.sessions;
  }

  poolUsage(): Record<VpnProtocol, { clients: number; maxClients: number }> {
    const count = (protocol: VpnProtocol) =>
      this.#state.sessions.filter((s) => s.protocol === protocol).length;
    return {
      UDP: { clients: count('UDP'), maxClients: this.#state.pool.UDP.maxClients },
      TCP: { clients: count('TCP'), maxClients: this.#state.pool.TCP.maxClients },
    };
  }

  openAttackWindow(attackerUserId: string, targetBoxId: string, until: Date): Promise<void> {
    return this.#peer.call('openAttackWindow', attackerUserId, targetBoxId, until);
  }

  closeAttackWindow(attackerUserId: string, targetBoxId: string): Promise<void> {
    return this.#peer.call('closeAttackWindow', attackerUserId, targetBoxId);
  }

  async snapshotBox(id: string, snapshotId: string): Promise<{ sizeBytes: number }> {
    const { sizeBytes } = await this.#peer.call('snapshotBox', id, snapshotId);
    if (sizeBytes === null) throw new BoxHasNoDisk(id);
    return { sizeBytes };
  }

  async restoreBox(id: string, snapshotId: string): Promise<void> {
    if ((await this.#peer.call('restoreBox', id, snapshotId)) === 'image-gone')
      throw new SnapshotImageGone('the snapshot’s box image is gone');
  }

  deleteSnapshot(id: string, snapshotId: string): Promise<void> {
    return this.#peer.call('deleteSnapshot', id, snapshotId);
  }

  checkServices(
    attackerUserId: string,
    boxId: string,
    checks: ServiceCheck[],
    timeoutMs: number,
  ): Promise<CheckResult[] | null> {
    return this.#peer.call('checkServices', attackerUserId, boxId, checks, timeoutMs);
  }

  /** Boxes of the local runtime run no agent (docs/detection.md). */
  async serveAgents(): Promise<() => Promise<void>> {
    return async () => undefined;
  }

  /** The local runtime's referee, running in the host process; its verdicts come back to `sink`. */
  referee(sink: VerdictSink): Referee {
    this.#sink = sink;
    const peer = this.#peer;
    return {
      start: async () => {
        if (!(await peer.call('refereeStart'))) throw new Error('The host has no referee to run.');
      },
      watch: (attack: Attack) => peer.call('refereeWatch', attack),
      unwatch: (attackId: string) => void peer.call('refereeUnwatch', attackId).catch(() => undefined),
      settled: () => peer.call('refereeSettled'),
      close: () => peer.call('refereeClose').catch(() => undefined),
    };
  }

  prepareSpares(usedSlots: number[]): void {
    void this.#peer.call('prepareSpares', usedSlots).catch(() => undefined);
  }

  spareLoadout(slot: number): Promise<string[] | null> {
    return this.#peer.call('spareLoadout', slot).catch(() => null);
  }

  async close(): Promise<void> {
    await this.#peer.call('close').catch(() => undefined);
    this.#peer.close();
  }
}

const sameSession = (a: VpnSession, b: VpnSession) =>
  a.userId === b.userId && a.protocol === b.protocol && a.vpnAddress === b.vpnAddress;
