/**
 * The Kubernetes adapter of the BoxOrchestrator port (ORCHESTRATOR=kubernetes): boxes are Box
 * resources (with their Secret) the operator turns into KubeVirt VMs; the VPN is the VpnPool the
 * operator runs as OpenVPN pods, whose hooks tell this adapter who connects (served with the
 * agents' endpoint on the API's internal Service). Level-based like the port: applyBox writes
 * the whole desired Box every time (server-side apply, field manager exploit-grid-api).
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventEmitter } from 'node:events';
import http, { type RequestListener } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import type { Informer } from '@exploit-grid/operator/kubernetes';
import {
  ANNOTATIONS,
  BOX_RESOURCE,
  DATA_VOLUME_RESOURCE,
  DEFAULT_BOX_IMAGE,
  DISK_ANNOTATIONS,
  GROUP,
  SPARE_STATE,
  VOLUME_SNAPSHOT_API_VERSION as SNAPSHOT_API_VERSION,
  createdAt,
  quantityBytes,
  VERSION,
  Kube,
  VPNPOOL_RESOURCE,
  customResourceInformer,
  LABELS,
  describeError,
  pkiSecretName,
  reuseConnections,
  spareLoadoutOf,
  vpnServerName,
  type Box,
  type DataVolume,
  type VpnPool,
} from '@exploit-grid/operator/kubernetes';
import { VpnPki } from '@exploit-grid/operator/pki';
import { runChecks, type CheckResult, type ServiceCheck } from '@exploit-grid/operator/catalogue';
import type { BoxStatus, VpnProtocol } from '../../contracts/boxes.ts';
import type { Logger } from '../../logger.ts';
import { clientConfig } from '../../vpn/client-config.ts';
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
import { BoxHasNoDisk, SnapshotImageGone } from '../orchestrator.ts';
import { FlowRecord } from '../witness.ts';
import { CheckDispatch } from './checks.ts';
import { createHooksApp, type HookBody, type SessionsBody } from './hooks-app.ts';

export const API_FIELD_MANAGER = 'exploit-grid-api';
const RETRY_MS = 5_000;
/** The pool's PKI Secret is read again this often (the pool itself is watched). */
const RELOAD_MS = 60_000;
/** A spare whose loadout was given to a new box is not offered again for this long (the operator takes it). */
const SPARE_HANDED_OUT_MS = 2 * 60_000;
/** How long a snapshot may take to be ready (the storage's copy). */
const SNAPSHOT_TIMEOUT_MS = 10 * 60_000;
/** How long the operator may take to halt a box and swap its disk for a restore. */
const RESTORE_TIMEOUT_MS = 3 * 60_000;
const SNAPSHOT_POLL_MS = 1_000;
/** A box's snapshot is the VolumeSnapshot `snap-<snapshot id>` of its disk's claim. */
export const snapshotName = (snapshotId: string) => `snap-${snapshotId}`;

interface VolumeSnapshot {
  metadata: { name: string };
  status?: { readyToUse?: boolean; restoreSize?: string; error?: { message?: string } };
}

