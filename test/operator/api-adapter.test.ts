import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import { pino } from 'pino';
import { KubernetesRuntime } from '../../api/src/boxes/kubernetes/runtime.ts';
import type { BoxSpec } from '../../api/src/boxes/orchestrator.ts';
import type { Box } from '../../operator/src/box/types.ts';
import { Operator } from '../../operator/src/operator.ts';
import type { VpnPool } from '../../operator/src/vpnpool/types.ts';
import { createVerifiedAccount } from '../support/accounts.ts';
import { startTestCluster, testOperatorOptions, type TestCluster } from '../support/cluster.ts';
import type { ControlPlane } from '../support/kube.ts';
import { freePort, startPlatform, type RunningPlatform } from '../support/platform.ts';
import { until } from '../support/until.ts';

const run = promisify(execFile);
const NAMESPACE = 'arena';
const BOXES = { group: 'exploitgrid.io', version: 'v1alpha1', namespace: NAMESPACE, plural: 'boxes' };
const logger = pino({ level: process.env.OPERATOR_TEST_LOG ?? 'silent' });

/**
 * The API's kubernetes adapter against the real API server, with the operator running (it makes
 * the pool's PKI and the boxes' VMs); the test writes what KubeVirt would (VM status) and plays
 * the OpenVPN servers' hooks. Then the API itself with ORCHESTRATOR=kubernetes.
 */
