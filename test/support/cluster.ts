import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import type { VirtualMachine } from '../../operator/src/box/builders.ts';
import type { OperatorOptions } from '../../operator/src/operator.ts';
import { installCrds, kubevirtCrds, projectCrds, startControlPlane, type ControlPlane } from './kube.ts';

/** A started control plane with the project's CRDs and KubeVirt's VM resource, clients, and a namespace. */
export interface TestCluster {
  plane: ControlPlane;
  config: k8s.KubeConfig;
  custom: k8s.CustomObjectsApi;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  networking: k8s.NetworkingV1Api;
  namespace: string;
  /** Writes a VM's status as KubeVirt would. */
  writeVmStatus(name: string, status: NonNullable<VirtualMachine['status']>): Promise<unknown>;
  readVm(name: string): Promise<VirtualMachine>;
}

export async function startTestCluster(namespace: string): Promise<TestCluster> {
  const plane = await startControlPlane();
  try {
    await installCrds(plane.kubeconfig, [...(await projectCrds()), ...kubevirtCrds]);
    const config = new k8s.KubeConfig();
    config.loadFromFile(plane.kubeconfig);
    const custom = config.makeApiClient(k8s.CustomObjectsApi);
    const core = config.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const vms = { group: 'kubevirt.io', version: 'v1', namespace, plural: 'virtualmachines' };
    return {
      plane,
      config,
      custom,
      core,
      apps: config.makeApiClient(k8s.AppsV1Api),
      networking: config.makeApiClient(k8s.NetworkingV1Api),
      namespace,
      writeVmStatus: (name, status) =>
        custom.patchNamespacedCustomObjectStatus(
          { ...vms, name, body: { status } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        ),
      readVm: async (name) => (await custom.getNamespacedCustomObject({ ...vms, name })) as VirtualMachine,
    };
  } catch (error) {
    await plane.stop();
    throw error;
  }
}

/** The operator's options for a test (quiet unless OPERATOR_TEST_LOG is set). */
export function testOperatorOptions(
  cluster: Pick<TestCluster, 'config' | 'namespace'>,
  overrides: Partial<OperatorOptions> = {},
): OperatorOptions {
  return {
    config: cluster.config,
    namespace: cluster.namespace,
    arenaNetwork: 'arena',
    arenaSubnet: '172.30.0.0/16',
    agentBundle: Buffer.from('// the agent\n'),
    vpn: {
      image: 'exploit-grid/openvpn:test',
      apiInternalUrl: 'http://eg-api-internal:8089',
      checkerBundle: Buffer.from('// the checker\n'),
    },
    http: { port: 0, host: '127.0.0.1' },
    leaderElection: { enabled: false, identity: 'test' },
    logger: pino({ level: process.env.OPERATOR_TEST_LOG ?? 'silent' }),
    ...overrides,
  };
}