export interface KubernetesRuntimeOptions {
  config: k8s.KubeConfig;
  namespace: string;
  poolName: string;
  /** The boxes' container disk image (default: the Box resource's default). */
  boxImage?: string;
  /** The VolumeSnapshotClass of the boxes' snapshots (default: the cluster's default for their driver). */
  snapshotClass?: string;
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
  readonly #pools: Informer<VpnPool>;
  /** What each box's status said last (boxChanged is told only when it changes). */
  readonly #seen = new Map<string, string>();
  #pool: VpnPool | undefined;
  #pki: VpnPki | undefined;
  #pkiSecret: Record<string, string> = {};
  #unavailable: string | null = 'Connecting to Kubernetes.';
  #retry: NodeJS.Timeout | undefined;
  #loading: Promise<void> | undefined;
  #loadAgain = false;
  #closed = false;
  /** The revocations last asked for: written into the CRL now, or once the PKI is there. */
  #revoked: RevokedIdentity[] | undefined;
  #crlWrites: Promise<void> = Promise.resolve();
  #authorize: ((userId: string) => Promise<boolean>) | null = null;
  /** What the VPN servers (the arena's routers) saw of the attack windows' flows. */
  readonly witness = new FlowRecord();
  /** The service checks the VPN servers make for the attacks (checks.ts). */
  readonly #checks = new CheckDispatch(this.witness);
  /** VPN sessions by `protocol/vpnAddress`, from the servers' hooks. */
  readonly #sessions = new Map<string, VpnSession>();
  /** The server holding each session (its reports speak for its own sessions only). */
  readonly #sessionServers = new Map<string, string>();
  /** The spec last applied per box id (attack windows and owners' addresses re-apply it). */
  readonly #specs = new Map<string, BoxSpec>();
  /** Attack windows per box id: attacker user id → until. */
  readonly #windows = new Map<string, Map<string, Date>>();
  /** Restores asked for, by box id: written into the Box (`spec.restore`) until the operator did them. */
  readonly #restores = new Map<string, { id: string; snapshot: string }>();
  /** Spares whose loadout a new box was given, and when (see spareLoadout). */
  readonly #sparesGiven = new Map<string, number>();
  #publishTimer: NodeJS.Timeout | undefined;
  #servers: http.Server[] = [];

