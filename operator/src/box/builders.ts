/**
 * What the Box controller makes of a Box: pure functions from the resource (and what the
 * controller looked up for it) to the children it applies with server-side apply. No I/O here,
 * so each child's spec is tested on its own (builders.test.ts).
 */
import type { V1NetworkPolicy, V1OwnerReference, V1Secret, V1Service } from '@kubernetes/client-node';
import { AGENT_FILES, AGENT_SERVICE, AGENT_UNIT, agentEnvironment } from '../agent/install.ts';
import { LOADOUT_DIR, LOADOUT_INSTALLER, type BoxFile } from '../catalogue/bundle.ts';
import type { components } from '../generated/kubevirt.ts';
import { API_VERSION, type Box, type BoxStatus, type Condition } from './types.ts';

export type VirtualMachine = components['schemas']['v1.VirtualMachine'];
export const VM_RESOURCE = {
  group: 'kubevirt.io',
  version: 'v1',
  plural: 'virtualmachines',
  kind: 'VirtualMachine',
} as const;

export const LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  /** The other labels Kubernetes recommends (`kubectl get -l app.kubernetes.io/part-of=exploit-grid`). */
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
  component: 'app.kubernetes.io/component',
  partOf: 'app.kubernetes.io/part-of',
  box: 'exploitgrid.io/box',
  /** On a spare's preparing VM and its pod: the spare's name. */
  spare: 'exploitgrid.io/spare',
  owner: 'exploitgrid.io/owner',
  /** On the Box (set by the API): the platform's id of the box. */
  boxId: 'exploitgrid.io/box-id',
} as const;

export const ANNOTATIONS = {
  /** The box's arena address, allocated once by the operator and kept for the Box's lifetime. */
  address: 'exploitgrid.io/address',
  /** The box's disk (a DataVolume), made for it or a spare it took, kept for the Box's lifetime. */
  disk: 'exploitgrid.io/disk',
  /** `true` when the disk came with the box's loadout installed (a prepared spare): cloud-init leaves it out. */
  diskPrepared: 'exploitgrid.io/disk-prepared',
} as const;

/** Held on a Box until the operator has removed its children (no garbage collector is assumed). */
export const FINALIZER = 'exploitgrid.io/box-children';
export const MANAGER = 'exploit-grid-operator';
/** `app.kubernetes.io/name` and `part-of` of everything the operator makes (the chart's own name too). */
export const APP = 'exploit-grid';

/**
 * The labels Kubernetes recommends, for what the operator makes for `instance` (a Box's or a VpnPool's name)
 * as `component`. The chart's selectors pick its own pods by its release and their component (api,
 * operator), which no child has.
 */
export function standardLabels(instance: string, component: string): Record<string, string> {
  return {
    [LABELS.name]: APP,
    [LABELS.instance]: instance,
    [LABELS.component]: component,
    [LABELS.partOf]: APP,
    [LABELS.managedBy]: MANAGER,
  };
}