describe('The API’s kubernetes adapter on a real API server', function () {
  this.timeout(120_000);
  let cluster: TestCluster;
  let plane: ControlPlane;
  let config: k8s.KubeConfig;
  let custom: k8s.CustomObjectsApi;
  let core: k8s.CoreV1Api;
  let operator: Operator;
  let runtime: KubernetesRuntime;
  let stopAgents: () => Promise<void>;
  let allowed = new Set<string>();

  const owner = '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11';
  const attacker = '7c1c9b63-8b4f-4d4a-8a7d-1b5b4d2c3e22';
  const spec = (over: Partial<BoxSpec> = {}): BoxSpec => ({
    id: '0c7d5f4e-1111-4222-8333-444455556666',
    slot: 1,
    hostname: 'neo-box',
    ownerId: owner,
    power: true,
    rootPassword: 'red pill',
    sshPublicKey: null,
    agentToken: 'agent secret',
    resources: { memoryMiB: 512, cpuMillis: 500, pids: 512 },
    ...over,
  });
  const readBox = async (name: string) => (await custom.getNamespacedCustomObject({ ...BOXES, name })) as Box;
  const readPool = async () =>
    (await custom.getNamespacedCustomObject({ ...BOXES, plural: 'vpnpools', name: 'arena' })) as VpnPool;
  const pkiValue = async (key: string) =>
    Buffer.from(
      (await core.readNamespacedSecret({ name: 'arena-pki', namespace: NAMESPACE })).data![key]!,
      'base64',
    ).toString();
  const hook = async (which: 'connect' | 'disconnect', body: object, token?: string) => {
    const response = await fetch(`http://127.0.0.1:${runtime.internalPort}/internal/vpn/${which}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token ?? (await pkiValue('hook-token'))}`,
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: response.status === 204 ? null : await response.json() };
  };

  before(async function () {
    this.timeout(45 * 60_000);
    cluster = await startTestCluster(NAMESPACE);
    ({ plane, config, custom, core } = cluster);
    operator = new Operator(testOperatorOptions(cluster));
    await operator.start();
    runtime = new KubernetesRuntime({
      config,
      namespace: NAMESPACE,
      poolName: 'arena',
      boxImage: 'exploit-grid/box-debian:test',
      agentPort: 0,
      agentHost: '127.0.0.1',
      logger,
    });
    await runtime.start();
    runtime.setVpnAuthorizer(async (userId) => allowed.has(userId));
    stopAgents = await runtime.serveAgents((_req, res) => res.writeHead(418).end());
  });
  after(async () => {
    await stopAgents?.();
    await runtime?.close();
    await operator?.stop();
    await plane?.stop();
  });

  it('is unavailable, saying why, until the pool and its PKI exist', async () => {
    expect(runtime.status()).to.include({ available: false });
    expect(runtime.status().reason).to.include('Waiting for the VPN pool arena');
    await custom.createNamespacedCustomObject({
      ...BOXES,
      plural: 'vpnpools',
      body: {
        apiVersion: 'exploitgrid.io/v1alpha1',
        kind: 'VpnPool',
        metadata: { name: 'arena' },
        spec: {
          udp: { clientSubnet: '10.8.0.0/16', maxClients: 10 },
          tcp: { clientSubnet: '10.9.0.0/16', port: 443 },
          publicHost: 'vpn.example.org',
        },
      },
    });
    await until('the runtime available', async () => runtime.status().available, 20_000);
  });

  it('writes the Box and its Secret, answers what the operator reports, and follows power', async () => {
    const first = await runtime.applyBox(spec());
    expect(first.phase).to.equal('PROVISIONING');
    const box = await readBox('box-0c7d5f4e-1111-4222-8333-444455556666');
    expect(box.spec).to.deep.include({
      hostname: 'neo-box',
      power: 'On',
      owner: { id: owner, handle: 'neo' },
      image: 'exploit-grid/box-debian:test',
    });
    expect(box.spec.secretRef.name).to.equal('box-0c7d5f4e-1111-4222-8333-444455556666-secrets');
    const secret = await core.readNamespacedSecret({ name: box.spec.secretRef.name, namespace: NAMESPACE });
    expect(Buffer.from(secret.data!.agentToken!, 'base64').toString()).to.equal('agent secret');
    expect(JSON.stringify(box.spec)).to.not.include('red pill');

    // KubeVirt starts the VM: the operator reports Running, the adapter hears it.
    const name = 'box-0c7d5f4e-1111-4222-8333-444455556666';
    await until('the VM', () => cluster.readVm(name));
    const changed = once(runtime.events, 'boxChanged');
    await cluster.writeVmStatus(name, { created: true, ready: true, printableStatus: 'Running' });
    expect(await changed).to.deep.equal(['0c7d5f4e-1111-4222-8333-444455556666']);
    const running = await until('RUNNING', async () => {
      const o = await runtime.applyBox(spec());
      return o.phase === 'RUNNING' && o;
    });
    expect(running.ip).to.match(/^172\.30\.1\.\d+$/);

    await runtime.applyBox(spec({ power: false }));
    expect((await readBox(name)).spec.power).to.equal('Off');
    expect(await runtime.boxIds()).to.deep.equal(['0c7d5f4e-1111-4222-8333-444455556666']);
  });

  it('issues VPN identities from the pool’s CA and .ovpn files for its servers; revokes in the CRL', async () => {
    const identity = await runtime.issueVpnIdentity(owner);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'eg-adapter-'));
    try {
      await writeFile(path.join(dir, 'ca.crt'), await pkiValue('ca.crt'));
      await writeFile(path.join(dir, 'client.crt'), identity.certificatePem);
      const verified = await run('openssl', [
        'verify',
        '-CAfile',
        path.join(dir, 'ca.crt'),
        path.join(dir, 'client.crt'),
      ]);
      expect(verified.stdout).to.include(': OK');
      const ovpn = runtime.vpnClientConfig('TCP', identity, 'neo');
      expect(ovpn)
        .to.include('remote vpn.example.org 443')
        .and.include('verify-x509-name arena.vpn.exploitgrid.io name');
      expect(ovpn).to.include((await pkiValue('tls-crypt.key')).trim());

      await runtime.setRevoked([
        { userId: owner, serialNumber: identity.serialNumber, revokedAt: new Date() },
      ]);
      await writeFile(path.join(dir, 'crl.pem'), await pkiValue('crl.pem'));
      const crl = await run('openssl', ['crl', '-in', path.join(dir, 'crl.pem'), '-noout', '-text']);
      expect(crl.stdout.toUpperCase()).to.include(identity.serialNumber.toUpperCase());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('takes the VPN servers’ hooks: token, authorizer, sessions, owners’ addresses, clients in the pool', async () => {
    const body = { protocol: 'udp', commonName: owner, vpnAddress: '10.8.0.6', server: 'arena-udp-0' };
    expect((await hook('connect', body, 'wrong')).status).to.equal(401);
    expect((await hook('connect', { ...body, commonName: 'not-a-user' })).status).to.equal(400);
    expect(await hook('connect', body)).to.deep.equal({ status: 403, body: { allow: false } });
    expect(runtime.vpnSessions()).to.deep.equal([]);

    allowed = new Set([owner, attacker]);
    const connected = once(runtime.events, 'vpnConnected');
    expect(await hook('connect', body)).to.deep.equal({ status: 200, body: { allow: true } });
    expect((await connected)[0]).to.include({ userId: owner, protocol: 'UDP', vpnAddress: '10.8.0.6' });
    const name = 'box-0c7d5f4e-1111-4222-8333-444455556666';
    expect((await readBox(name)).spec.ownerAddresses).to.deep.equal(['10.8.0.6']);
    expect(runtime.poolUsage().UDP.clients).to.equal(1);
    await until(
      'the clients in the pool’s status',
      async () => (await readPool()).status?.udp?.clients === 1,
    );

    // An attacker's window: their VPN address may reach the box until the end.
    await hook('connect', { ...body, commonName: attacker, vpnAddress: '10.8.0.7' });
    const end = new Date(Date.now() + 600_000);
    await runtime.openAttackWindow(attacker, '0c7d5f4e-1111-4222-8333-444455556666', end);
    const windows = (await readBox(name)).spec.attackWindows;
    expect(windows).to.have.length(1);
    expect(windows[0]).to.include({ sourceAddress: '10.8.0.7', until: end.toISOString() });
    await runtime.closeAttackWindow(attacker, '0c7d5f4e-1111-4222-8333-444455556666');
    expect((await readBox(name)).spec.attackWindows).to.deep.equal([]);

    const disconnected = once(runtime.events, 'vpnDisconnected');
    expect((await hook('disconnect', body)).status).to.equal(204);
    expect((await disconnected)[0]).to.include({ userId: owner });
    expect((await readBox(name)).spec.ownerAddresses).to.deep.equal([]);
    // The agents' endpoint is on the same port.
    expect(
      (await fetch(`http://127.0.0.1:${runtime.internalPort}/internal/agent/report`, { method: 'POST' }))
        .status,
    ).to.equal(418);
  });

  it('deletes a box and its Secret (the operator removes its children first)', async () => {
    await runtime.deleteBox('0c7d5f4e-1111-4222-8333-444455556666');
    await until('the Box gone', async () => (await runtime.boxIds()).length === 0);
    const gone = await core
      .readNamespacedSecret({
        name: 'box-0c7d5f4e-1111-4222-8333-444455556666-secrets',
        namespace: NAMESPACE,
      })
      .then(
        () => false,
        () => true,
      );
    expect(gone).to.equal(true);
    await runtime.deleteBox('0c7d5f4e-1111-4222-8333-444455556666'); // again: nothing to do
  });

  describe('the API with ORCHESTRATOR=kubernetes', () => {
    let platform: RunningPlatform;
    after(async () => {
      await platform?.stop();
    });

    it('makes a player’s box a Box the operator runs, and shows it RUNNING', async function () {
      this.timeout(180_000);
      platform = await startPlatform({
        env: {
          ORCHESTRATOR: 'kubernetes',
          KUBECONFIG: plane.kubeconfig,
          KUBE_NAMESPACE: NAMESPACE,
          VPN_POOL_NAME: 'arena',
          AGENT_PORT: String(await freePort()),
        },
      });
      const player = await createVerifiedAccount(platform, {
        handle: 'morpheus',
        email: 'morpheus@example.org',
        password: 'there is no spoon 1',
      });
      const call = (method: string, url: string, body?: object) =>
        fetch(`${platform.url}/api/v1${url}`, {
          method,
          headers: { authorization: `Bearer ${player.accessToken}`, 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      const runtimeStatus = await until('the runtime available', async () => {
        const status = (await (await call('GET', '/boxes/runtime')).json()) as { available: boolean };
        return status.available && status;
      });
      expect(runtimeStatus.available).to.equal(true);
      const created = await call('POST', '/boxes', {});
      expect(created.status, await created.clone().text()).to.equal(201);
      const mine = (await (await call('GET', '/boxes/my')).json()) as { id: string; hostname: string };
      const name = `box-${mine.id}`;
      const box = await until('the Box', () => readBox(name));
      expect(box.spec.owner).to.deep.equal({ id: player.id, handle: 'morpheus' });
      expect((await call('POST', `/boxes/${mine.hostname}/power`, { on: true })).status).to.be.lessThan(300);
      await until('the VM', () => cluster.readVm(name));
      await cluster.writeVmStatus(name, { created: true, ready: true, printableStatus: 'Running' });
      const running = await until(
        'RUNNING in the API',
        async () => {
          const b = (await (await call('GET', '/boxes/my')).json()) as { status: string; ipAddress?: string };
          return b.status === 'RUNNING' && b;
        },
        60_000,
      );
      expect(JSON.stringify(running)).to.match(/172\.30\.1\.\d+/);
    });
  });
});