  constructor(options: KubernetesRuntimeOptions) {
    this.#o = options;
    const config = reuseConnections(options.config);
    this.#kube = new Kube(config, API_FIELD_MANAGER);
    const { namespace } = options;
    this.#boxes = customResourceInformer<Box>(config, BOX_RESOURCE, {
      namespace,
      labelSelector: LABELS.boxId,
      logger: options.logger,
      onChange: (box, event) => this.#boxChanged(box, event),
    });
    this.#pools = customResourceInformer<VpnPool>(config, VPNPOOL_RESOURCE, {
      namespace,
      logger: options.logger,
      onChange: (pool, event) => {
        if (pool.metadata.name === options.poolName) this.#poolChanged(pool, event);
      },
    });
  }

  /** Never throws: while Kubernetes, the pool or its PKI is missing, status() says so and this keeps looking. */
  async start(): Promise<void> {
    await this.#boxes.start();
    await this.#loadPool();
    await this.#pools.start();
  }

  /**
   * The Box watch tells boxChanged only when what applyBox would answer changed (the phase,
   * address, ports, reason), or the Box went: spec writes (owners' addresses, windows) and the
   * operator's bookkeeping in the status do not wake the BoxService up.
   */
  #boxChanged(box: Box, event: 'add' | 'update' | 'delete'): void {
    const id = box.metadata.labels?.[LABELS.boxId];
    if (!id) return;
    if (event === 'delete') {
      this.#seen.delete(id);
    } else {
      const seen = JSON.stringify(observe(box));
      if (this.#seen.get(id) === seen) return;
      this.#seen.set(id, seen);
    }
    this.events.emit('boxChanged', id);
  }

  /** The watched pool: its spec and status are used as they come; a new pool (or none) means its PKI again. */
  #poolChanged(pool: VpnPool, event: 'add' | 'update' | 'delete'): void {
    if (event === 'delete') {
      this.#pool = undefined;
      this.#pki = undefined;
      this.#unavailable = waitingForPool(this.#o.poolName, this.#o.namespace);
      this.#o.logger.warn({ pool: pool.metadata.name }, 'VPN pool deleted; boxes wait for a new one');
      return;
    }
    if (this.#pki && this.#pool?.metadata.uid === pool.metadata.uid) this.#pool = pool;
    else void this.#loadPool();
  }

  /** The pool and its PKI (the operator makes them); until they are there, boxes wait. One load at a time. */
  #loadPool(): Promise<void> {
    if (this.#loading) {
      this.#loadAgain = true;
      return this.#loading;
    }
    this.#loading = (async () => {
      do {
        this.#loadAgain = false;
        await this.#loadPoolOnce();
      } while (this.#loadAgain && !this.#closed);
    })().finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  async #loadPoolOnce(): Promise<void> {
    if (this.#closed) return;
    const { namespace, poolName } = this.#o;
    const wasReady = this.#pki !== undefined;
    const previousCa = this.#pkiSecret['ca.crt'];
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
      if (!certificatePem || !privateKeyPem) throw new PkiProblem('it has no ca.crt and ca.key');
      this.#pki = await VpnPki.load({ certificatePem, privateKeyPem }).catch((error: unknown) => {
        throw new PkiProblem(`its CA does not load (${describeError(error).message})`);
      });
      if (this.#unavailable)
        this.#o.logger.info({ namespace, pool: poolName }, 'Kubernetes box runtime ready');
      this.#unavailable = null;
      // A CRL asked for while there was no PKI, or for a PKI that is new (a pool made again).
      if (this.#revoked && (!wasReady || previousCa !== certificatePem))
        await this.#writeCrl().catch((error: unknown) =>
          this.#o.logger.warn({ error: describeError(error) }, 'could not write the VPN CRL'),
        );
    } catch (error) {
      const { status } = describeError(error);
      if (wasReady && status !== 404 && !(error instanceof PkiProblem)) {
        // Kubernetes did not answer this once: what was loaded still holds (applyBox says when it fails).
        this.#o.logger.warn({ error: describeError(error) }, 'could not read the VPN pool again');
      } else {
        this.#pki = undefined;
        this.#unavailable = unavailableReason(error, poolName, namespace);
        this.#o.logger.warn({ reason: this.#unavailable }, 'Kubernetes box runtime not ready');
      }
    }
    if (this.#closed) return;
    // Looked at again soon while missing; the PKI Secret now and then (deleted, the operator makes a new one).
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.#loadPool(), this.#unavailable ? RETRY_MS : RELOAD_MS);
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
        owner: {
          id: spec.ownerId,
          handle:
            spec.ownerHandle ?? (spec.hostname.replace(/-box(-\d+)?$/, '').slice(0, 32) || spec.hostname),
        },
        hostname: spec.hostname,
        power: spec.power ? 'On' : 'Off',
        ...(this.#o.boxImage ? { image: this.#o.boxImage } : {}),
        resources: { memoryMiB: spec.resources.memoryMiB, cpuMillis: spec.resources.cpuMillis },
        ...(spec.sshPublicKey ? { sshPublicKey: spec.sshPublicKey } : {}),
        loadout: spec.loadout,
        secretRef: { name: secretName(spec.id) },
        ...(this.#restores.has(spec.id) ? { restore: this.#restores.get(spec.id) } : {}),
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
    // A reset's new Box starts from its own disk, not from a restore asked of the old one.
    this.#restores.delete(id);
    const { namespace } = this.#o;
    await this.#kube.deleteIfPresent(`${GROUP}/${VERSION}`, 'Box', namespace, boxName(id));
    await this.#kube.deleteIfPresent('v1', 'Secret', namespace, secretName(id));
  }

  /**
   * The loadout of a ready spare disk the operator prepared (docs/kubernetes.md, "Disks and prepared
   * spares"), oldest first, or null. The box is given it; the operator gives the Box that spare (same
   * loadout and image) instead of a new disk to install. Not the same spare twice within two minutes;
   * should two boxes still want one spare (two API replicas), the second gets a new disk with that loadout.
   */
  async spareLoadout(): Promise<string[] | null> {
    const list = (await this.#kube.custom.listNamespacedCustomObject({
      group: DATA_VOLUME_RESOURCE.group,
      version: DATA_VOLUME_RESOURCE.version,
      namespace: this.#o.namespace,
      plural: DATA_VOLUME_RESOURCE.plural,
      labelSelector: `${SPARE_STATE}=ready`,
    })) as { items: DataVolume[] };
    const now = Date.now();
    for (const [name, at] of this.#sparesGiven)
      if (now - at > SPARE_HANDED_OUT_MS) this.#sparesGiven.delete(name);
    const image = this.#o.boxImage ?? DEFAULT_BOX_IMAGE;
    const spare = list.items
      .filter(
        (disk) =>
          !disk.metadata.deletionTimestamp &&
          disk.metadata.annotations?.[DISK_ANNOTATIONS.image] === image &&
          !this.#sparesGiven.has(disk.metadata.name) &&
          spareLoadoutOf(disk),
      )
      .sort((a, b) => createdAt(a) - createdAt(b))[0];
    if (!spare) return null;
    this.#sparesGiven.set(spare.metadata.name, now);
    return spareLoadoutOf(spare) ?? null;
  }

  /**
   * A snapshot (docs/kubernetes.md, "Snapshots"): a CSI VolumeSnapshot of the box's disk, running or not
   * (crash-consistent: as if the box lost power at that moment), answered once the storage says it is ready.
   */
  async snapshotBox(id: string, snapshotId: string): Promise<{ sizeBytes: number }> {
    const { namespace } = this.#o;
    const box = this.#boxes.get(boxName(id), namespace);
    // A Box on its way out (a reset) has the old disk: nothing of it to save for the new one.
    const disk = box?.metadata.deletionTimestamp ? undefined : box?.metadata.annotations?.[ANNOTATIONS.disk];
    if (!disk) throw new BoxHasNoDisk();
    const name = snapshotName(snapshotId);
    await this.#kube.objects.create({
      apiVersion: SNAPSHOT_API_VERSION,
      kind: 'VolumeSnapshot',
      metadata: { name, namespace, labels: { [LABELS.boxId]: id } },
      spec: {
        source: { persistentVolumeClaimName: disk },
        ...(this.#o.snapshotClass ? { volumeSnapshotClassName: this.#o.snapshotClass } : {}),
      },
    } as k8s.KubernetesObject);
    const deadline = Date.now() + SNAPSHOT_TIMEOUT_MS;
    for (;;) {
      const snapshot = (await this.#kube.objects.read({
        apiVersion: SNAPSHOT_API_VERSION,
        kind: 'VolumeSnapshot',
        metadata: { name, namespace },
      })) as unknown as VolumeSnapshot;
      if (snapshot.status?.readyToUse) return { sizeBytes: quantityBytes(snapshot.status.restoreSize) };
      if (snapshot.status?.error?.message)
        throw new Error(`The VolumeSnapshot failed: ${snapshot.status.error.message}`);
      if (Date.now() > deadline) throw new Error('The VolumeSnapshot was not ready in time.');
      await sleep(SNAPSHOT_POLL_MS);
    }
  }

  async deleteSnapshot(_id: string, snapshotId: string): Promise<void> {
    await this.#kube.deleteIfPresent(
      SNAPSHOT_API_VERSION,
      'VolumeSnapshot',
      this.#o.namespace,
      snapshotName(snapshotId),
    );
  }

  /**
   * Puts a snapshot in place of the box's disk: the Box is written with `spec.restore` (and power off), and the
   * operator halts its VM, makes a new disk from the snapshot and drops the old one; answered once the Box's
   * status says it was done.
   */
  async restoreBox(id: string, snapshotId: string): Promise<void> {
    const spec = this.#specs.get(id);
    if (!spec) throw new Error(`The box ${id} was not written yet.`);
    const name = snapshotName(snapshotId);
    const there = await this.#kube.exists(SNAPSHOT_API_VERSION, 'VolumeSnapshot', this.#o.namespace, name);
    if (!there) throw new SnapshotImageGone();
    const request = { id: randomUUID(), snapshot: name };
    this.#restores.set(id, request);
    this.#specs.set(id, { ...spec, power: false });
    try {
      await this.#kube.apply(this.#boxFor(this.#specs.get(id)!));
      // The operator halts the VM (its guest's shutdown: seconds) and swaps the disk; the copy itself is
      // the storage's, after. Bounded: the box's lock is held meanwhile.
      const deadline = Date.now() + RESTORE_TIMEOUT_MS;
      for (;;) {
        const restored = this.#boxes.get(boxName(id), this.#o.namespace)?.status?.restored;
        if (restored?.id === request.id) {
          if (restored.error) throw new SnapshotImageGone(restored.error);
          return;
        }
        if (Date.now() > deadline) throw new Error('The box was not restored in time.');
        await sleep(SNAPSHOT_POLL_MS);
      }
    } catch (error) {
      // Not done: the request goes, so that the operator does not do it later behind the API's back (the
      // API puts the box's loadout and power back). Should the operator have swapped the disk meanwhile,
      // the box runs the snapshot's disk with its old loadout listed (docs/kubernetes.md).
      if (this.#restores.get(id) === request) this.#restores.delete(id);
      this.#specs.set(id, spec);
      await this.#kube
        .apply(this.#boxFor(spec))
        .catch((err: unknown) =>
          this.#o.logger.warn({ boxId: id, error: describeError(err) }, 'could not withdraw a restore'),
        );
      throw error;
    }
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
   * every 10 minutes, so a revoked player's live session ends within that). Before the pool's
   * PKI is there (the API starting with the operator), the list waits and is written once it is.
   */
  async setRevoked(revoked: RevokedIdentity[]): Promise<void> {
    this.#revoked = revoked.map((r) => ({ ...r }));
    if (!this.#pki) {
      this.#o.logger.info({ revoked: revoked.length }, 'VPN CRL waits for the pool’s PKI');
      return;
    }
    await this.#writeCrl();
  }

  /** Writes the CRL of the revocations asked for last; one write at a time, so an older list never wins. */
  #writeCrl(): Promise<void> {
    const write = this.#crlWrites.then(async () => {
      const pki = this.#pki;
      const pool = this.#pool;
      if (!pki || !pool || !this.#revoked) return;
      const crl = await pki.crl(
        this.#revoked.map((r) => ({ serialNumber: r.serialNumber, revokedAt: r.revokedAt })),
      );
      // A merge patch, not an apply: it must not make the Secret when the pool (and its PKI) just went.
      await this.#kube.core.patchNamespacedSecret(
        {
          name: pkiSecretName(pool),
          namespace: this.#o.namespace,
          body: { data: { 'crl.pem': Buffer.from(crl).toString('base64') } },
          fieldManager: API_FIELD_MANAGER,
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      this.#pkiSecret['crl.pem'] = crl;
    });
    this.#crlWrites = write.catch(() => undefined);
    return write;
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

  /**
   * A window on a box this process has not applied yet (the API restarted and re-opens the
   * windows of running attacks before its loop reached the box) is kept and written with the
   * box's next applyBox; a box that is not in the cluster at all is an error.
   */
  async openAttackWindow(attackerUserId: string, targetBoxId: string, until: Date): Promise<void> {
    const spec = this.#specs.get(targetBoxId);
    if (
      !spec &&
      !(await this.#kube.exists(`${GROUP}/${VERSION}`, 'Box', this.#o.namespace, boxName(targetBoxId)))
    )
      throw new Error(`There is no Box for box ${targetBoxId} in namespace ${this.#o.namespace}.`);
    let windows = this.#windows.get(targetBoxId);
    if (!windows) this.#windows.set(targetBoxId, (windows = new Map()));
    const before = windows.get(attackerUserId);
    windows.set(attackerUserId, until);
    if (!spec) return;
    try {
      await this.#kube.apply(this.#boxFor(spec));
    } catch (error) {
      // Not opened: the attack is called off, so the window must not come back with a later write.
      if (before) windows.set(attackerUserId, before);
      else windows.delete(attackerUserId);
      throw error;
    }
  }

  /**
   * Checks a box's services as its attacker is seen there: made by the VPN server holding the attacker's
   * latest session, from its arena address renamed to the attacker's VPN address (operator/src/vpnpool/
   * checks.ts). Null while the window is closed, the attacker has no session, or the box has no address yet.
   */
  async checkServices(
    attackerUserId: string,
    boxId: string,
    checks: ServiceCheck[],
    timeoutMs: number,
  ): Promise<CheckResult[] | null> {
    const until = this.#windows.get(boxId)?.get(attackerUserId);
    if (this.#unavailable || !until || until.getTime() <= Date.now()) return null;
    // The box's arena address, kept for its lifetime: a box the operator shows Provisioning (its VM restarting)
    // is checked all the same, as on the local runtime (ServiceChecks leaves out boxes that are down).
    const box = this.#boxes.get(boxName(boxId), this.#o.namespace);
    const address = box?.status?.ip ?? box?.metadata.annotations?.[ANNOTATIONS.address];
    if (!address) return null;
    const session = [...this.#sessions]
      .filter(([, s]) => s.userId === attackerUserId)
      .sort(([, a], [, b]) => b.connectedAt.getTime() - a.connectedAt.getTime())[0];
    const server = session && this.#sessionServers.get(session[0]);
    if (!session || !server) return null;
    return runChecks(
      checks,
      address,
      this.#checks.transports(server, address, session[1].vpnAddress),
      timeoutMs,
    );
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
      realAddress: body.realAddress && isIP(body.realAddress) ? body.realAddress : null,
    };
    this.#sessions.set(`${body.protocol}/${body.vpnAddress}`, session);
    this.#sessionServers.set(`${body.protocol}/${body.vpnAddress}`, body.server);
    this.events.emit('vpnConnected', { ...session });
    await Promise.all(this.#boxesTouching(session.userId).map((id) => this.#reapply(id)));
    this.#publishClients();
    return true;
  }

  /**
   * A server's sessions as it holds them now. After an API restart this is how the API learns
   * who is connected (their boxes' Box gets their address again); a disconnect the API missed
   * ends here. Sessions were authorized when they connected; the CRL cuts revoked players.
   */
  async #syncSessions(body: SessionsBody): Promise<void> {
    const protocol = toProtocol(body.protocol);
    const reported = new Map(body.sessions.map((s) => [`${body.protocol}/${s.vpnAddress}`, s.commonName]));
    const touched = new Set<string>();
    for (const [key, session] of [...this.#sessions]) {
      if (this.#sessionServers.get(key) !== body.server || reported.get(key) === session.userId) continue;
      this.#sessions.delete(key);
      this.#sessionServers.delete(key);
      this.events.emit('vpnDisconnected', { ...session });
      touched.add(session.userId);
    }
    for (const [key, userId] of reported) {
      this.#sessionServers.set(key, body.server);
      if (this.#sessions.get(key)?.userId === userId) continue;
      const vpnAddress = key.slice(key.indexOf('/') + 1);
      const session: VpnSession = { userId, protocol, vpnAddress, connectedAt: new Date() };
      this.#sessions.set(key, session);
      this.events.emit('vpnConnected', { ...session });
      touched.add(userId);
    }
    if (touched.size === 0) return;
    const boxes = new Set([...touched].flatMap((userId) => this.#boxesTouching(userId)));
    await Promise.all([...boxes].map((id) => this.#reapply(id)));
    this.#publishClients();
  }

  async #disconnect(body: HookBody): Promise<void> {
    const key = `${body.protocol}/${body.vpnAddress}`;
    const session = this.#sessions.get(key);
    if (!session || session.userId !== body.commonName) return;
    this.#sessions.delete(key);
    this.#sessionServers.delete(key);
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
        .applyStatus(VPNPOOL_RESOURCE, pool.metadata.namespace, pool.metadata.name, {
          udp: { clients: usage.UDP.clients },
          tcp: { clients: usage.TCP.clients },
        })
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
        sessions: (body) => this.#syncSessions(body),
        flows: (body) => this.witness.report(body.server, body.flows),
        checks: (server, signal) => this.#checks.next(server, signal),
        checkResult: (outcome) => this.#checks.result(outcome),
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
    this.#checks.close();
    await this.#boxes.stop();
    await this.#pools.stop();
    await this.#crlWrites;
    await Promise.all(this.#servers.map((server) => this.#closeServer(server)));
  }
}

class PkiProblem extends Error {}

const waitingForPool = (poolName: string, namespace: string) =>
  `Waiting for the VPN pool ${poolName} and its PKI in namespace ${namespace} (the operator makes the PKI).`;

function unavailableReason(error: unknown, poolName: string, namespace: string): string {
  const { status, message } = describeError(error);
  if (status === 404) return waitingForPool(poolName, namespace);
  if (error instanceof PkiProblem) return `The VPN pool ${poolName}'s PKI Secret is unusable: ${message}.`;
  if (status !== undefined)
    return `Kubernetes refused to show the VPN pool ${poolName} (${status}): ${message}`;
  return `Kubernetes is not reachable: ${message}`;
}

export function observe(box: Box): BoxObservation {
  const status = box.status;
  return {
    phase: PHASES[status?.phase ?? 'Pending'] ?? 'PROVISIONING',
    ip: status?.phase === 'Running' ? (status.ip ?? null) : null,
    openPorts: status?.openPorts ?? {},
    reason: status?.reason ?? (status ? null : 'Waiting for the operator.'),
  };
}