/** Labels every child of a box carries (and the VM's pod, through the template). */
export function boxLabels(box: Box): Record<string, string> {
  return {
    ...standardLabels(box.metadata.name, 'box'),
    [LABELS.box]: box.metadata.name,
    [LABELS.owner]: box.spec.owner.id,
  };
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

/** A child's metadata: in the Box's namespace, labelled as the box's, the Box its controller. */
function childMetadata(box: Box, name: string) {
  return {
    name,
    namespace: box.metadata.namespace,
    labels: boxLabels(box),
    ownerReferences: [ownerReferenceTo(box)],
  };
}

export const cloudInitSecretName = (box: Box) => `${box.metadata.name}-cloud-init`;

/**
 * The KubeVirt VirtualMachine of a box: its disk (a DataVolume, disk.ts), its cloud-init from a Secret,
 * one interface on the arena network (Multus, the VM's only network: no pod network, nothing of
 * the cluster in reach), CPU and memory from the spec, and power as the run strategy.
 */
export function virtualMachineFor(box: Box, options: { arenaNetwork: string; disk: string }): VirtualMachine {
  const { resources } = box.spec;
  const compute = { memory: `${resources.memoryMiB}Mi`, cpu: `${resources.cpuMillis}m` };
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: childMetadata(box, box.metadata.name),
    spec: {
      runStrategy: box.spec.power === 'On' ? 'Always' : 'Halted',
      template: {
        metadata: { labels: boxLabels(box) },
        spec: {
          hostname: box.spec.hostname,
          terminationGracePeriodSeconds: 30,
          domain: {
            // The machine's identity is the Box's: cloud-init's instance (KubeVirt's NoCloud instance id follows
            // the firmware UUID) is the same at every start of this Box, and new for a new Box on a spare's disk.
            firmware: { uuid: box.metadata.uid },
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
            { name: 'system', dataVolume: { name: options.disk } },
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

/** What cloud-init needs that is not in the Box: its secrets, its agent and its place on the arena. */
export interface CloudInitInput {
  rootPassword: string;
  agentToken: string;
  /** The agent bundle (operator/dist/agent.cjs) and where the box reports. */
  agent: { bundle: Buffer; apiUrl: string };
  address: string;
  prefixLength: number;
  /** The VPN client subnets and the routers (VPN server pods) that hold them. */
  routes: {
    to: string;
    via: string;
  }[]; /** The files of the box's loadout (`loadoutFiles(box.spec.loadout)`), none for a box without one. */
  loadout: BoxFile[];
}

/**
 * The box's cloud-init, in a Secret (it holds the root password and the agent's token): user
 * data (hostname, root's password and key, sshd allowing root, the agent with its unit,
 * environment and secret, started at once) and network data (the arena address, static, and a
 * route per VPN client slice through the server holding it: no NAT, the box sees players' real
 * VPN addresses). JSON is YAML, so `#cloud-config` followed by JSON is a valid cloud-config.
 */
export function cloudInitSecretFor(box: Box, input: CloudInitInput): V1Secret {
  const { loadout } = input;
  const userData = {
    // The disk outlives the instance's first boot: the arena address and routes (a VPN pool resized) are
    // applied again at every boot; nothing else is (the owner's changes stay).
    updates: { network: { when: ['boot'] } },
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
      {
        path: AGENT_FILES.program,
        permissions: '0644',
        encoding: 'b64',
        content: input.agent.bundle.toString('base64'),
      },
      { path: AGENT_FILES.environment, permissions: '0600', content: agentEnvironment(input.agent.apiUrl) },
      { path: AGENT_FILES.token, permissions: '0600', content: `${input.agentToken}\n` },
      { path: AGENT_FILES.unit, permissions: '0644', content: AGENT_UNIT },
      // The loadout (docs/catalogue.md): each entry's files and the installer, run once below.
      ...loadout.map((file) => ({
        path: file.path,
        permissions: `0${file.mode.toString(8)}`,
        encoding: 'b64',
        content: file.content.toString('base64'),
      })),
    ],
    // Made root's alone before write_files fills it, once: its names say nothing to other users.
    ...(loadout.length > 0
      ? {
          bootcmd: [
            ['cloud-init-per', 'once', 'exploit-grid-loadout-dir', 'install', '-d', '-m', '700', LOADOUT_DIR],
          ],
        }
      : {}),
    runcmd: [
      ['systemctl', 'restart', 'ssh'],
      ['systemctl', 'daemon-reload'],
      ['systemctl', 'enable', '--now', AGENT_SERVICE],
      ...(loadout.length > 0 ? [[LOADOUT_INSTALLER]] : []),
    ],
  };
  const networkData = {
    version: 2,
    ethernets: {
      arena: {
        match: { name: 'e*' },
        addresses: [`${input.address}/${input.prefixLength}`],
        routes: input.routes,
      },
    },
  };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: childMetadata(box, cloudInitSecretName(box)),
    type: 'Opaque',
    stringData: {
      userdata: `#cloud-config\n${JSON.stringify(userData, null, 2)}\n`,
      networkdata: `${JSON.stringify(networkData, null, 2)}\n`,
    },
  };
}

/**
 * A headless Service naming the box (`<box>.<namespace>.svc` → its VM pod, whose primary
 * network is the arena), for platform engineers and tools; players reach boxes through the VPN.
 */
export function serviceFor(box: Box): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: childMetadata(box, box.metadata.name),
    spec: {
      clusterIP: 'None',
      selector: { [LABELS.box]: box.metadata.name },
      ports: [{ name: 'ssh', port: 22, targetPort: 22, protocol: 'TCP' }],
      publishNotReadyAddresses: true,
    },
  };
}

/** The attack windows still open at `now`, soonest end first. */
export function openWindows(box: Box, now: Date): Box['spec']['attackWindows'] {
  return (box.spec.attackWindows ?? [])
    .filter((window) => new Date(window.until).getTime() > now.getTime())
    .sort((a, b) => new Date(a.until).getTime() - new Date(b.until).getTime());
}

/**
 * The box's NetworkPolicy: nothing in or out by default; in, its owner's VPN addresses and each
 * open attack window's source; out, the agents' endpoint only. (On the arena bridge the VPN
 * pods' nftables do the same filtering, docs/kubernetes.md; this holds wherever the arena is a
 * network the cluster's policy engine enforces.) Rebuilt when a window ends.
 */
export function networkPolicyFor(
  box: Box,
  options: { now: Date; agentEndpoint: { cidr: string; port: number } },
): V1NetworkPolicy {
  const sources = [
    ...(box.spec.ownerAddresses ?? []),
    ...openWindows(box, options.now).map((window) => window.sourceAddress),
  ];
  const unique = [...new Set(sources)].sort();
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: childMetadata(box, box.metadata.name),
    spec: {
      podSelector: { matchLabels: { [LABELS.box]: box.metadata.name } },
      policyTypes: ['Ingress', 'Egress'],
      ingress:
        unique.length > 0
          ? [{ _from: unique.map((address) => ({ ipBlock: { cidr: `${address}/32` } })) }]
          : [],
      egress: [
        {
          to: [{ ipBlock: { cidr: options.agentEndpoint.cidr } }],
          ports: [{ protocol: 'TCP', port: options.agentEndpoint.port }],
        },
      ],
    },
  };
}

/** What the operator saw of the box's VM (KubeVirt's VirtualMachine status). */
export interface Observed {
  vm: VirtualMachine | undefined;
  address: string | undefined;
  /** Why the box cannot be made now (its Secret is missing, no address is free, ...). */
  problem?: { reason: string; message: string };
  /** A restore just done (or refused); the last one stays in the status otherwise. */
  restored?: NonNullable<BoxStatus['restored']>;
}

/** KubeVirt's printable statuses that mean the VM cannot run without someone's help. */
const CRASHED = new Set([
  'CrashLoopBackOff',
  'ErrorUnschedulable',
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrorPvcNotFound',
  'DataVolumeError',
  'Unknown',
]);

/**
 * The Box's status from what the operator saw: phase (the API maps it onto PROVISIONING /
 * RUNNING / STOPPED / CRASHED), address, reason and the Ready and Synced conditions. Earlier
 * conditions keep their transition time when their status did not change.
 */
export function boxStatusFor(box: Box, observed: Observed, now: Date): BoxStatus {
  const vmStatus = observed.vm?.status;
  const printable = vmStatus?.printableStatus;
  let phase: NonNullable<BoxStatus['phase']>;
  let reason: string | undefined;
  if (observed.problem) {
    phase = 'Pending';
    reason = observed.problem.message;
  } else if (box.spec.power === 'Off') {
    phase = vmStatus?.created ? 'Provisioning' : 'Stopped';
    reason = vmStatus?.created ? 'Stopping' : undefined;
  } else if (printable && CRASHED.has(printable)) {
    phase = 'Crashed';
    const failure = vmStatus?.conditions?.find((c) => c.status === 'False' && c.message)?.message;
    reason = failure ? `${printable}: ${failure}` : printable;
  } else if (vmStatus?.ready) {
    phase = 'Running';
  } else {
    phase = 'Provisioning';
    reason = printable ?? 'Creating the virtual machine';
  }
  const previous = box.status?.conditions ?? [];
  const condition = (type: string, status: Condition['status'], why: string, message: string): Condition => {
    const before = previous.find((c) => c.type === type);
    return {
      type,
      status,
      observedGeneration: box.metadata.generation,
      lastTransitionTime: before && before.status === status ? before.lastTransitionTime : now.toISOString(),
      reason: why,
      message,
    };
  };
  const restored = observed.restored ?? box.status?.restored;
  return {
    phase,
    ...(restored ? { restored } : {}),
    ...(phase === 'Running' && observed.address ? { ip: observed.address } : {}),
    ...(reason ? { reason } : {}),
    observedGeneration: box.metadata.generation,
    conditions: [
      condition(
        'Ready',
        phase === 'Running' ? 'True' : 'False',
        phase,
        reason ?? `The box is ${phase.toLowerCase()}.`,
      ),
      observed.problem
        ? condition('Synced', 'False', observed.problem.reason, observed.problem.message)
        : condition('Synced', 'True', 'Applied', 'The virtual machine and its children are applied.'),
    ],
  };
}
