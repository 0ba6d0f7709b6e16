import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import { pino } from 'pino';
import { KubernetesRuntime } from '../../api/src/boxes/kubernetes/runtime.ts';
import { BOX_PACKAGES } from '../../api/src/boxes/local/image.ts';
import { JOURNALD_CONF, SNOOPY_INI } from '../../operator/src/agent/install.ts';
import { configSchema, loadConfig } from '../../api/src/config.ts';
import { freeLoopbackPort } from '../../api/src/net.ts';
import type { Box } from '../../operator/src/box/types.ts';
import type { VpnPool } from '../../operator/src/vpnpool/types.ts';
import {
  installCrds,
  kubevirtCrds,
  multusNetworkAttachmentDefinitionCrd,
  projectCrds,
  serviceAccountConfig,
  startControlPlane,
  type ControlPlane,
} from '../support/kube.ts';
import { until } from '../support/until.ts';
import { needsRoot } from '../support/root.ts';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../..');
const chart = path.join(repoRoot, 'charts/exploit-grid');
const kindValues = path.join(repoRoot, 'hack/kind/values.yaml');
const NAMESPACE = 'exploit-grid';
const KUBE_VERSION = '1.34.4'; // the test API server's (hack/ensure-kube-testbin.sh)
const GROUP = { group: 'exploitgrid.io', version: 'v1alpha1', namespace: NAMESPACE };

type Rule = { group: string; resource: string; verbs: string[] };
/** What each component calls (operator/src, api/src/boxes/kubernetes), all in the release's namespace. */
const NEEDS: Record<'operator' | 'api', Rule[]> = {
  operator: [
    ...['boxes', 'vpnpools'].map((resource) => ({
      group: 'exploitgrid.io',
      resource,
      verbs: ['get', 'list', 'watch', 'patch', 'update'],
    })),
    ...['boxes/status', 'vpnpools/status', 'boxes/finalizers', 'vpnpools/finalizers'].map((resource) => ({
      group: 'exploitgrid.io',
      resource,
      verbs: ['get', 'patch', 'update'],
    })),
    {
      group: 'kubevirt.io',
      resource: 'virtualmachines',
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
    },
    { group: 'kubevirt.io', resource: 'virtualmachineinstances', verbs: ['get', 'list', 'watch'] },
    {
      group: 'cdi.kubevirt.io',
      resource: 'datavolumes',
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    },
    { group: 'snapshot.storage.k8s.io', resource: 'volumesnapshots', verbs: ['get'] },
    ...[
      ['', 'secrets'],
      ['', 'services'],
      ['', 'configmaps'],
      ['networking.k8s.io', 'networkpolicies'],
      ['apps', 'deployments'],
    ].map(([group, resource]) => ({
      group: group!,
      resource: resource!,
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
    })),
    { group: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'create', 'update'] },
    { group: '', resource: 'events', verbs: ['create', 'patch'] },
  ],
  api: [
    {
      group: 'exploitgrid.io',
      resource: 'boxes',
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
    },
    { group: 'exploitgrid.io', resource: 'vpnpools', verbs: ['get', 'list', 'watch'] },
    { group: 'exploitgrid.io', resource: 'vpnpools/status', verbs: ['get', 'patch'] },
    {
      group: '',
      resource: 'secrets',
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
    },
    { group: 'cdi.kubevirt.io', resource: 'datavolumes', verbs: ['list'] },
    { group: 'snapshot.storage.k8s.io', resource: 'volumesnapshots', verbs: ['get', 'create', 'delete'] },
  ],
};

/**
 * The Helm chart, with helm built from its Go module (hack/ensure-helm.sh): lint, render with
 * the default and the kind values, every rendered object accepted by the real API server in a
 * server-side dry run, and the operator (its own process, with its Deployment's environment) and
 * the API's adapter doing their work as the chart's service accounts with only the chart's Roles.
 * What cannot run here (images, KubeVirt, Multus) runs in CI on kind (.github/workflows/kind.yml).
 */
