/**
 * The Box controller: level-based, from whatever a Box is now to its children and status. For a
 * Box it holds a finalizer, gives it an arena address (once), reads its Secret, server-side
 * applies its VirtualMachine, cloud-init Secret, Service and NetworkPolicy (pure builders), and
 * writes its status from the VM's. A deleted Box has its children removed before its finalizer
 * goes. Nothing here remembers anything between calls but the informers' caches.
 */
import { createHash } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Kube } from '../controller/kube.ts';
import { statusOf } from '../controller/errors.ts';
import type { HandlerResult } from '../controller/queue.ts';
import { allocateBoxAddress, inSubnet, type ArenaSubnet } from './addresses.ts';
import { loadoutFiles } from '../catalogue/bundle.ts';
import {
  ANNOTATIONS,
  FINALIZER,
  LABELS,
  boxLabels,
  boxStatusFor,
  cloudInitSecretFor,
  cloudInitSecretName,
  networkPolicyFor,
  openWindows,
  ownerReferenceTo,
  serviceFor,
  virtualMachineFor,
  type Observed,
  type VirtualMachine,
} from './builders.ts';
import {
  DATA_VOLUME_API_VERSION,
  DATA_VOLUME_RESOURCE,
  VOLUME_SNAPSHOT_API_VERSION,
  createdAt,
  dataVolumeFor,
  quantityBytes,
  diskFits,
  type DataVolume,
  type DiskSettings,
} from './disk.ts';
import { SPARE_STATE, sameLoadout, spareLoadoutOf, spareStateOf } from './spares.ts';
import { GROUP, VERSION, type Box, type BoxStatus } from './types.ts';

export const BOX_RESOURCE = { group: GROUP, version: VERSION, plural: 'boxes', kind: 'Box' } as const;

/** While a Box's Secret is missing, look again this often (the API writes it just before the Box). */
const SECRET_RETRY_MS = 2_000;
/** Children gone yet? (A VM with a running instance takes KubeVirt a while to delete.) */
const DELETION_POLL_MS = 2_000;
/** A restore waits for the VM to halt; looked at this often besides the VM's watch events. */
const RESTORE_POLL_MS = 2_000;

export interface BoxControllerOptions {
  kube: Kube;
  logger: Logger;
  arenaNetwork: string;
  arenaSubnet: ArenaSubnet;
  /** The agents' endpoint as boxes reach it, e.g. http://172.30.0.10/ */
  agentApiUrl: () => string;
  /** Routes to the VPN client slices through the servers holding them, for this namespace. */
  routes: (namespace: string) => { to: string; via: string }[];
  agentBundle: Buffer;
  boxes: { get(name: string, namespace: string): Box | undefined; list(): readonly Box[] };
  vms: { get(name: string, namespace: string): VirtualMachine | undefined };
  /** The DataVolumes the operator made (boxes' disks and spares). */
  disks: { get(name: string, namespace: string): DataVolume | undefined; list(): readonly DataVolume[] };
  disk: DiskSettings;
  now?: () => Date;
}

/** The disk a Box gets when it takes no spare. */
export const boxDiskName = (box: Box) => `${box.metadata.name}-disk`;
/** The disk a restore makes (64 bits of the request's id: one per request). */
export const restoredDiskName = (box: Box, requestId: string) =>
  `${box.metadata.name}-disk-${requestId.replaceAll('-', '').slice(0, 16)}`;

export class BoxController {
  readonly #options: BoxControllerOptions;
  /** Addresses handed out and not yet visible in the cache (the annotation's watch event may lag). */
  readonly #pending = new Map<string, string>();
  /** Per Box uid: a digest of what its children were last applied from. */
  readonly #applied = new Map<string, string>();
  /** Per Box uid: the disk whose filling its other disks were dropped for (looked for once, until forget). */
  readonly #dropped = new Map<string, string>();

  constructor(options: BoxControllerOptions) {
    this.#options = options;
  }

