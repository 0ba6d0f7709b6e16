import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import { JOURNALD_CONF, SNOOPY_INI } from '../../api/src/boxes/local/image.ts';
import {
  installCrds,
  kubevirtVirtualMachineCrd,
  multusNetworkAttachmentDefinitionCrd,
  projectCrds,
  startControlPlane,
  type ControlPlane,
} from '../support/kube.ts';
import { until } from '../support/until.ts';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../..');
const chart = path.join(repoRoot, 'charts/exploit-grid');
const NAMESPACE = 'exploit-grid';
const KUBE_VERSION = '1.34.4'; // the test API server's (hack/ensure-kube-testbin.sh)

/**
 * The Helm chart, with helm built from its Go module (hack/ensure-helm.sh): lint, render with
 * the default and the kind values, and every rendered object accepted by the real API server in
 * a server-side dry run (with the CRDs of the objects it makes installed). What cannot run here
 * (images, KubeVirt, Multus) runs in CI on kind (.github/workflows/kind.yml).
 */
describe('The Helm chart', function () {
  this.timeout(120_000);
  let helm: string;
  let plane: ControlPlane;
  let objects: k8s.KubernetesObjectApi;

  const render = async (...args: string[]) => {
    const { stdout } = await run(
      helm,
      ['template', 'exploit-grid', chart, '--namespace', NAMESPACE, '--kube-version', KUBE_VERSION, ...args],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    return k8s.loadAllYaml(stdout).filter(Boolean) as k8s.KubernetesObject[];
  };

  before(async function () {
    this.timeout(45 * 60_000); // first runs build helm and the control plane
    helm = (await run(path.join(repoRoot, 'hack/ensure-helm.sh'), { timeout: 30 * 60_000 })).stdout.trim();
    plane = await startControlPlane();
    await installCrds(plane.kubeconfig, [
      ...(await projectCrds()),
      kubevirtVirtualMachineCrd,
      multusNetworkAttachmentDefinitionCrd,
    ]);
    const config = new k8s.KubeConfig();
    config.loadFromFile(plane.kubeconfig);
    objects = k8s.KubernetesObjectApi.makeApiClient(config);
    await config.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  });
  after(async () => {
    await plane?.stop();
  });

  it('passes helm lint --strict with the default and the kind values', async () => {
    for (const values of [[], ['--values', path.join(repoRoot, 'hack/kind/values.yaml')]]) {
      const { stdout } = await run(helm, ['lint', '--strict', chart, ...values]);
      expect(stdout).to.include('0 chart(s) failed');
    }
  });

  it('renders objects the API server accepts (server-side dry run)', async () => {
    for (const values of [
      [],
      ['--values', path.join(repoRoot, 'hack/kind/values.yaml'), '--set', 'ingress.enabled=true'],
    ]) {
      const rendered = await render(...values);
      const kinds = rendered.map((o) => o.kind);
      expect(kinds).to.include.members([
        'Deployment',
        'Service',
        'ServiceAccount',
        'Role',
        'RoleBinding',
        'VpnPool',
        'NetworkAttachmentDefinition',
        'NetworkPolicy',
      ]);
      for (const object of rendered) {
        object.metadata = { ...object.metadata, namespace: NAMESPACE };
        try {
          await objects.create(object, undefined, 'All');
        } catch (error) {
          throw new Error(
            `${object.kind} ${object.metadata.name} was refused: ${String(error).slice(0, 600)}`,
            { cause: error },
          );
        }
      }
    }
  });

  it('gives the operator and the API least-privilege roles in their namespace, nothing cluster-wide', async () => {
    const rendered = await render();
    expect(rendered.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding')).to.deep.equal(
      [],
    );
    const role = (name: string) =>
      rendered.find((o) => o.kind === 'Role' && o.metadata!.name === name) as k8s.V1Role;
    const operator = role('exploit-grid-operator');
    const can = (r: k8s.V1Role, group: string, resource: string, verb: string) =>
      r.rules!.some(
        (rule) =>
          rule.apiGroups!.includes(group) && rule.resources!.includes(resource) && rule.verbs.includes(verb),
      );
    expect(can(operator, 'kubevirt.io', 'virtualmachines', 'create')).to.equal(true);
    expect(can(operator, 'coordination.k8s.io', 'leases', 'update')).to.equal(true);
    expect(can(operator, 'exploitgrid.io', 'boxes', 'create')).to.equal(false); // boxes are the API's
    expect(can(operator, 'exploitgrid.io', 'boxes', 'delete')).to.equal(false);
    const api = role('exploit-grid-api');
    expect(can(api, 'exploitgrid.io', 'boxes', 'create')).to.equal(true);
    expect(can(api, 'kubevirt.io', 'virtualmachines', 'create')).to.equal(false);
    expect(can(api, 'apps', 'deployments', 'create')).to.equal(false);
    // Every role is bound to its own service account, which its Deployment runs as.
    for (const name of ['exploit-grid-operator', 'exploit-grid-api']) {
      const binding = rendered.find(
        (o) => o.kind === 'RoleBinding' && o.metadata!.name === name,
      ) as k8s.V1RoleBinding;
      expect(binding.subjects![0]).to.include({ kind: 'ServiceAccount', name });
      const deployment = rendered.find(
        (o) => o.kind === 'Deployment' && o.metadata!.name === name,
      ) as k8s.V1Deployment;
      expect(deployment.spec!.template.spec!.serviceAccountName).to.equal(name);
      expect(deployment.spec!.template.spec!.securityContext!.runAsNonRoot).to.equal(true);
    }
  });

  it('keeps boxes apart on the arena bridge: each reaches the routers, not another box (netns, needs root)', async function () {
    if (process.getuid?.() !== 0) this.skip();
    const rendered = await render('--show-only', 'templates/arena-isolation.yaml');
    const script = (rendered.find((o) => o.kind === 'ConfigMap') as k8s.V1ConfigMap).data!['isolate.sh']!;
    const env = (rendered.find((o) => o.kind === 'DaemonSet') as k8s.V1DaemonSet).spec!.template.spec!
      .containers[0]!.env!;
    const suffix = Math.random().toString(16).slice(2, 6);
    const node = `egn${suffix}`;
    const hosts = { router: '172.30.0.10', box1: '172.30.1.1', box2: '172.30.1.2' };
    const sh = (command: string) => run('sh', ['-c', command]);
    const names = Object.keys(hosts).map((h) => `eg${h}${suffix}`);
    let isolation: ReturnType<typeof spawnScript> | undefined;
    const spawnScript = () =>
      spawn('ip', ['netns', 'exec', node, 'sh', '-c', script], {
        env: { ...process.env, ...Object.fromEntries(env.map((e) => [e.name, e.value!])) },
        stdio: 'ignore',
      });
    try {
      await sh(
        `ip netns add ${node} && ip -n ${node} link add eg-arena type bridge && ip -n ${node} link set eg-arena up`,
      );
      for (const [index, [host, address]] of Object.entries(hosts).entries()) {
        const ns = names[index]!;
        await sh(
          `ip netns add ${ns} && ip link add v${index}${suffix} netns ${node} type veth peer name arena0 netns ${ns} && ` +
            `ip -n ${node} link set v${index}${suffix} master eg-arena up && ` +
            `ip -n ${ns} addr add ${address}/16 dev arena0 && ip -n ${ns} link set arena0 up`,
        );
        void host;
      }
      const ping = (from: number, to: string) =>
        sh(`ip netns exec ${names[from]} ping -c 1 -W 1 ${to}`).then(
          () => true,
          () => false,
        );
      expect(await ping(1, hosts.box2)).to.equal(true); // no isolation yet: the test can see the difference
      isolation = spawnScript();
      await until('the bridge table', () =>
        sh(`ip netns exec ${node} nft list table bridge exploit-grid-arena`),
      );
      expect(await ping(1, hosts.router)).to.equal(true);
      expect(await ping(2, hosts.router)).to.equal(true);
      expect(await ping(0, hosts.box2)).to.equal(true);
      expect(await ping(1, hosts.box2)).to.equal(false);
      expect(await ping(2, hosts.box1)).to.equal(false);
    } finally {
      isolation?.kill();
      for (const ns of [...names, node]) await sh(`ip netns delete ${ns}`).catch(() => {});
    }
  });

  it('carries the project’s CRDs unchanged, and the box image the local runtime’s snoopy and journald settings', async () => {
    for (const file of ['box.yaml', 'vpnpool.yaml']) {
      expect(
        await readFile(path.join(chart, 'crds', file), 'utf8'),
        `charts/exploit-grid/crds/${file}: copy crds/${file} over it`,
      ).to.equal(await readFile(path.join(repoRoot, 'crds', file), 'utf8'));
    }
    expect(await readFile(path.join(repoRoot, 'images/box-debian/snoopy.ini'), 'utf8')).to.equal(SNOOPY_INI);
    expect(await readFile(path.join(repoRoot, 'images/box-debian/journald.conf'), 'utf8')).to.equal(
      JOURNALD_CONF,
    );
  });
});
