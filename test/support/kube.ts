import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as k8s from '@kubernetes/client-node';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freeLoopbackPort } from '../../api/src/net.ts';
import { repoRoot } from './platform.ts';

const run = promisify(execFile);

/**
 * A real Kubernetes control plane for tests, started the way controller-runtime's envtest
 * starts one: etcd on loopback, kube-apiserver with a certificate directory of its own,
 * service-account keys, RBAC, and a static token for an administrator (system:masters).
 * Nothing else runs (no scheduler, no controller manager, no garbage collector): a test writes
 * what those would. The binaries are built from Go modules by hack/ensure-kube-testbin.sh.
 */
export interface ControlPlane {
  /** https://127.0.0.1:<port> */
  server: string;
  /** The administrator's bearer token. */
  token: string;
  /** A kubeconfig file for the administrator (CA pinned to the API server's certificate). */
  kubeconfig: string;
  /** What etcd and the API server printed (for failures). */
  output(): string;
  stop(): Promise<void>;
  /** Stops the API server (etcd keeps the data), waits `downMs`, starts it again on the same port. */
  restartApiServer(downMs?: number): Promise<void>;
}

/** The directory with kube-apiserver and etcd (built once, cached). */
export async function kubeBinaries(): Promise<string> {
  const { stdout } = await run(path.join(repoRoot, 'hack/ensure-kube-testbin.sh'), {
    maxBuffer: 16 * 1024 * 1024,
    timeout: 40 * 60_000,
  });
  return stdout.trim().split('\n').at(-1)!;
}

export async function startControlPlane(options: { timeoutMs?: number } = {}): Promise<ControlPlane> {
  const bin = await kubeBinaries();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'eg-kube-'));
  const children: ChildProcess[] = [];
  let output = '';
  const started = (name: string, child: ChildProcess) => {
    children.push(child);
    child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-200_000)));
    child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-200_000)));
    child.once('exit', (code) => (output += `\n[${name} exited with ${code}]\n`));
  };
  const stop = async () => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      child.kill('SIGTERM');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if ((await Promise.race([exited, sleep(10_000).then(() => 'late')])) === 'late') child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    const [clientPort, peerPort, securePort] = [
      await freeLoopbackPort(),
      await freeLoopbackPort(),
      await freeLoopbackPort(),
    ];
    const etcdUrl = `http://127.0.0.1:${clientPort}`;
    started(
      'etcd',
      spawn(
        path.join(bin, 'etcd'),
        [
          `--data-dir=${path.join(dir, 'etcd')}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
          `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
          `--initial-cluster=default=http://127.0.0.1:${peerPort}`,
          '--unsafe-no-fsync',
          '--log-level=warn',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    );

    const token = randomBytes(24).toString('hex');
    await writeFile(path.join(dir, 'tokens.csv'), `${token},admin,admin-uid,"system:masters"\n`, {
      mode: 0o600,
    });
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFile(path.join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), {
      mode: 0o600,
    });
    await writeFile(path.join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    const certDir = path.join(dir, 'certs');
    const startApiServer = () =>
      spawn(
        path.join(bin, 'kube-apiserver'),
        [
          `--etcd-servers=${etcdUrl}`,
          `--cert-dir=${certDir}`,
          '--bind-address=127.0.0.1',
          '--advertise-address=127.0.0.1',
          `--secure-port=${securePort}`,
          `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
          '--authorization-mode=RBAC',
          `--service-account-key-file=${path.join(dir, 'sa.pub')}`,
          `--service-account-signing-key-file=${path.join(dir, 'sa.key')}`,
          '--service-account-issuer=https://kubernetes.default.svc',
          '--service-cluster-ip-range=10.0.0.0/24',
          '--disable-admission-plugins=ServiceAccount',
          '--allow-privileged=true',
          '--v=0',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
    let apiServer = startApiServer();
    started('kube-apiserver', apiServer);

    const server = `https://127.0.0.1:${securePort}`;
    const waitReady = async () => {
      const deadline = Date.now() + (options.timeoutMs ?? 120_000);
      for (;;) {
        if (children.some((c) => c.exitCode !== null)) throw new Error(`control plane ended:\n${output}`);
        const ready = await readyz(server, token);
        if (ready) break;
        if (Date.now() > deadline) throw new Error(`control plane not ready:\n${output}`);
        await sleep(250);
      }
    };
    await waitReady();
    /** Stops the API server (etcd keeps the data), waits `downMs`, starts it again on the same port. */
    const restartApiServer = async (downMs = 0) => {
      const exited = new Promise((resolve) => apiServer.once('exit', resolve));
      apiServer.kill('SIGTERM');
      await exited;
      children.splice(children.indexOf(apiServer), 1);
      await sleep(downMs);
      apiServer = startApiServer();
      started('kube-apiserver', apiServer);
      await waitReady();
    };
    const ca = await readFile(path.join(certDir, 'apiserver.crt'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'test', cluster: { server, 'certificate-authority-data': ca.toString('base64') } },
        ],
        users: [{ name: 'admin', user: { token } }],
        contexts: [{ name: 'test', context: { cluster: 'test', user: 'admin', namespace: 'default' } }],
        'current-context': 'test',
      }),
      { mode: 0o600 },
    );
    return { server, token, kubeconfig, output: () => output, stop, restartApiServer };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Whether the API server answers /readyz with 200 (its certificate is not known yet: not checked). */
function readyz(server: string, token: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = https.get(
      `${server}/readyz`,
      { headers: { authorization: `Bearer ${token}` }, rejectUnauthorized: false, timeout: 2000 },
      (response) => {
        response.resume();
        resolve(response.statusCode === 200);
      },
    );
    request.on('error', () => resolve(false));
    request.on('timeout', () => request.destroy());
  });
}