  /**
   * Converges one Box: gone → nothing (its finalizer saw to its children); deleting → its children go first;
   * else its finalizer and address, its Secret, its disk, a restore asked for, its children, its status, each
   * phase returning early when it cannot go on.
   */
  async reconcile(key: string): Promise<HandlerResult> {
    const [namespace, name] = splitKey(key);
    const box = this.#options.boxes.get(name, namespace);
    if (!box) return;
    const logger = this.#options.logger.child({ kind: 'Box', box: key });
    if (box.metadata.deletionTimestamp) return this.#reconcileDelete(box, logger);

    const address = await this.#reconcileAddress(box);
    if (!address) return this.#problem(box, 'NoAddress', 'No arena address is free for this box.', 30_000);
    const secrets = await this.#secrets(box);
    if (!secrets) {
      return this.#problem(
        box,
        'SecretMissing',
        `Waiting for the box's Secret ${box.spec.secretRef.name}.`,
        SECRET_RETRY_MS,
      );
    }
    let disk = await this.#reconcileDisk(box, logger);
    if (!disk) return; // the Box is gone: its delete event brings it back
    const now = this.#options.now?.() ?? new Date();
    let restored: Observed['restored'];
    const restore = box.spec.restore;
    if (restore && box.status?.restored?.id !== restore.id) {
      const step = await this.#reconcileRestore(box, disk, restore, logger);
      if (step === 'halting') {
        const halted = { ...box, spec: { ...box.spec, power: 'Off' as const } };
        await this.#reconcileChildren(halted, { address, disk, secrets, now }, logger);
        return { requeueAfterMs: RESTORE_POLL_MS };
      }
      ({ disk, restored } = step);
    }
    await this.#reconcileChildren(box, { address, disk, secrets, now }, logger);
    return this.#reconcileStatus(box, address, now, restored);
  }

  /**
   * A restore (spec.restore, docs/kubernetes.md "Snapshots"): the VM halted first; then a new disk made from
   * the VolumeSnapshot of this box (`<box>-disk-<request id>`, installed already: no loadout), noted on the Box
   * (the old disk goes once the new one is filled). Once per request id: status.restored says it was done, or
   * why not (the snapshot is gone, or another box's).
   */
  async #reconcileRestore(
    box: Box,
    disk: { name: string; prepared: boolean },
    restore: NonNullable<Box['spec']['restore']>,
    logger: Logger,
  ): Promise<'halting' | { disk: { name: string; prepared: boolean }; restored: Observed['restored'] }> {
    const { kube } = this.#options;
    const { namespace, name } = box.metadata;
    const target = restoredDiskName(box, restore.id);
    const done = { id: restore.id, snapshot: restore.snapshot };
    if (disk.name === target) return { disk, restored: done };
    const vm = this.#options.vms.get(name, namespace);
    if (vm && (vm.spec?.runStrategy !== 'Halted' || vm.status?.created)) return 'halting';
    let snapshot: { metadata?: { labels?: Record<string, string> }; status?: { restoreSize?: string } };
    try {
      snapshot = (await kube.objects.read({
        apiVersion: VOLUME_SNAPSHOT_API_VERSION,
        kind: 'VolumeSnapshot',
        metadata: { name: restore.snapshot, namespace },
      })) as typeof snapshot;
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      logger.warn({ snapshot: restore.snapshot }, 'Did not restore the Box: its VolumeSnapshot is gone');
      return { disk, restored: { ...done, error: 'The snapshot is gone.' } };
    }
    // Only a snapshot of this box (the API labels each with its box's id).
    const boxId = box.metadata.labels?.[LABELS.boxId];
    if (!boxId || snapshot.metadata?.labels?.[LABELS.boxId] !== boxId) {
      logger.warn(
        { snapshot: restore.snapshot },
        'Did not restore the Box: the VolumeSnapshot is another box’s',
      );
      return { disk, restored: { ...done, error: 'The snapshot is not this box’s.' } };
    }
    // At least the snapshot's size (a claim the storage rounded up, a BOX_DISK_SIZE made smaller since).
    const { restoreSize } = snapshot.status ?? {};
    const size =
      restoreSize && quantityBytes(restoreSize) > quantityBytes(this.#options.disk.size)
        ? restoreSize
        : this.#options.disk.size;
    await kube.createIfMissing(
      dataVolumeFor({
        name: target,
        namespace,
        image: box.spec.image,
        snapshot: restore.snapshot,
        settings: { ...this.#options.disk, size },
        labels: boxLabels(box),
        ownerReferences: [ownerReferenceTo(box)],
      }),
    );
    const restoredDisk = { name: target, prepared: true };
    // The old disk stays until the new one is filled (#reconcileDisk drops it then): a copy that fails
    // leaves the box's disk where it was.
    await this.#noteDisk(box, restoredDisk);
    logger.info(
      { snapshot: restore.snapshot, disk: target },
      'Restored the Box’s disk from a VolumeSnapshot',
    );
    return { disk: restoredDisk, restored: done };
  }

  /** The finalizer and the box's address, on in one write before anything is made. */
  async #reconcileAddress(box: Box): Promise<string | undefined> {
    const address = this.#address(box);
    if (!address) return undefined;
    const hasFinalizer = box.metadata.finalizers?.includes(FINALIZER) ?? false;
    if (!hasFinalizer || box.metadata.annotations?.[ANNOTATIONS.address] !== address) {
      await this.#options.kube.patchMetadata(box, {
        finalizers: hasFinalizer ? box.metadata.finalizers : [...(box.metadata.finalizers ?? []), FINALIZER],
        annotations: { [ANNOTATIONS.address]: address },
      });
    }
    return address;
  }

  /**
   * The box's disk, chosen once and kept in its annotations: a ready spare with its loadout and image
   * (taken by relabelling it, guarded by its resourceVersion, so that two Boxes never take one spare), else
   * one made for it from the image. The choice is made on what the API server says now, not on the caches
   * (a reconcile right after the address's write sees a Box without its disk noted): a disk this Box already
   * owns (taken or made before the operator could note it) is its disk, and the note is guarded by the Box's
   * resourceVersion. Undefined when the Box is gone.
   */
  async #reconcileDisk(box: Box, logger: Logger): Promise<{ name: string; prepared: boolean } | undefined> {
    const annotations = box.metadata.annotations ?? {};
    const kept = annotations[ANNOTATIONS.disk];
    const { kube } = this.#options;
    if (kept) {
      const prepared = annotations[ANNOTATIONS.diskPrepared] === 'true';
      const keptDisk = this.#options.disks.get(kept, box.metadata.namespace);
      // One disk per box: once its disk is filled, another it owns (the one a restore replaced) goes.
      if (keptDisk?.status?.phase === 'Succeeded' && this.#dropped.get(box.metadata.uid) !== kept) {
        await this.#dropOtherDisks(box, kept, logger);
        this.#dropped.set(box.metadata.uid, kept);
      }
      const there = Boolean(keptDisk);
      // Deleted by hand: made again from the image (409, nothing made, when the cache only lagged).
      if (there || !(await kube.createIfMissing(this.#boxDisk(box, kept)))) return { name: kept, prepared };
      logger.warn({ disk: kept }, 'Created the Box’s missing DataVolume again from its image');
      if (prepared) await this.#noteDisk(box, { name: kept, prepared: false });
      return { name: kept, prepared: false };
    }
    const { namespace, name } = box.metadata;
    let live: Box;
    try {
      live = (await kube.custom.getNamespacedCustomObject({ ...BOX_RESOURCE, namespace, name })) as Box;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
    if (live.metadata.uid !== box.metadata.uid) return undefined; // another Box of that name now
    const noted = live.metadata.annotations?.[ANNOTATIONS.disk];
    if (noted)
      return { name: noted, prepared: live.metadata.annotations?.[ANNOTATIONS.diskPrepared] === 'true' };
    const owned = (
      (await kube.custom.listNamespacedCustomObject({
        ...DATA_VOLUME_RESOURCE,
        namespace,
        labelSelector: `${LABELS.box}=${name}`,
      })) as { items: DataVolume[] }
    ).items.filter(
      (disk) =>
        !disk.metadata.deletionTimestamp &&
        (disk.metadata.ownerReferences ?? []).some((owner) => owner.uid === box.metadata.uid),
    );
    const taken =
      owned.find((disk) => disk.metadata.name !== boxDiskName(box)) ??
      (owned.length === 0 ? await this.#takeSpare(box) : undefined);
    let disk: { name: string; prepared: boolean };
    if (taken) {
      disk = { name: taken.metadata.name, prepared: true };
      logger.info({ spare: taken.metadata.name }, 'Took a prepared spare DataVolume as the Box’s disk');
    } else {
      disk = { name: boxDiskName(box), prepared: false };
      await kube.createIfMissing(this.#boxDisk(box, disk.name));
    }
    await this.#noteDisk(live, disk, { guarded: true });
    return disk;
  }

  /** Deletes the DataVolumes this Box owns (its uid) but `kept`. */
  async #dropOtherDisks(box: Box, kept: string, logger: Logger): Promise<void> {
    for (const disk of this.#options.disks.list()) {
      const { name, namespace, ownerReferences, deletionTimestamp } = disk.metadata;
      if (name === kept || namespace !== box.metadata.namespace || deletionTimestamp) continue;
      if (disk.metadata.labels?.[LABELS.box] !== box.metadata.name) continue;
      if (!(ownerReferences ?? []).some((owner) => owner.uid === box.metadata.uid)) continue;
      await this.#options.kube.deleteIfPresent(DATA_VOLUME_API_VERSION, 'DataVolume', namespace, name);
      logger.info({ disk: name, kept }, 'Deleted the Box’s former DataVolume');
    }
  }

  #boxDisk(box: Box, name: string): DataVolume {
    return dataVolumeFor({
      name,
      namespace: box.metadata.namespace,
      image: box.spec.image,
      settings: this.#options.disk,
      labels: boxLabels(box),
      ownerReferences: [ownerReferenceTo(box)],
    });
  }

  /**
   * Notes the disk on the Box. Guarded: only on the Box as just read (a 409 when another reconcile noted one
   * meanwhile; the next reconcile reads that). Unguarded: only these two annotations, over a note that is
   * there already.
   */
  async #noteDisk(
    box: Box,
    disk: { name: string; prepared: boolean },
    { guarded = false }: { guarded?: boolean } = {},
  ): Promise<void> {
    await this.#options.kube.patchMetadata(
      guarded ? box : { ...box, metadata: { ...box.metadata, resourceVersion: undefined } },
      { annotations: { [ANNOTATIONS.disk]: disk.name, [ANNOTATIONS.diskPrepared]: String(disk.prepared) } },
    );
  }

  /** Takes a ready spare that fits the Box (its loadout, image and disk size), oldest first; none: undefined. */
  async #takeSpare(box: Box): Promise<DataVolume | undefined> {
    const fitting = this.#options.disks
      .list()
      .filter(
        (disk) =>
          disk.metadata.namespace === box.metadata.namespace &&
          !disk.metadata.deletionTimestamp &&
          spareStateOf(disk) === 'ready' &&
          diskFits(disk, box.spec.image, this.#options.disk) &&
          sameLoadout(spareLoadoutOf(disk) ?? [''], box.spec.loadout ?? []),
      )
      .sort((a, b) => createdAt(a) - createdAt(b));
    for (const spare of fitting) {
      try {
        await this.#options.kube.patchMetadata(spare, {
          labels: { ...boxLabels(box), [SPARE_STATE]: null },
          ownerReferences: [ownerReferenceTo(box)],
        });
        return spare;
      } catch (error) {
        if (statusOf(error) !== 409 && statusOf(error) !== 404) throw error; // taken or gone meanwhile
      }
    }
    return undefined;
  }

  /**
   * The VM, its cloud-init Secret, the Service and the NetworkPolicy, applied when what they are made of
   * changed since the last apply (a periodic resync and a deleted child make the controller apply them anyway).
   */
  async #reconcileChildren(
    box: Box,
    input: {
      address: string;
      disk: { name: string; prepared: boolean };
      secrets: { rootPassword: string; agentToken: string };
      now: Date;
    },
    logger: Logger,
  ): Promise<void> {
    const { kube } = this.#options;
    const { address, disk, secrets, now } = input;
    const agentUrl = this.#options.agentApiUrl();
    const routes = this.#options.routes(box.metadata.namespace);
    const agentEndpoint = { cidr: `${new URL(agentUrl).hostname}/32`, port: 80 };
    const policy = networkPolicyFor(box, { now, agentEndpoint });
    const inputs = createHash('sha256')
      .update(JSON.stringify([box.spec, address, disk, secrets, agentUrl, routes, policy.spec]))
      .digest('hex');
    if (this.#applied.get(box.metadata.uid) === inputs) return;
    await Promise.all([
      kube.apply(
        cloudInitSecretFor(box, {
          ...secrets,
          agent: { bundle: this.#options.agentBundle, apiUrl: agentUrl },
          address,
          prefixLength: this.#options.arenaSubnet.prefixLength,
          routes,
          // A prepared spare has its loadout installed: a new instance must not install it again.
          loadout: disk.prepared
            ? []
            : loadoutFiles(box.spec.loadout, undefined, (id) =>
                logger.warn({ entry: id }, 'Left out a loadout entry the catalogue does not have'),
              ),
        }),
      ),
      kube.apply(
        virtualMachineFor(box, {
          arenaNetwork: this.#options.arenaNetwork,
          disk: disk.name,
        }) as k8s.KubernetesObject,
      ),
      kube.apply(serviceFor(box)),
      kube.apply(policy),
    ]);
    this.#applied.set(box.metadata.uid, inputs);
    logger.info(
      { virtualMachine: box.metadata.name, address, disk: disk.name },
      'Applied VirtualMachine, cloud-init Secret, Service and NetworkPolicy',
    );
  }

  /** The status from the VM's; looked at again when the next attack window ends (the policy drops it then). */
  async #reconcileStatus(
    box: Box,
    address: string,
    now: Date,
    restored?: Observed['restored'],
  ): Promise<HandlerResult> {
    const vm = this.#options.vms.get(box.metadata.name, box.metadata.namespace);
    await this.#writeStatus(box, boxStatusFor(box, { vm, address, ...(restored ? { restored } : {}) }, now));
    const next = openWindows(box, now)[0];
    if (next) return { requeueAfterMs: new Date(next.until).getTime() - now.getTime() + 50 };
  }

  /** Applies every box's children again at its next reconcile (resync, a child deleted by hand). */
  forget(uid?: string): void {
    if (uid) {
      this.#applied.delete(uid);
      this.#dropped.delete(uid);
    } else {
      this.#applied.clear();
      this.#dropped.clear();
    }
  }

  /** The box's address: kept in an annotation, allocated once (lowest free) by the leader. */
  #address(box: Box): string | undefined {
    const kept = box.metadata.annotations?.[ANNOTATIONS.address];
    if (kept && inSubnet(this.#options.arenaSubnet, kept)) {
      this.#pending.delete(box.metadata.uid);
      return kept;
    }
    const pending = this.#pending.get(box.metadata.uid);
    if (pending) return pending;
    const inUse = new Set<string>(this.#pending.values());
    for (const other of this.#options.boxes.list()) {
      const address = other.metadata.annotations?.[ANNOTATIONS.address];
      if (address && other.metadata.uid !== box.metadata.uid) inUse.add(address);
    }
    const address = allocateBoxAddress(this.#options.arenaSubnet, inUse);
    if (address) this.#pending.set(box.metadata.uid, address);
    return address;
  }

  async #secrets(box: Box): Promise<{ rootPassword: string; agentToken: string } | undefined> {
    try {
      const secret = await this.#options.kube.core.readNamespacedSecret({
        name: box.spec.secretRef.name,
        namespace: box.metadata.namespace,
      });
      const value = (key: string) => {
        const data = secret.data?.[key];
        return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
      };
      const rootPassword = value('rootPassword');
      const agentToken = value('agentToken');
      return rootPassword && agentToken ? { rootPassword, agentToken } : undefined;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async #problem(box: Box, reason: string, message: string, retryMs: number): Promise<HandlerResult> {
    const now = this.#options.now?.() ?? new Date();
    const observed: Observed = { vm: undefined, address: undefined, problem: { reason, message } };
    await this.#writeStatus(box, boxStatusFor(box, observed, now));
    return { requeueAfterMs: retryMs };
  }

  /** Writes the status only when it changed (a write is a watch event, and another reconcile). */
  async #writeStatus(box: Box, status: BoxStatus): Promise<void> {
    if (sameStatus(box.status, status)) return;
    await this.#options.kube.applyStatus(BOX_RESOURCE, box.metadata.namespace, box.metadata.name, status);
  }

  async #reconcileDelete(box: Box, logger: Logger): Promise<HandlerResult> {
    if (!box.metadata.finalizers?.includes(FINALIZER)) return;
    const { kube } = this.#options;
    const { namespace, name } = box.metadata;
    const children: [string, string, string][] = [
      ['kubevirt.io/v1', 'VirtualMachine', name],
      ['v1', 'Secret', cloudInitSecretName(box)],
      ['v1', 'Service', name],
      ['networking.k8s.io/v1', 'NetworkPolicy', name],
    ];
    // Its disk, whichever it is: made for it, noted, or a spare it took before it could note it.
    const disks = new Set([boxDiskName(box), box.metadata.annotations?.[ANNOTATIONS.disk]]);
    for (const disk of this.#options.disks.list())
      if (disk.metadata.namespace === namespace && disk.metadata.labels?.[LABELS.box] === name)
        disks.add(disk.metadata.name);
    for (const disk of disks) if (disk) children.push([DATA_VOLUME_API_VERSION, 'DataVolume', disk]);
    for (const [apiVersion, kind, child] of children)
      await kube.deleteIfPresent(apiVersion, kind, namespace, child);
    // The VM may hold on (KubeVirt stops its instance first): the finalizer stays until it is gone.
    if (await kube.exists('kubevirt.io/v1', 'VirtualMachine', namespace, name)) {
      return { requeueAfterMs: DELETION_POLL_MS };
    }
    try {
      await kube.patchMetadata(box, { finalizers: box.metadata.finalizers.filter((f) => f !== FINALIZER) });
    } catch (error) {
      if (statusOf(error) !== 404) throw error; // 404: already gone, as wanted
    }
    this.#pending.delete(box.metadata.uid);
    this.forget(box.metadata.uid);
    logger.info('Deleted the Box’s VirtualMachine, DataVolume, Secrets, Service and NetworkPolicy');
  }
}

export function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

export const keyOf = (object: { metadata?: { namespace?: string; name?: string } }) =>
  `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;

/** Equal statuses but for the conditions' transition times (which boxStatusFor keeps anyway). */
function sameStatus(a: BoxStatus | undefined, b: BoxStatus): boolean {
  if (!a) return false;
  const strip = (status: BoxStatus) => ({
    ...status,
    conditions: (status.conditions ?? []).map(({ lastTransitionTime: _, ...rest }) => rest),
  });
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}
