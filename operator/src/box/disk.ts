/**
 * A box's disk on Kubernetes: a CDI DataVolume imported from the box's container disk image, so that
 * what the owner did to their box (hardening, fixes) outlives a stop, as on the local runtime. A Box's
 * disk is either made for it (`<box>-disk`) or a spare the operator prepared beforehand with a loadout
 * installed (spares.ts); the Box's annotations say which, and the operator deletes it with the Box.
 */
import type { V1OwnerReference } from '@kubernetes/client-node';
import type { components } from '../generated/kubevirt.ts';

export const DATA_VOLUME_RESOURCE = {
  group: 'cdi.kubevirt.io',
  version: 'v1beta1',
  plural: 'datavolumes',
  kind: 'DataVolume',
} as const;
export const DATA_VOLUME_API_VERSION = `${DATA_VOLUME_RESOURCE.group}/${DATA_VOLUME_RESOURCE.version}`;

/** How the operator makes disks (BOX_DISK_SIZE, BOX_STORAGE_CLASS). */
export interface DiskSettings {
  /** A Kubernetes quantity, e.g. `4Gi`. */
  size: string;
  /** The StorageClass of the disks' claims; the cluster's default when absent. */
  storageClass?: string;
}

/** The image's disk is 4 GiB; the claim holds it and the file system's own overhead (CDI checks). */
export const DEFAULT_DISK_SIZE = '5Gi';
/** The Box CRD's default image (crds/box.yaml), which Boxes get unless the API sets one. */
export const DEFAULT_BOX_IMAGE = 'exploit-grid/box-debian:bookworm';

/** What a disk is made of, in annotations on it: a spare is adopted only by a Box it fits. */
export const DISK_ANNOTATIONS = {
  image: 'exploitgrid.io/image',
  size: 'exploitgrid.io/disk-size',
  /** A spare's loadout (JSON list of catalogue ids), installed on it already. */
  loadout: 'exploitgrid.io/loadout',
  /** A spare's catalogue (a digest of every entry's install files): one made from another catalogue goes. */
  catalogue: 'exploitgrid.io/catalogue',
} as const;

export interface DataVolume {
  apiVersion: typeof DATA_VOLUME_API_VERSION;
  kind: 'DataVolume';
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp?: Date;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: V1OwnerReference[];
    deletionTimestamp?: Date;
  };
  spec: components['schemas']['v1beta1.DataVolumeSpec'];
  /** CDI's: `phase` (Pending, ImportInProgress, Succeeded, Failed, ...), `progress` ("45.5%"). */
  status?: { phase?: string; progress?: string };
}

/** CSI's VolumeSnapshot: a box's snapshot is one of its disk's claim (docs/kubernetes.md, "Snapshots"). */
export const VOLUME_SNAPSHOT_RESOURCE = {
  group: 'snapshot.storage.k8s.io',
  version: 'v1',
  plural: 'volumesnapshots',
  kind: 'VolumeSnapshot',
} as const;
export const VOLUME_SNAPSHOT_API_VERSION = `${VOLUME_SNAPSHOT_RESOURCE.group}/${VOLUME_SNAPSHOT_RESOURCE.version}`;

/**
 * A DataVolume importing `image` (a container disk, as KubeVirt's `containerDisk` takes it) from its
 * registry into a new claim of `settings.size`, read-write by one node; with `snapshot`, made from that
 * VolumeSnapshot of a box's disk instead (a restore).
 */
export function dataVolumeFor(input: {
  name: string;
  namespace: string;
  image: string;
  snapshot?: string;
  settings: DiskSettings;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: V1OwnerReference[];
}): DataVolume {
  return {
    apiVersion: DATA_VOLUME_API_VERSION,
    kind: 'DataVolume',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      labels: input.labels,
      annotations: {
        // A disk is kept after its import (CDI may garbage-collect DataVolumes that completed).
        'cdi.kubevirt.io/storage.deleteAfterCompletion': 'false',
        [DISK_ANNOTATIONS.image]: input.image,
        [DISK_ANNOTATIONS.size]: input.settings.size,
        ...input.annotations,
      },
      ...(input.ownerReferences ? { ownerReferences: input.ownerReferences } : {}),
    },
    spec: {
      // A snapshot's copy, or the image pulled by the node's container runtime (its cache and pull secrets,
      // as for a containerDisk).
      source: input.snapshot
        ? { snapshot: { namespace: input.namespace, name: input.snapshot } }
        : { registry: { url: `docker://${input.image}`, pullMethod: 'node' } },
      storage: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: input.settings.size } },
        ...(input.settings.storageClass ? { storageClassName: input.settings.storageClass } : {}),
      },
    },
  };
}

/** When a disk was made (ms), for oldest-first choices. */
export const createdAt = (disk: DataVolume) => new Date(disk.metadata.creationTimestamp ?? 0).getTime();

/** Whether a disk holds `image` at `settings.size` (a spare made before a change of either does not fit). */
export function diskFits(disk: DataVolume, image: string, settings: DiskSettings): boolean {
  const annotations = disk.metadata.annotations ?? {};
  return (
    annotations[DISK_ANNOTATIONS.image] === image && annotations[DISK_ANNOTATIONS.size] === settings.size
  );
}

const QUANTITY_UNITS: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  P: 1e15,
  Pi: 2 ** 50,
};
/** Bytes of a Kubernetes quantity such as `4Gi` (0 for what is none). */
export function quantityBytes(quantity: string | undefined): number {
  const match = /^(\d+(?:\.\d+)?)(k|M|G|T|P|Ki|Mi|Gi|Ti|Pi)?$/.exec(quantity ?? '');
  return match ? Math.round(Number(match[1]) * QUANTITY_UNITS[match[2] ?? '']!) : 0;
}