/** Creates CustomResourceDefinitions and waits until the API server serves them. */
export async function installCrds(kubeconfig: string, crds: k8s.V1CustomResourceDefinition[]): Promise<void> {
  const config = new k8s.KubeConfig();
  config.loadFromFile(kubeconfig);
  const extensions = config.makeApiClient(k8s.ApiextensionsV1Api);
  for (const crd of crds) {
    await extensions.createCustomResourceDefinition({ body: crd });
    for (let i = 0; ; i++) {
      const got = await extensions.readCustomResourceDefinition({ name: crd.metadata!.name! });
      if (got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (i > 100) throw new Error(`${crd.metadata!.name} is not served`);
      await sleep(100);
    }
  }
}

/** The project's CRDs (crds/*.yaml). */
export async function projectCrds(): Promise<k8s.V1CustomResourceDefinition[]> {
  const crds: k8s.V1CustomResourceDefinition[] = [];
  for (const file of ['box.yaml', 'vpnpool.yaml'])
    crds.push(
      ...(k8s.loadAllYaml(
        await readFile(path.join(repoRoot, 'crds', file), 'utf8'),
      ) as k8s.V1CustomResourceDefinition[]),
    );
  return crds;
}

/**
 * KubeVirt's VirtualMachine resource as far as the API server needs it to store VMs (KubeVirt
 * itself, which validates them with webhooks, does not run here): kubevirt.io/v1, namespaced,
 * with a status subresource; the test writes the status KubeVirt would.
 */
export const kubevirtVirtualMachineCrd = storedOnly(
  'kubevirt.io',
  'v1',
  'VirtualMachine',
  'virtualmachines',
  ['vm'],
);

/** A namespaced resource of someone else's stored as the API server needs it (schemaless, a status subresource). */
function storedOnly(
  group: string,
  version: string,
  kind: string,
  plural: string,
  shortNames?: string[],
): k8s.V1CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${plural}.${group}`,
      // A *.k8s.io group is Kubernetes' own: its CRDs carry the approval the real ones carry.
      ...(group.endsWith('.k8s.io')
        ? {
            annotations: {
              'api-approved.kubernetes.io': 'https://github.com/kubernetes-csi/external-snapshotter/pull/814',
            },
          }
        : {}),
    },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), ...(shortNames ? { shortNames } : {}) },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                status: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
              },
            },
          },
        },
      ],
    },
  };
}

/** KubeVirt's VirtualMachineInstance (the test writes the phase KubeVirt would). */
export const kubevirtInstanceCrd = storedOnly(
  'kubevirt.io',
  'v1',
  'VirtualMachineInstance',
  'virtualmachineinstances',
);
/** CDI's DataVolume (the boxes' disks; no CDI imports here, the test writes the status). */
export const cdiDataVolumeCrd = storedOnly('cdi.kubevirt.io', 'v1beta1', 'DataVolume', 'datavolumes');
/** CSI's VolumeSnapshot (the boxes' snapshots; no CSI driver here, the test writes the status). */
export const volumeSnapshotCrd = storedOnly(
  'snapshot.storage.k8s.io',
  'v1',
  'VolumeSnapshot',
  'volumesnapshots',
);
/** What the operator and the API need of KubeVirt, CDI and CSI snapshots on a real API server. */
export const kubevirtCrds = [
  kubevirtVirtualMachineCrd,
  kubevirtInstanceCrd,
  cdiDataVolumeCrd,
  volumeSnapshotCrd,
];

/** Multus's NetworkAttachmentDefinition resource (k8s.cni.cncf.io/v1), schemaless as in Multus. */
export const multusNetworkAttachmentDefinitionCrd: k8s.V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'network-attachment-definitions.k8s.cni.cncf.io' },
  spec: {
    group: 'k8s.cni.cncf.io',
    scope: 'Namespaced',
    names: {
      kind: 'NetworkAttachmentDefinition',
      plural: 'network-attachment-definitions',
      singular: 'network-attachment-definition',
      shortNames: ['net-attach-def'],
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
          },
        },
      },
    ],
  },
};

/**
 * A client configuration acting as a ServiceAccount (a token from the TokenRequest API, as the
 * kubelet gives a pod), and the same as a kubeconfig file (in the control plane's directory).
 */
export async function serviceAccountConfig(
  plane: ControlPlane,
  namespace: string,
  name: string,
): Promise<{ config: k8s.KubeConfig; kubeconfig: string }> {
  const admin = new k8s.KubeConfig();
  admin.loadFromFile(plane.kubeconfig);
  const { status } = await admin.makeApiClient(k8s.CoreV1Api).createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const config = new k8s.KubeConfig();
  config.loadFromOptions({
    clusters: admin.clusters,
    users: [{ name, token: status!.token }],
    contexts: [{ name, cluster: admin.getCurrentCluster()!.name, user: name, namespace }],
    currentContext: name,
  });
  const kubeconfig = path.join(path.dirname(plane.kubeconfig), `${namespace}-${name}.kubeconfig`);
  await writeFile(kubeconfig, config.exportConfig(), { mode: 0o600 });
  return { config, kubeconfig };
}
