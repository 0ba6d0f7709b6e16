import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import { Operator } from '../../operator/src/operator.ts';
import type { VpnPool } from '../../operator/src/vpnpool/types.ts';
import { startTestCluster, testOperatorOptions, type TestCluster } from '../support/cluster.ts';
import { until } from '../support/until.ts';

const run = promisify(execFile);
const NAMESPACE = 'vpn';
const POOLS = { group: 'exploitgrid.io', version: 'v1alpha1', namespace: NAMESPACE, plural: 'vpnpools' };

/**
 * The VpnPool controller against a real API server: the servers' Deployments, Services and
 * ConfigMaps, the PKI Secret with a CA OpenSSL accepts, capacity from the clients the API
 * reports, the access ConfigMap from the Boxes, and removal on delete. The test writes the
 * Deployments' status as the Deployment controller would.
 */
describe('VpnPool controller on a real API server', function () {
  this.timeout(120_000);
  let cluster: TestCluster;
  let custom: k8s.CustomObjectsApi;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  let operator: Operator;

  before(async function () {
    this.timeout(45 * 60_000);
    cluster = await startTestCluster(NAMESPACE);
    ({ custom, core, apps } = cluster);
    operator = new Operator(testOperatorOptions(cluster));
    await operator.start();
  });
  after(async () => {
    await operator?.stop();
    await cluster?.plane.stop();
  });

  const readPool = async (name: string) =>
    (await custom.getNamespacedCustomObject({ ...POOLS, name })) as VpnPool;
  const createPool = (name: string, spec: object) =>
    custom.createNamespacedCustomObject({
      ...POOLS,
      body: { apiVersion: 'exploitgrid.io/v1alpha1', kind: 'VpnPool', metadata: { name }, spec },
    });
  const markReady = (name: string) =>
    apps.patchNamespacedDeploymentStatus(
      {
        name,
        namespace: NAMESPACE,
        body: { status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  /** What the API does with its hooks' sessions: the clients per protocol, in the pool's status. */
  const reportClients = (name: string, udp: number, tcp: number) =>
    custom.patchNamespacedCustomObjectStatus(
      {
        ...POOLS,
        name,
        body: {
          apiVersion: 'exploitgrid.io/v1alpha1',
          kind: 'VpnPool',
          metadata: { name },
          status: { udp: { clients: udp }, tcp: { clients: tcp } },
        },
        fieldManager: 'exploit-grid-api',
        force: true,
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
    );

  it('makes a server per replica with its slice and router address, the Services and the ConfigMaps', async () => {
    await createPool('arena', {
      udp: { replicas: 2, clientSubnet: '10.8.0.0/16', maxClients: 10, serviceType: 'NodePort' },
      tcp: { replicas: 1, port: 443, clientSubnet: '10.9.0.0/16', maxClients: 10 },
    });
    const names = ['arena-udp-0', 'arena-udp-1', 'arena-tcp-0'];
    const deployments = await until('the servers', async () => {
      const list = await apps.listNamespacedDeployment({ namespace: NAMESPACE });
      return list.items.length === 3 && list.items;
    });
    expect(deployments.map((d) => d.metadata!.name).sort()).to.deep.equal([...names].sort());
    const udp1 = deployments.find((d) => d.metadata!.name === 'arena-udp-1')!;
    const env = Object.fromEntries(
      udp1.spec!.template.spec!.containers[0]!.env!.map((e) => [e.name, e.value]),
    );
    expect(env).to.include({
      CLIENT_SUBNET: '10.8.128.0/17',
      ROUTER_ADDRESS: '172.30.0.11',
      PROTOCOL: 'udp',
    });
    const networks = JSON.parse(
      udp1.spec!.template.metadata!.annotations!['k8s.v1.cni.cncf.io/networks']!,
    ) as {
      ips: string[];
    }[];
    expect(networks[0]!.ips).to.deep.equal(['172.30.0.11/16']);
    expect(udp1.metadata!.ownerReferences![0]).to.include({
      kind: 'VpnPool',
      name: 'arena',
      controller: true,
    });

    const udp = await core.readNamespacedService({ name: 'arena-udp', namespace: NAMESPACE });
    expect(udp.spec!.type).to.equal('NodePort');
    expect(udp.spec!.ports![0]).to.include({ port: 1194, protocol: 'UDP' });
    const tcp = await core.readNamespacedService({ name: 'arena-tcp', namespace: NAMESPACE });
    expect(tcp.spec!.ports![0]).to.include({ port: 443, protocol: 'TCP' });

    const server = await core.readNamespacedConfigMap({ name: 'arena-server', namespace: NAMESPACE });
    expect(server.data!['arena-udp-1.conf']).to.include('server 10.8.128.0 255.255.128.0');
    expect(server.data!['arena-tcp-0.conf']).to.include('port 443').and.include('proto tcp4-server');
    expect(server.data).to.have.property('client-connect.sh');
    const access = await core.readNamespacedConfigMap({ name: 'arena-access', namespace: NAMESPACE });
    expect(JSON.parse(access.data!['access.json']!)).to.deep.equal({ owners: {}, windows: [] });
  });

  it('makes the PKI Secret once, with a CA that signed the server certificate and an empty CRL', async () => {
    const secret = await until('the PKI', () =>
      core.readNamespacedSecret({ name: 'arena-pki', namespace: NAMESPACE }),
    );
    const value = (key: string) => Buffer.from(secret.data![key]!, 'base64').toString();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'eg-pki-'));
    try {
      for (const key of ['ca.crt', 'server.crt', 'crl.pem']) await writeFile(path.join(dir, key), value(key));
      const verified = await run('openssl', [
        'verify',
        '-CAfile',
        path.join(dir, 'ca.crt'),
        path.join(dir, 'server.crt'),
      ]);
      expect(verified.stdout).to.include(': OK');
      const crl = await run('openssl', [
        'crl',
        '-in',
        path.join(dir, 'crl.pem'),
        '-CAfile',
        path.join(dir, 'ca.crt'),
        '-noout',
        '-text',
      ]);
      expect(crl.stdout).to.include('No Revoked Certificates');
      expect(crl.stderr + crl.stdout).to.not.include('failure');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(value('tls-crypt.key')).to.include('BEGIN OpenVPN Static key V1');
    expect(value('hook-token')).to.have.length.greaterThan(30);
    expect(value('ca.key')).to.include('PRIVATE KEY');
  });

  it('reports capacity from ready servers and the clients the API reports', async () => {
    let pool = await until('a status', async () => {
      const p = await readPool('arena');
      return p.status?.capacity && p;
    });
    expect(pool.status!.capacity).to.equal('FULL'); // no server ready yet
    for (const name of ['arena-udp-0', 'arena-udp-1', 'arena-tcp-0']) await markReady(name);
    pool = await until('every server ready', async () => {
      const p = await readPool('arena');
      return p.status?.udp?.readyReplicas === 2 && p.status.tcp?.readyReplicas === 1 && p;
    });
    expect(pool.status!.capacity).to.equal('AVAILABLE');
    expect(pool.status!.udp).to.include({ readyReplicas: 2, maxClients: 20, summary: '0/20' });
    expect(pool.status!.tcp).to.include({ readyReplicas: 1, maxClients: 10 });

    await reportClients('arena', 17, 8); // 25 of 30: 83 % ≥ 80 %
    pool = await until('LIMITED', async () => {
      const p = await readPool('arena');
      return p.status?.capacity === 'LIMITED' && p;
    });
    expect(pool.status!.clients).to.equal(25);
    expect(pool.status!.udp).to.include({ clients: 17, summary: '17/20' });
    await reportClients('arena', 20, 10);
    await until('FULL', async () => (await readPool('arena')).status?.capacity === 'FULL');
  });

  it('lists owners’ boxes and open attack windows in the access ConfigMap', async () => {
    await core.createNamespacedSecret({
      namespace: NAMESPACE,
      body: { metadata: { name: 'box-a-secrets' }, stringData: { rootPassword: 'pw', agentToken: 't' } },
    });
    const until_ = new Date(Date.now() + 3_000).toISOString();
    await custom.createNamespacedCustomObject({
      group: 'exploitgrid.io',
      version: 'v1alpha1',
      namespace: NAMESPACE,
      plural: 'boxes',
      body: {
        apiVersion: 'exploitgrid.io/v1alpha1',
        kind: 'Box',
        metadata: { name: 'box-a' },
        spec: {
          owner: { id: '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11', handle: 'neo' },
          hostname: 'neo-box',
          secretRef: { name: 'box-a-secrets' },
          attackWindows: [
            { attackId: '9a1f6c1e-2222-4333-8444-555566667777', sourceAddress: '10.8.0.9', until: until_ },
          ],
        },
      },
    });
    const readAccess = async () =>
      JSON.parse(
        (await core.readNamespacedConfigMap({ name: 'arena-access', namespace: NAMESPACE })).data![
          'access.json'
        ]!,
      ) as { owners: Record<string, string[]>; windows: { source: string; box: string }[] };
    const access = await until('the box in the access ConfigMap', async () => {
      const a = await readAccess();
      return a.windows.length === 1 && a;
    });
    expect(access.owners['6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11']).to.deep.equal(['172.30.1.1']);
    expect(access.windows[0]).to.include({ source: '10.8.0.9', box: '172.30.1.1' });
    // The box's cloud-init routes each client slice through its server.
    const cloudInit = await until('the cloud-init Secret', () =>
      core.readNamespacedSecret({ name: 'box-a-cloud-init', namespace: NAMESPACE }),
    );
    const network = Buffer.from(cloudInit.data!.networkdata!, 'base64').toString();
    expect(JSON.parse(network).ethernets.arena.routes).to.deep.equal([
      { to: '10.8.0.0/17', via: '172.30.0.10' },
      { to: '10.8.128.0/17', via: '172.30.0.11' },
      { to: '10.9.0.0/16', via: '172.30.0.100' },
    ]);
    await until(
      'the window gone when it ends',
      async () => (await readAccess()).windows.length === 0,
      10_000,
    );
  });

  it('removes a server when replicas go down, and everything when the pool is deleted', async () => {
    await custom.patchNamespacedCustomObject(
      { ...POOLS, name: 'arena', body: { spec: { udp: { replicas: 1 } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await until('one UDP server', async () => {
      const list = await apps.listNamespacedDeployment({ namespace: NAMESPACE });
      return (
        list.items
          .map((d) => d.metadata!.name)
          .sort()
          .join() === 'arena-tcp-0,arena-udp-0'
      );
    });
    await custom.deleteNamespacedCustomObject({ ...POOLS, name: 'arena' });
    await until('the pool gone', () =>
      readPool('arena').then(
        () => false,
        () => true,
      ),
    );
    expect((await apps.listNamespacedDeployment({ namespace: NAMESPACE })).items).to.have.length(0);
    const gone = (read: () => Promise<unknown>) =>
      read().then(
        () => false,
        () => true,
      );
    for (const name of ['arena-udp', 'arena-tcp']) {
      expect(await gone(() => core.readNamespacedService({ name, namespace: NAMESPACE }))).to.equal(true);
    }
    for (const name of ['arena-server', 'arena-access']) {
      expect(await gone(() => core.readNamespacedConfigMap({ name, namespace: NAMESPACE }))).to.equal(true);
    }
    expect(await gone(() => core.readNamespacedSecret({ name: 'arena-pki', namespace: NAMESPACE }))).to.equal(
      true,
    );
  });
});
