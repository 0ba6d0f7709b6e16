/**
 * The Kubernetes adapter of the BoxOrchestrator port (ORCHESTRATOR=kubernetes): boxes are Box
 * resources (with their Secret) the operator turns into KubeVirt VMs; the VPN is the VpnPool the
 * operator runs as OpenVPN pods, whose hooks tell this adapter who connects (served with the
 * agents' endpoint on the API's internal Service). Level-based like the port: applyBox writes
 * the whole desired Box every time (server-side apply, field manager exploit-grid-api).
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import http, { type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import {
  Informer,
  Kube,
  LABELS,
  describeError,
  pkiSecretName,
  reuseConnections,
  statusOf,
  vpnServerName,
  type Box,
  type VpnPool,
} from '@exploit-grid/operator/kubernetes';
import { VpnPki } from '@exploit-grid/operator/pki';
import type { BoxStatus, VpnProtocol } from '../../contracts/boxes.ts';
import type { Logger } from '../../logger.ts';
import { clientConfig } from '../local/openvpn.ts';
import type {
  BoxObservation,
  BoxOrchestrator,
  BoxSpec,
  OrchestratorEvents,
  OrchestratorStatus,
  RevokedIdentity,
  VpnIdentity,
  VpnSession,
} from '../orchestrator.ts';
import { createHooksApp, type HookBody } from './hooks-app.ts';

export const API_FIELD_MANAGER = 'exploit-grid-api';
const GROUP = 'exploitgrid.io';
const VERSION = 'v1alpha1';
const RETRY_MS = 5_000;

export interface KubernetesRuntimeOptions {
  config: k8s.KubeConfig;
  namespace: string;
  poolName: string;
  /** The boxes' container disk image (default: the Box resource's default). */
  boxImage?: string;
  /** The internal port (agents' reports and the VPN servers' hooks). */
  agentPort: number;
  agentHost?: string;
  logger: Logger;
}

export const boxName = (id: string) => `box-${id}`;
const secretName = (id: string) => `${boxName(id)}-secrets`;
const toProtocol = (protocol: 'udp' | 'tcp'): VpnProtocol => (protocol === 'udp' ? 'UDP' : 'TCP');