describe('The Helm chart', function () {
  this.timeout(120_000);
  let helm: string;
  let plane: ControlPlane;
  let admin: k8s.KubeConfig;
  let objects: k8s.KubernetesObjectApi;

  const helmTemplate = async (release: string, ...args: string[]) => {
    const { stdout } = await run(
      helm,
      ['template', release, chart, '--namespace', NAMESPACE, '--kube-version', KUBE_VERSION, ...args],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    return k8s.loadAllYaml(stdout).filter(Boolean) as k8s.KubernetesObject[];
  };
  const render = (...args: string[]) => helmTemplate('exploit-grid', ...args);
  const find = <T extends k8s.KubernetesObject>(
    rendered: k8s.KubernetesObject[],
    kind: string,
    name: string,
  ) => {
    const found = rendered.find((o) => o.kind === kind && o.metadata!.name === name);
    if (!found) throw new Error(`the chart rendered no ${kind} ${name}`);
    return found as T;
  };
  const container = (rendered: k8s.KubernetesObject[], name: string) =>
    find<k8s.V1Deployment>(rendered, 'Deployment', name).spec!.template.spec!.containers[0]!;
  /** A container's environment as the kubelet gives it (field references resolved, the Secret's keys). */
  const environment = (c: k8s.V1Container, pod: string, secret: Record<string, string> = {}) => {
    const env: Record<string, string> = { ...secret };
    for (const e of c.env ?? []) {
      const field = e.valueFrom?.fieldRef?.fieldPath;
      if (field === 'metadata.namespace') env[e.name] = NAMESPACE;
      else if (field === 'metadata.name') env[e.name] = pod;
      else if (e.valueFrom) throw new Error(`${e.name}: unexpected source ${JSON.stringify(e.valueFrom)}`);
      else env[e.name] = e.value ?? '';
    }
    return env;
  };

  before(async function () {
    this.timeout(45 * 60_000); // first runs build helm and the control plane
    helm = (await run(path.join(repoRoot, 'hack/ensure-helm.sh'), { timeout: 30 * 60_000 })).stdout.trim();
    plane = await startControlPlane();
    await installCrds(plane.kubeconfig, [
      ...(await projectCrds()),
      ...kubevirtCrds,
      multusNetworkAttachmentDefinitionCrd,
    ]);
    admin = new k8s.KubeConfig();
    admin.loadFromFile(plane.kubeconfig);
    objects = k8s.KubernetesObjectApi.makeApiClient(admin);
    await admin.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  });
  after(async () => {
    await plane?.stop();
  });

  it('passes helm lint --strict with the default and the kind values', async () => {
    for (const values of [[], ['--values', kindValues]]) {
      const { stdout } = await run(helm, ['lint', '--strict', chart, ...values]);
      expect(stdout).to.include('0 chart(s) failed');
    }
  });

  it('renders objects the API server accepts (server-side dry run)', async () => {
    for (const values of [
      [],
      [
        '--values',
        kindValues,
        '--set',
        'ingress.enabled=true,ingress.className=nginx,ingress.tlsSecretName=arena-tls,operator.agentApiUrl=http://172.30.0.10/',
      ],
    ]) {
      const rendered = await render(...values);
      expect(rendered.map((o) => o.kind)).to.include.members([
        'Deployment',
        'Service',
        'ServiceAccount',
        'Role',
        'RoleBinding',
        'VpnPool',
        'NetworkAttachmentDefinition',
        'NetworkPolicy',
        'DaemonSet',
        'ConfigMap',
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

  it('names objects after the release; the operator reaches the API’s internal Service by its name', async () => {
    const rendered = await helmTemplate('eg');
    const internal = find<k8s.V1Service>(rendered, 'Service', 'eg-api-internal');
    expect(internal.spec!.type).to.equal('ClusterIP');
    expect(internal.spec!.ports).to.deep.equal([{ name: 'internal', port: 8089, targetPort: 'internal' }]);
    expect(find<k8s.V1Service>(rendered, 'Service', 'eg-api').spec!.ports![0]).to.include({ port: 3000 });
    expect(find<k8s.V1Service>(rendered, 'Service', 'eg-operator-metrics').spec!.ports![0]).to.include({
      port: 8080,
    });
    const env = environment(container(rendered, 'eg-operator'), 'eg-operator-0');
    expect(env).to.include({
      API_INTERNAL_URL: `http://eg-api-internal.${NAMESPACE}.svc:8089`,
      WATCH_NAMESPACE: NAMESPACE,
      ARENA_NETWORK: 'arena',
      ARENA_SUBNET: '172.30.0.0/16',
      LEADER_ELECTION: 'true',
      HTTP_PORT: '8080',
      POD_NAME: 'eg-operator-0',
      OPENVPN_IMAGE: 'exploit-grid/openvpn:0.1.0',
    });
    expect(env).to.not.have.property('AGENT_API_URL');
    const nad = find<k8s.KubernetesObject & { spec: { config: string } }>(
      rendered,
      'NetworkAttachmentDefinition',
      'arena',
    );
    expect(JSON.parse(nad.spec.config)).to.deep.include({
      type: 'bridge',
      bridge: 'eg-arena',
      ipMasq: false,
    });
    expect(find(rendered, 'VpnPool', 'arena')).to.have.nested.property(
      'spec.udp.serviceType',
      'LoadBalancer',
    );

    const bare = await helmTemplate('eg', '--set', 'arena.createNetwork=false,networkPolicies.enabled=false');
    expect(bare.map((o) => o.kind)).to.not.include('NetworkAttachmentDefinition');
    expect(bare.map((o) => o.kind)).to.not.include('DaemonSet');
    expect(bare.map((o) => o.kind)).to.not.include('NetworkPolicy');
  });

  it('gives the API an environment its configuration accepts: the chart’s settings and the Secret’s', async () => {
    const defaults = environment(container(await render(), 'exploit-grid-api'), 'api-0', {
      DATABASE_URL: 'postgres://eg:secret@db.example.org:5432/exploitgrid',
      JWT_SECRET: 'j'.repeat(48),
      SMTP_URL: 'smtps://mail.example.org',
    });
    const known = Object.keys(configSchema.in.shape);
    expect(Object.keys(defaults).filter((name) => !known.includes(name))).to.deep.equal([]);
    const config = loadConfig(defaults);
    expect(config).to.include({
      orchestrator: 'kubernetes',
      port: 3000,
      publicUrl: 'https://arena.example.org',
    });
    expect(config.kubernetes).to.include({
      namespace: NAMESPACE,
      poolName: 'arena',
      boxImage: 'exploit-grid/box-debian:bookworm',
    });
    expect(config.boxes.agentPort).to.equal(8089);
    // Production mode needs SMTP: a Secret without it is refused, as the API would at start.
    expect(() => loadConfig({ ...defaults, SMTP_URL: '' })).to.throw(/SMTP_URL/);

    // The kind path: hack/kind-up.sh's Secret and the kind values.
    const kindUp = await readFile(path.join(repoRoot, 'hack/kind-up.sh'), 'utf8');
    const samples: Record<string, string> = {
      DATABASE_URL: 'postgres://exploitgrid:exploitgrid@postgres:5432/exploitgrid',
      JWT_SECRET: 'k'.repeat(64),
    };
    const secretKeys = [...kindUp.matchAll(/--from-literal=([A-Z_]+)=/g)].map((m) => m[1]!);
    expect(secretKeys).to.include.members(['DATABASE_URL', 'JWT_SECRET']);
    const kind = environment(
      container(await render('--values', kindValues), 'exploit-grid-api'),
      'api-0',
      Object.fromEntries(secretKeys.map((key) => [key, samples[key] ?? 'x'])),
    );
    expect(loadConfig(kind)).to.include({ orchestrator: 'kubernetes', mailFrom: 'arena@localhost' });
  });

  it('keeps credentials out of the plain environment and refuses to override the chart’s settings', async () => {
    for (const [name, kind] of [
      ['exploit-grid-api', 'Deployment'],
      ['exploit-grid-operator', 'Deployment'],
    ]) {
      const rendered = await render();
      const plain = (
        find<k8s.V1Deployment>(rendered, kind!, name!).spec!.template.spec!.containers[0]!.env ?? []
      )
        .filter((e) => e.value !== undefined)
        .map((e) => e.name);
      expect(plain.filter((e) => /SECRET|PASSWORD|TOKEN|DATABASE_URL|SMTP_URL/.test(e))).to.deep.equal([]);
    }
    const api = container(await render(), 'exploit-grid-api');
    expect(api.envFrom).to.deep.equal([{ secretRef: { name: 'exploit-grid-api' } }]);
    for (const [set, message] of [
      ['api.env.JWT_SECRET=inline', /credential: put it into the Secret/],
      ['api.env.DATABASE_URL=postgres://x', /credential/],
      ['api.env.ORCHESTRATOR=local', /set by the chart/],
    ] as const) {
      const failed = await render('--set', set).then(
        () => null,
        (error: Error) => error,
      );
      expect(failed?.message, set).to.match(message);
    }
  });

  it('runs the API and the operator as non-root with a read-only root filesystem and no capabilities', async () => {
    const rendered = await render();
    for (const name of ['exploit-grid-api', 'exploit-grid-operator']) {
      const pod = find<k8s.V1Deployment>(rendered, 'Deployment', name).spec!.template.spec!;
      expect(pod.serviceAccountName).to.equal(name);
      expect(pod.securityContext).to.include({ runAsNonRoot: true, runAsUser: 10001 });
      expect(pod.containers[0]!.securityContext).to.deep.include({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
    }
    expect(find<k8s.V1Deployment>(rendered, 'Deployment', 'exploit-grid-operator').spec!.replicas).to.equal(
      2,
    );
  });

  it('gives each component a Role in its namespace with what it calls, nothing cluster-wide', async () => {
    const rendered = await render();
    expect(rendered.filter((o) => /^Cluster/.test(o.kind!)).map((o) => o.kind)).to.deep.equal([]);
    const grants = (role: k8s.V1Role, { group, resource, verbs }: Rule) =>
      verbs.filter(
        (verb) =>
          !role.rules!.some(
            (r) => r.apiGroups!.includes(group) && r.resources!.includes(resource) && r.verbs.includes(verb),
          ),
      );
    for (const component of ['operator', 'api'] as const) {
      const role = find<k8s.V1Role>(rendered, 'Role', `exploit-grid-${component}`);
      for (const need of NEEDS[component])
        expect(grants(role, need), `${component}: ${need.resource}`).to.deep.equal([]);
      for (const rule of role.rules!) {
        expect(rule.verbs, component).to.not.include('*');
        expect(rule.resources, component).to.not.include('*');
      }
      const binding = find<k8s.V1RoleBinding>(rendered, 'RoleBinding', `exploit-grid-${component}`);
      expect(binding.roleRef).to.include({ kind: 'Role', name: `exploit-grid-${component}` });
      expect(binding.subjects).to.deep.equal([
        { kind: 'ServiceAccount', name: `exploit-grid-${component}`, namespace: NAMESPACE },
      ]);
    }
  });

  it('lets the operator (its own process) and the API’s adapter do their work with only their Roles', async function () {
    this.timeout(90_000);
    const rendered = await render();
    // What a cluster would hold after helm install: accounts, roles, bindings and the pool.
    for (const object of rendered.filter((o) =>
      ['ServiceAccount', 'Role', 'RoleBinding', 'VpnPool'].includes(o.kind!),
    )) {
      await objects.create({ ...object, metadata: { ...object.metadata, namespace: NAMESPACE } });
    }
    const custom = admin.makeApiClient(k8s.CustomObjectsApi);
    const core = admin.makeApiClient(k8s.CoreV1Api);
    const authorization = admin.makeApiClient(k8s.AuthorizationV1Api);
    const may = async (account: string, attributes: k8s.V1ResourceAttributes) =>
      (
        await authorization.createSubjectAccessReview({
          body: {
            spec: {
              user: `system:serviceaccount:${NAMESPACE}:${account}`,
              groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACE}`],
              resourceAttributes: attributes,
            },
          },
        })
      ).status!.allowed;

    // The authorizer's view: nothing outside the namespace, nothing of the other's.
    expect(
      await may('exploit-grid-operator', { namespace: NAMESPACE, resource: 'secrets', verb: 'create' }),
    ).to.equal(true);
    expect(
      await may('exploit-grid-operator', { namespace: 'default', resource: 'secrets', verb: 'get' }),
    ).to.equal(false);
    expect(await may('exploit-grid-operator', { resource: 'secrets', verb: 'list' })).to.equal(false); // all namespaces
    expect(
      await may('exploit-grid-api', { resource: 'secrets', verb: 'create', namespace: 'kube-system' }),
    ).to.equal(false);
    expect(
      await may('exploit-grid-operator', {
        namespace: NAMESPACE,
        group: 'exploitgrid.io',
        resource: 'boxes',
        verb: 'create',
      }),
    ).to.equal(false); // boxes are the API's
    expect(
      await may('exploit-grid-api', {
        namespace: NAMESPACE,
        group: 'kubevirt.io',
        resource: 'virtualmachines',
        verb: 'create',
      }),
    ).to.equal(false);
    expect(
      await may('exploit-grid-api', {
        namespace: NAMESPACE,
        group: 'apps',
        resource: 'deployments',
        verb: 'list',
      }),
    ).to.equal(false);

    // The operator as its Deployment runs it, with the service account's token.
    const operatorAccount = await serviceAccountConfig(plane, NAMESPACE, 'exploit-grid-operator');
    const httpPort = await freeLoopbackPort();
    const podName = 'exploit-grid-operator-7d9f-abcde';
    let output = '';
    const operator: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'operator/dist/main.js')], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH,
        ...environment(container(rendered, 'exploit-grid-operator'), podName),
        KUBECONFIG: operatorAccount.kubeconfig,
        HTTP_PORT: String(httpPort), // 8080 in the pod
        HTTP_HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    operator.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    operator.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const apiEnv = environment(container(rendered, 'exploit-grid-api'), 'api-0');
    const runtime = new KubernetesRuntime({
      config: (await serviceAccountConfig(plane, NAMESPACE, 'exploit-grid-api')).config,
      namespace: apiEnv.KUBE_NAMESPACE!,
      poolName: apiEnv.VPN_POOL_NAME!,
      boxImage: apiEnv.BOX_CONTAINER_DISK!,
      agentPort: 0,
      agentHost: '127.0.0.1',
      logger: pino({ level: process.env.OPERATOR_TEST_LOG ?? 'silent' }),
    });
    let stopAgents: (() => Promise<void>) | undefined;
    try {
      await until(
        'the operator ready and leading',
        async () => {
          const response = await fetch(`http://127.0.0.1:${httpPort}/readyz`);
          return response.ok && (await response.text()).includes('lead');
        },
        20_000,
      );
      const lease = await admin
        .makeApiClient(k8s.CoordinationV1Api)
        .readNamespacedLease({ name: 'exploit-grid-operator', namespace: NAMESPACE });
      expect(lease.spec!.holderIdentity).to.equal(podName);

      // The pool: the operator makes its PKI; the API reads it and becomes available.
      await runtime.start();
      runtime.setVpnAuthorizer(async () => true);
      stopAgents = await runtime.serveAgents((_req, res) => res.writeHead(204).end());
      await until('the API’s box runtime available', async () => runtime.status().available, 20_000);

      // A box: the API writes it and its Secret, the operator its VM and the rest, and its status.
      const owner = '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11';
      const id = '0c7d5f4e-1111-4222-8333-444455556666';
      const spec = {
        id,
        slot: 1,
        hostname: 'neo-box',
        ownerId: owner,
        power: true,
        rootPassword: 'red pill',
        sshPublicKey: null,
        agentToken: 'agent secret',
        loadout: [],
        resources: { memoryMiB: 512, cpuMillis: 500, pids: 512 },
      };
      await runtime.applyBox(spec);
      const name = `box-${id}`;
      const vms = { group: 'kubevirt.io', version: 'v1', namespace: NAMESPACE, plural: 'virtualmachines' };
      await until('the VM', () => custom.getNamespacedCustomObject({ ...vms, name }));
      await until('the cloud-init Secret', () =>
        core.readNamespacedSecret({ name: `${name}-cloud-init`, namespace: NAMESPACE }),
      );
      await custom.patchNamespacedCustomObjectStatus(
        { ...vms, name, body: { status: { created: true, ready: true, printableStatus: 'Running' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      const running = await until('RUNNING through the API’s watch', async () => {
        const observed = await runtime.applyBox(spec);
        return observed.phase === 'RUNNING' && observed;
      });
      expect(running.ip).to.match(/^172\.30\.1\.\d+$/);

      // The VPN servers' hook: the API writes the owner's address into the Box, clients into the pool.
      const pki = await core.readNamespacedSecret({ name: 'arena-pki', namespace: NAMESPACE });
      const token = Buffer.from(pki.data!['hook-token']!, 'base64').toString();
      const connect = await fetch(`http://127.0.0.1:${runtime.internalPort}/internal/vpn/connect`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          protocol: 'udp',
          commonName: owner,
          vpnAddress: '10.8.0.6',
          server: 'arena-udp-0',
        }),
      });
      expect(await connect.json()).to.deep.equal({ allow: true });
      await until('the clients in the pool’s status', async () => {
        const pool = (await custom.getNamespacedCustomObject({
          ...GROUP,
          plural: 'vpnpools',
          name: 'arena',
        })) as VpnPool;
        return pool.status?.udp?.clients === 1;
      });
      const box = (await custom.getNamespacedCustomObject({ ...GROUP, plural: 'boxes', name })) as Box;
      expect(box.spec.ownerAddresses).to.deep.equal(['10.8.0.6']);

      // Revocation: the API re-signs the CRL into the operator's PKI Secret.
      const identity = await runtime.issueVpnIdentity(owner);
      await runtime.setRevoked([
        { userId: owner, serialNumber: identity.serialNumber, revokedAt: new Date() },
      ]);
      const crl = await core.readNamespacedSecret({ name: 'arena-pki', namespace: NAMESPACE });
      expect(crl.data!['crl.pem']).to.not.equal(pki.data!['crl.pem']);

      // Deletion: the operator removes the children, then lets the Box go; the same for the pool.
      await runtime.deleteBox(id);
      await until(
        'the Box gone',
        () =>
          custom.getNamespacedCustomObject({ ...GROUP, plural: 'boxes', name }).then(
            () => false,
            () => true,
          ),
        20_000,
      );
      await custom.deleteNamespacedCustomObject({ ...GROUP, plural: 'vpnpools', name: 'arena' });
      await until(
        'the pool gone',
        () =>
          custom.getNamespacedCustomObject({ ...GROUP, plural: 'vpnpools', name: 'arena' }).then(
            () => false,
            () => true,
          ),
        20_000,
      );
      const metrics = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
      expect(metrics).to.match(/result="success"/);
      expect(output).to.not.match(/forbidden/i);
    } catch (error) {
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}\noperator said:\n${output.slice(-4000)}`,
        {
          cause: error,
        },
      );
    } finally {
      await stopAgents?.();
      await runtime.close();
      const exited = once(operator, 'exit');
      operator.kill('SIGTERM');
      await exited;
    }
  });

  it('keeps boxes apart on the arena bridge: each reaches the routers, not another box (netns, needs root)', async function () {
    needsRoot(this, 'the arena bridge test');
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
      for (const [index, address] of Object.values(hosts).entries()) {
        const ns = names[index]!;
        await sh(
          `ip netns add ${ns} && ip link add v${index}${suffix} netns ${node} type veth peer name arena0 netns ${ns} && ` +
            `ip -n ${node} link set v${index}${suffix} master eg-arena up && ` +
            `ip -n ${ns} addr add ${address}/16 dev arena0 && ip -n ${ns} link set arena0 up`,
        );
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

  it('carries the project’s CRDs unchanged, and the box image the local runtime’s packages, units and logging', async () => {
    const files = (await readdir(path.join(repoRoot, 'crds'))).filter((f) => f.endsWith('.yaml')).sort();
    expect(files).to.not.deep.equal([]);
    expect(
      (await readdir(path.join(chart, 'crds'))).sort(),
      'make chart-crds copies crds/ into the chart',
    ).to.deep.equal(files);
    for (const file of files) {
      expect(
        await readFile(path.join(chart, 'crds', file), 'utf8'),
        `charts/exploit-grid/crds/${file} differs from crds/${file}: make chart-crds`,
      ).to.equal(await readFile(path.join(repoRoot, 'crds', file), 'utf8'));
    }

    const box = path.join(repoRoot, 'images/box-debian');
    expect(await readFile(path.join(box, 'snoopy.ini'), 'utf8')).to.equal(SNOOPY_INI);
    expect(await readFile(path.join(box, 'journald.conf'), 'utf8')).to.equal(JOURNALD_CONF);
    const dockerfile = await readFile(path.join(box, 'Dockerfile'), 'utf8');
    const installed = /--install (\S+)/.exec(dockerfile)![1]!.split(',');
    // The VMs' agent needs snoopy, its exec hook (the local runtime's referee watches from the host).
    expect(installed).to.include.members([...BOX_PACKAGES, 'snoopy', 'cloud-init']);
    // image.ts keeps its masked units private: read them from its source.
    const imageTs = await readFile(path.join(repoRoot, 'api/src/boxes/local/image.ts'), 'utf8');
    const maskedList = /const MASKED_UNITS = \[([^\]]*)\]/.exec(imageTs)![1]!;
    const masked = [...maskedList.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    expect(masked.length).to.be.greaterThan(3);
    const maskedHere = /for unit in ([^;]+); do systemctl mask/.exec(dockerfile)![1]!.trim().split(/\s+/);
    expect(maskedHere.sort()).to.deep.equal(masked.sort());
    const disabledList = /const DISABLED_UNITS = \[([^\]]*)\]/.exec(imageTs)![1]!;
    const disabled = [...disabledList.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    expect(disabled.length).to.be.greaterThan(0);
    const disabledHere = /--run-command 'systemctl disable ([^']+)'/
      .exec(dockerfile)![1]!
      .trim()
      .split(/\s+/);
    expect(disabledHere.sort()).to.deep.equal(disabled.sort());
    expect(dockerfile)
      .to.include('/etc/ld.so.preload')
      .and.include('/disk/')
      .and.match(/^FROM scratch$/m);
  });
});
