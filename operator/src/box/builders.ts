/**
 * What the Box controller makes of a Box: pure functions from the resource (and what the
 * controller looked up for it) to the children it applies with server-side apply. No I/O here,
 * so each child's spec is tested on its own (builders.test.ts).
 */
import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import type { components } from '../generated/kubevirt.ts';
import { API_VERSION, type Box } from './types.ts';

export type VirtualMachine = components['schemas']['v1.VirtualMachine'];

export const LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  box: 'exploitgrid.io/box',
  owner: 'exploitgrid.io/owner',
} as const;
export const MANAGER = 'exploit-grid-operator';

/** Labels every child of a box carries (and the VM's pod, through the template). */
export function boxLabels(box: Box): Record<string, string> {
  return { [LABELS.managedBy]: MANAGER, [LABELS.box]: box.metadata.name, [LABELS.owner]: box.spec.owner.id };
}

/** Children name the Box as their controller (kubectl shows it; a garbage collector, where there is one, follows it). */
export function ownerReferenceTo(box: Box): V1OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: 'Box',
    name: box.metadata.name,
    uid: box.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export const cloudInitSecretName = (box: Box) => `${box.metadata.name}-cloud-init`;

/**
 * The KubeVirt VirtualMachine of a box: its Debian container disk, its cloud-init from a Secret,
 * one interface on the arena network (Multus, the VM's only network: no pod network, nothing of
 * the cluster in reach), CPU and memory from the spec, and power as the run strategy.
 */
export function virtualMachineFor(box: Box, options: { arenaNetwork: string }): VirtualMachine {
  const { resources } = box.spec;
  const compute = { memory: `${resources.memoryMiB}Mi`, cpu: `${resources.cpuMillis}m` };
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: {
      name: box.metadata.name,
      namespace: box.metadata.namespace,
      labels: boxLabels(box),
      ownerReferences: [ownerReferenceTo(box)],
    },
    spec: {
      runStrategy: box.spec.power === 'On' ? 'Always' : 'Halted',
      template: {
        metadata: { labels: boxLabels(box) },
        spec: {
          hostname: box.spec.hostname,
          terminationGracePeriodSeconds: 30,
          domain: {
            cpu: { cores: Math.max(1, Math.ceil(resources.cpuMillis / 1000)) },
            resources: { requests: compute, limits: compute },
            devices: {
              disks: [
                { name: 'system', disk: { bus: 'virtio' } },
                { name: 'cloud-init', disk: { bus: 'virtio' } },
              ],
              interfaces: [{ name: 'arena', bridge: {} }],
            },
          },
          networks: [{ name: 'arena', multus: { networkName: options.arenaNetwork, default: true } }],
          volumes: [
            { name: 'system', containerDisk: { image: box.spec.image } },
            {
              name: 'cloud-init',
              cloudInitNoCloud: {
                secretRef: { name: cloudInitSecretName(box) },
                networkDataSecretRef: { name: cloudInitSecretName(box) },
              },
            },
          ],
        },
      },
    },
  };
}

/** What cloud-init needs that is not in the Box: its secrets and its place on the arena. */
export interface CloudInitInput {
  rootPassword: string;
  address: string;
  prefixLength: number;
  gateway: string;
}

/**
 * The box's cloud-init, in a Secret (it holds the root password): user data (hostname, root's
 * password and key, sshd allowing root) and network data (the arena address, static).
 * JSON is YAML, so `#cloud-config` followed by JSON is a valid cloud-config.
 */
export function cloudInitSecretFor(box: Box, input: CloudInitInput): V1Secret {
  const userData = {
    hostname: box.spec.hostname,
    manage_etc_hosts: true,
    disable_root: false,
    ssh_pwauth: true,
    chpasswd: { expire: false, users: [{ name: 'root', password: input.rootPassword, type: 'text' }] },
    ...(box.spec.sshPublicKey
      ? { users: [{ name: 'root', ssh_authorized_keys: [box.spec.sshPublicKey] }] }
      : {}),
    write_files: [
      {
        path: '/etc/ssh/sshd_config.d/exploit-grid.conf',
        permissions: '0644',
        content: 'PermitRootLogin yes\nPasswordAuthentication yes\n',
      },
    ],
    runcmd: [['systemctl', 'restart', 'ssh']],
  };
  const networkData = {
    version: 2,
    ethernets: {
      arena: {
        match: { name: 'e*' },
        addresses: [`${input.address}/${input.prefixLength}`],
        routes: [{ to: 'default', via: input.gateway }],
      },
    },
  };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: cloudInitSecretName(box),
      namespace: box.metadata.namespace,
      labels: boxLabels(box),
      ownerReferences: [ownerReferenceTo(box)],
    },
    type: 'Opaque',
    stringData: {
      userdata: `#cloud-config\n${JSON.stringify(userData, null, 2)}\n`,
      networkdata: `${JSON.stringify(networkData, null, 2)}\n`,
    },
  };
}