/** A stable attack id (uuid-shaped) for an attacker's window on a box (the port has none). */
function windowId(attackerUserId: string, boxId: string): string {
  const hex = createHash('sha256').update(`${attackerUserId}|${boxId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const PHASES: Record<string, BoxStatus> = {
  Pending: 'PROVISIONING',
  Provisioning: 'PROVISIONING',
  Running: 'RUNNING',
  Stopped: 'STOPPED',
  Crashed: 'CRASHED',
};

export class KubernetesRuntime implements BoxOrchestrator {
  readonly name = 'kubernetes';
  readonly events = new EventEmitter<OrchestratorEvents>();
  readonly #o: KubernetesRuntimeOptions;
  readonly #kube: Kube;
  readonly #boxes: Informer<Box>;
  #pool: VpnPool | undefined;
  #pki: VpnPki | undefined;
  #pkiSecret: Record<string, string> = {};
  #unavailable: string | null = 'Connecting to Kubernetes.';
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  #authorize: ((userId: string) => Promise<boolean>) | null = null;
  /** VPN sessions by `protocol/vpnAddress`, from the servers' hooks. */
  readonly #sessions = new Map<string, VpnSession>();
  /** The spec last applied per box id (attack windows and owners' addresses re-apply it). */
  readonly #specs = new Map<string, BoxSpec>();
  /** Attack windows per box id: attacker user id → until. */
  readonly #windows = new Map<string, Map<string, Date>>();
  #publishTimer: NodeJS.Timeout | undefined;
  #servers: http.Server[] = [];

  constructor(options: KubernetesRuntimeOptions) {
    this.#o = options;
    const config = reuseConnections(options.config);
    this.#kube = new Kube(config, API_FIELD_MANAGER);
    const { namespace } = options;
    const custom = this.#kube.custom;
    this.#boxes = new Informer<Box>(config, {
      kind: 'Box',
      path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/boxes`,
      labelSelector: LABELS.boxId,
      list: async () =>
        (await custom.listNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace,
          plural: 'boxes',
          labelSelector: LABELS.boxId,
        })) as k8s.KubernetesListObject<Box>,
      logger: options.logger,
      onChange: (box) => {
        const id = box.metadata.labels?.[LABELS.boxId];
        if (id) this.events.emit('boxChanged', id);
      },
    });
  }

  async start(): Promise<void> {
    await this.#boxes.start();
    await this.#loadPool();
  }

  /** The pool and its PKI (the operator makes them); until they are there, boxes wait. */
  async #loadPool(): Promise<void> {
    if (this.#closed) return;
    const { namespace, poolName } = this.#o;
    try {
      this.#pool = (await this.#kube.custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: 'vpnpools',
        name: poolName,
      })) as VpnPool;
      const secret = await this.#kube.core.readNamespacedSecret({
        name: pkiSecretName(this.#pool),
        namespace,
      });
      this.#pkiSecret = Object.fromEntries(
        Object.entries(secret.data ?? {}).map(([key, value]) => [
          key,
          Buffer.from(value, 'base64').toString(),
        ]),
      );
      const certificatePem = this.#pkiSecret['ca.crt'];
      const privateKeyPem = this.#pkiSecret['ca.key'];
      if (!certificatePem || !privateKeyPem) throw new Error('the PKI Secret has no ca.crt and ca.key');
      this.#pki = await VpnPki.load({ certificatePem, privateKeyPem });
      if (this.#unavailable)
        this.#o.logger.info({ namespace, pool: poolName }, 'Kubernetes box runtime ready');
      this.#unavailable = null;
    } catch (error) {
      const status = statusOf(error);
      this.#unavailable =
        status === 404
          ? `Waiting for the VPN pool ${poolName} and its PKI in namespace ${namespace} (the operator makes the PKI).`
          : `Kubernetes is not reachable: ${describeError(error).message}`;
      this.#o.logger.warn({ reason: this.#unavailable }, 'Kubernetes box runtime not ready');
    }
    // The pool's spec and status (addresses, capacity) are read again now and then.
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.#loadPool(), this.#unavailable ? RETRY_MS : 30_000);
    this.#retry.unref();
  }

  status(): OrchestratorStatus {
    return {
      available: this.#unavailable === null,
      reason: this.#unavailable,
      image: { state: 'ready', percent: 100, step: null },
    };
  }

  async applyBox(spec: BoxSpec): Promise<BoxObservation> {
    this.#specs.set(spec.id, spec);
    const { namespace } = this.#o;
    await this.#kube.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secretName(spec.id), namespace, labels: { [LABELS.boxId]: spec.id } },
      type: 'Opaque',
      stringData: { rootPassword: spec.rootPassword, agentToken: spec.agentToken ?? '' },
    } as k8s.V1Secret);
    const box = (await this.#kube.apply(this.#boxFor(spec))) as unknown as Box;
    return observe(box);
  }

  #boxFor(spec: BoxSpec): k8s.KubernetesObject {
    const now = Date.now();
    const windows = [...(this.#windows.get(spec.id) ?? [])].filter(([, until]) => until.getTime() > now);
    const addressesOf = (userId: string) =>
      [...this.#sessions.values()].filter((s) => s.userId === userId).map((s) => s.vpnAddress);
    return {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'Box',
      metadata: { name: boxName(spec.id), namespace: this.#o.namespace, labels: { [LABELS.boxId]: spec.id } },
      spec: {
        owner: { id: spec.ownerId, handle: spec.hostname.replace(/-box$/, '').slice(0, 32) || spec.hostname },
        hostname: spec.hostname,
        power: spec.power ? 'On' : 'Off',
        ...(this.#o.boxImage ? { image: this.#o.boxImage } : {}),
        resources: { memoryMiB: spec.resources.memoryMiB, cpuMillis: spec.resources.cpuMillis },
        ...(spec.sshPublicKey ? { sshPublicKey: spec.sshPublicKey } : {}),
        secretRef: { name: secretName(spec.id) },
        ownerAddresses: addressesOf(spec.ownerId).slice(0, 8),
        attackWindows: windows
          .flatMap(([attacker, until]) =>
            addressesOf(attacker).map((address) => ({
              attackId: windowId(attacker, spec.id),
              sourceAddress: address,
              until: until.toISOString(),
            })),
          )
          .slice(0, 16),
      },
    } as k8s.KubernetesObject;
  }

  /** Writes a box again with the windows and owners' addresses known now. */
  async #reapply(boxId: string): Promise<void> {
    const spec = this.#specs.get(boxId);
    if (!spec) return;
    try {
      await this.#kube.apply(this.#boxFor(spec));
    } catch (error) {
      this.#o.logger.warn({ boxId, error: describeError(error) }, 'could not update the Box');
    }
  }

  async deleteBox(id: string): Promise<void> {
    this.#specs.delete(id);
    this.#windows.delete(id);
    const { namespace } = this.#o;
    await this.#kube.deleteIfPresent(`${GROUP}/${VERSION}`, 'Box', namespace, boxName(id));
    await this.#kube.deleteIfPresent('v1', 'Secret', namespace, secretName(id));
  }

  async boxIds(): Promise<string[]> {
    const list = (await this.#kube.custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: this.#o.namespace,
      plural: 'boxes',
      labelSelector: LABELS.boxId,
    })) as { items: Box[] };
    return list.items.map((box) => box.metadata.labels![LABELS.boxId]!).filter(Boolean);
  }

  #ready(): { pki: VpnPki; pool: VpnPool } {
    if (!this.#pki || !this.#pool) throw new Error(this.#unavailable ?? 'The VPN is not ready.');
    return { pki: this.#pki, pool: this.#pool };
  }

  async issueVpnIdentity(userId: string): Promise<VpnIdentity> {
    return this.#ready().pki.issueClient(userId);
  }

  vpnClientConfig(protocol: VpnProtocol, identity: VpnIdentity, label: string): string {
    const { pki, pool } = this.#ready();
    const key = protocol === 'UDP' ? 'udp' : 'tcp';
    const published = pool.status?.[key]?.address?.replace(/:\d+$/, '');
    return clientConfig({
      protocol,
      remoteHost:
        pool.spec.publicHost ?? published ?? `${pool.metadata.name}-${key}.${pool.metadata.namespace}.svc`,
      remotePort: pool.spec[key].port,
      serverName: vpnServerName(pool),
      caPem: pki.caCertificatePem,
      certificatePem: identity.certificatePem,
      privateKeyPem: identity.privateKeyPem,
      tlsCryptKey: this.#pkiSecret['tls-crypt.key'] ?? '',
      label,
    });
  }

  /**
   * A new CRL into the PKI Secret (the servers check it at each connection and renegotiation,
   * every 10 minutes, so a revoked player's live session ends within that).
   */
  async setRevoked(revoked: RevokedIdentity[]): Promise<void> {
    const { pki, pool } = this.#ready();
    const crl = await pki.crl(revoked.map((r) => ({ serialNumber: r.serialNumber, revokedAt: r.revokedAt })));
    await this.#kube.core.patchNamespacedSecret(
      { name: pkiSecretName(pool), namespace: this.#o.namespace, body: { stringData: { 'crl.pem': crl } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  }

  setVpnAuthorizer(authorize: (userId: string) => Promise<boolean>): void {
    this.#authorize = authorize;
  }

  vpnSessions(): VpnSession[] {
    return [...this.#sessions.values()].map((s) => ({ ...s }));
  }

  poolUsage(): Record<VpnProtocol, { clients: number; maxClients: number }> {
    const usage = (protocol: 'udp' | 'tcp') => ({
      clients: [...this.#sessions.values()].filter((s) => s.protocol === toProtocol(protocol)).length,
      maxClients:
        this.#pool?.status?.[protocol]?.maxClients ??
        (this.#pool ? this.#pool.spec[protocol].maxClients * this.#pool.spec[protocol].replicas : 0),
    });
    return { UDP: usage('udp'), TCP: usage('tcp') };
  }

  async openAttackWindow(attackerUserId: string, targetBoxId: string, until: Date): Promise<void> {
    if (!this.#specs.has(targetBoxId)) throw new Error(`box ${targetBoxId} is not known to this runtime`);
    let windows = this.#windows.get(targetBoxId);
    if (!windows) this.#windows.set(targetBoxId, (windows = new Map()));
    windows.set(attackerUserId, until);
    await this.#kube.apply(this.#boxFor(this.#specs.get(targetBoxId)!));
  }

  async closeAttackWindow(attackerUserId: string, targetBoxId: string): Promise<void> {
    this.#windows.get(targetBoxId)?.delete(attackerUserId);
    await this.#reapply(targetBoxId);
  }

  /** Boxes whose Box names this user (as owner or attacker): written again when their sessions change. */
  #boxesTouching(userId: string): string[] {
    return [...this.#specs.values()]
      .filter((spec) => spec.ownerId === userId || this.#windows.get(spec.id)?.has(userId))
      .map((spec) => spec.id);
  }

  async #connect(body: HookBody): Promise<boolean> {
    const allowed = this.#authorize ? await this.#authorize(body.commonName) : false;
    if (!allowed) return false;
    const session: VpnSession = {
      userId: body.commonName,
      protocol: toProtocol(body.protocol),
      vpnAddress: body.vpnAddress,
      connectedAt: new Date(),
    };
    this.#sessions.set(`${body.protocol}/${body.vpnAddress}`, session);
    this.events.emit('vpnConnected', { ...session });
    await Promise.all(this.#boxesTouching(session.userId).map((id) => this.#reapply(id)));
    this.#publishClients();
    return true;
  }

  async #disconnect(body: HookBody): Promise<void> {
    const key = `${body.protocol}/${body.vpnAddress}`;
    const session = this.#sessions.get(key);
    if (!session || session.userId !== body.commonName) return;
    this.#sessions.delete(key);
    this.events.emit('vpnDisconnected', { ...session });
    await Promise.all(this.#boxesTouching(session.userId).map((id) => this.#reapply(id)));
    this.#publishClients();
  }

  /** Clients per protocol into the pool's status (the operator computes capacity from them). */
  #publishClients(): void {
    clearTimeout(this.#publishTimer);
    this.#publishTimer = setTimeout(() => {
      const pool = this.#pool;
      if (!pool) return;
      const usage = this.poolUsage();
      this.#kube
        .applyStatus(
          { group: GROUP, version: VERSION, plural: 'vpnpools', kind: 'VpnPool' },
          pool.metadata.namespace,
          pool.metadata.name,
          {
            udp: { clients: usage.UDP.clients },
            tcp: { clients: usage.TCP.clients },
          },
        )
        .catch((error: unknown) =>
          this.#o.logger.warn({ error: describeError(error) }, 'could not report VPN clients to the pool'),
        );
    }, 300);
    this.#publishTimer.unref();
  }

  /**
   * The internal port: the agents' reports and the VPN servers' hooks (`/internal/vpn/*`), on
   * all addresses of the pod (the internal Service; never the ingress).
   */
  async serveAgents(handler: RequestListener): Promise<() => Promise<void>> {
    const hooks = createHooksApp(
      {
        token: () => this.#pkiSecret['hook-token'] ?? null,
        connect: (body) => this.#connect(body),
        disconnect: (body) => this.#disconnect(body),
      },
      this.#o.logger,
    );
    const server = http.createServer((request, response) =>
      request.url?.startsWith('/internal/vpn/') ? hooks(request, response) : handler(request, response),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#o.agentPort, this.#o.agentHost ?? '0.0.0.0', () => resolve());
    });
    this.#servers.push(server);
    this.#o.logger.info({ port: (server.address() as AddressInfo).port }, 'serving box agents and VPN hooks');
    return () => this.#closeServer(server);
  }

  /** Where the internal endpoint listens (tests). */
  get internalPort(): number | undefined {
    return (this.#servers[0]?.address() as AddressInfo | null)?.port;
  }

  async #closeServer(server: http.Server): Promise<void> {
    this.#servers = this.#servers.filter((s) => s !== server);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    clearTimeout(this.#publishTimer);
    await this.#boxes.stop();
    await Promise.all(this.#servers.map((server) => this.#closeServer(server)));
  }
}

function observe(box: Box): BoxObservation {
  const status = box.status;
  return {
    phase: PHASES[status?.phase ?? 'Pending'] ?? 'PROVISIONING',
    ip: status?.phase === 'Running' ? (status.ip ?? null) : null,
    openPorts: status?.openPorts ?? {},
    reason: status?.reason ?? (status ? null : 'Waiting for the operator.'),
  };
}
