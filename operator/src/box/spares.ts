/**
 * Prepared spare disks (docs/kubernetes.md, "Prepared spares"): what a spare is made of. A spare is a
 * DataVolume of the box image with a loadout drawn for it, installed by a VirtualMachine of its own that
 * boots it once with no network, runs the loadout's installer and powers off. A Box whose loadout and image
 * are a ready spare's takes that disk instead of importing one and installing at its first boot; its own
 * VM is new, so cloud-init sees a new instance (KubeVirt names it after the VM) and gives the box its
 * identity (hostname, root's password and key, the agent) without installing anything again.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import { LOADOUT_DIR, LOADOUT_INSTALLER, type BoxFile } from '../catalogue/bundle.ts';
import { CATALOGUE_ID } from '../catalogue/catalogue.ts';
import { LABELS, standardLabels, type VirtualMachine } from './builders.ts';
import { DISK_ANNOTATIONS, dataVolumeFor, type DataVolume, type DiskSettings } from './disk.ts';

/** On a spare's disk, VM and cloud-init Secret while it is one: `preparing`, then `ready`. A Box's disk has none. */
export const SPARE_STATE = 'exploitgrid.io/spare-state';
export type SpareState = 'preparing' | 'ready';

export const newSpareName = () => `spare-${randomBytes(5).toString('hex')}`;
export const spareCloudInitName = (spare: string) => `${spare}-cloud-init`;

/** What a spare's preparing VM runs on (it only installs the loadout). */
export const SPARE_RESOURCES = { memory: '512Mi', cpu: '500m' } as const;

function spareLabels(spare: string, state: SpareState): Record<string, string> {
  return { ...standardLabels(spare, 'spare'), [SPARE_STATE]: state };
}

/** A new spare's disk: the image, with the loadout it will be given recorded beside the image and size. */
export function spareDiskFor(input: {
  name: string;
  namespace: string;
  image: string;
  settings: DiskSettings;
  loadout: readonly string[];
  /** catalogueDigest() of the catalogue the loadout's files come from. */
  catalogue: string;
}): DataVolume {
  return dataVolumeFor({
    ...input,
    labels: spareLabels(input.name, 'preparing'),
    annotations: {
      [DISK_ANNOTATIONS.loadout]: JSON.stringify(input.loadout),
      [DISK_ANNOTATIONS.catalogue]: input.catalogue,
    },
  });
}

/** A digest of the files every entry installs (an operator with a changed catalogue replaces its spares). */
export function catalogueDigest(files: BoxFile[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.path}\0${file.mode}\0`).update(file.content).update('\0');
  return hash.digest('hex').slice(0, 32);
}

/**
 * The VM that prepares a spare: boots its disk once (`runStrategy: Once`: not again after it powers off),
 * with no network at all (no interface, not even the pod network: nobody reaches a spare, nor does it reach
 * anything) and root locked.
 */
export function spareVirtualMachineFor(spare: string, namespace: string): VirtualMachine {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name: spare, namespace, labels: spareLabels(spare, 'preparing') },
    spec: {
      runStrategy: 'Once',
      template: {
        metadata: { labels: { ...spareLabels(spare, 'preparing'), [LABELS.spare]: spare } },
        spec: {
          terminationGracePeriodSeconds: 30,
          domain: {
            cpu: { cores: 1 },
            resources: { requests: { ...SPARE_RESOURCES }, limits: { ...SPARE_RESOURCES } },
            devices: {
              autoattachPodInterface: false,
              disks: [
                { name: 'system', disk: { bus: 'virtio' } },
                { name: 'cloud-init', disk: { bus: 'virtio' } },
              ],
              interfaces: [],
            },
          },
          networks: [],
          volumes: [
            { name: 'system', dataVolume: { name: spare } },
            { name: 'cloud-init', cloudInitNoCloud: { secretRef: { name: spareCloudInitName(spare) } } },
          ],
        },
      },
    },
  };
}

/**
 * The preparing VM's cloud-init: the loadout's files, the installer run once, then power off. Nothing of
 * a box's identity: that comes with the Box's own VM.
 */
export function spareCloudInitFor(spare: string, namespace: string, loadout: BoxFile[]): V1Secret {
  const userData = {
    disable_root: true,
    ssh_pwauth: false,
    ...(loadout.length > 0
      ? {
          bootcmd: [
            ['cloud-init-per', 'once', 'exploit-grid-loadout-dir', 'install', '-d', '-m', '700', LOADOUT_DIR],
          ],
        }
      : {}),
    write_files: loadout.map((file) => ({
      path: file.path,
      permissions: `0${file.mode.toString(8)}`,
      encoding: 'b64',
      content: file.content.toString('base64'),
    })),
    runcmd: loadout.length > 0 ? [[LOADOUT_INSTALLER]] : [],
    // Off only once the installer went through to its end (it removes the directory last): a spare whose
    // install stopped halfway stays up, is not ready, and is removed when its preparation times out.
    power_state: {
      mode: 'poweroff',
      message: 'Exploit Grid: spare prepared',
      timeout: 120,
      condition: ['sh', '-c', `! test -e ${LOADOUT_DIR}`],
    },
  };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: spareCloudInitName(spare), namespace, labels: spareLabels(spare, 'preparing') },
    type: 'Opaque',
    stringData: { userdata: `#cloud-config\n${JSON.stringify(userData, null, 2)}\n` },
  };
}

/** A disk's spare state, or undefined for a Box's disk. */
export function spareStateOf(disk: DataVolume): SpareState | undefined {
  const state = disk.metadata.labels?.[SPARE_STATE];
  return state === 'preparing' || state === 'ready' ? state : undefined;
}

/** The loadout recorded on a spare's disk, or undefined when it is missing or not a list of catalogue ids. */
export function spareLoadoutOf(disk: DataVolume): string[] | undefined {
  try {
    const value: unknown = JSON.parse(disk.metadata.annotations?.[DISK_ANNOTATIONS.loadout] ?? '');
    if (Array.isArray(value) && value.every((id) => typeof id === 'string' && CATALOGUE_ID.test(id)))
      return value as string[];
  } catch {
    // not JSON: no loadout
  }
  return undefined;
}

/** The same entries, whatever their order. */
export function sameLoadout(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const sorted = (list: readonly string[]) => [...list].sort().join('\n');
  return sorted(a) === sorted(b);
}
