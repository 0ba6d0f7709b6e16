import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import { pino } from 'pino';
import { KubernetesRuntime } from '../../api/src/boxes/kubernetes/runtime.ts';
import { BoxHasNoDisk, SnapshotImageGone, type BoxSpec } from '../../api/src/boxes/orchestrator.ts';
import { LABELS } from '../../operator/src/box/builders.ts';
import { SPARE_STATE, spareDiskFor } from '../../operator/src/box/spares.ts';
import type { Box } from '../../operator/src/box/types.ts';
import { Operator } from '../../operator/src/operator.ts';
import type { CheckJob } from '../../operator/src/vpnpool/checks.ts';
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
  const boxId = '0c7d5f4e-1111-4222-8333-444455556666';
  const name = `box-${boxId}`;
  /** A player revoked before the pool existed (the API starts with its revocations). */
  const earlySerial = '5EC0DE0001';
  const spec = (over: Partial<BoxSpec> = {}): BoxSpec => ({
    id: '0c7d5f4e-1111-4222-8333-444455556666',
    slot: 1,
    hostname: 'neo-box',
    ownerId: owner,
    power: true,
    rootPassword: 'red pill',
    sshPublicKey: null,
    agentToken: 'agent secret',
    loadout: [],
    resources: { memoryMiB: 512, cpuMillis: 500, pids: 512 },
    ...over,
  });
  const readBox = async (name: string) => (await custom.getNamespacedCustomObject({ ...BOXES, name })) as Box;
  const readPool = async () =>
    (await custom.getNamespacedCustomObject({ ...BOXES, plural: 'vpnpools', name: 'arena' })) as VpnPool;
  const pkiValue = async (key: string, secret = 'arena-pki') =>
    Buffer.from(
      (await core.readNamespacedSecret({ name: secret, namespace: NAMESPACE })).data![key]!,
      'base64',
    ).toString();
  /** The serials a CRL in the PKI Secret lists (OpenSSL reads it). */
  const crlSerials = async (secret = 'arena-pki') => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'eg-adapter-crl-'));
    try {
      await writeFile(path.join(dir, 'crl.pem'), await pkiValue('crl.pem', secret));
      const { stdout } = await run('openssl', ['crl', '-in', path.join(dir, 'crl.pem'), '-noout', '-text']);
      return [...stdout.matchAll(/Serial Number: ([0-9A-F]+)/gi)].map((m) => m[1]!.toUpperCase());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  /** Who manages the PKI Secret's crl.pem (server-side apply bookkeeping). */
  const crlManagers = async (secret = 'arena-pki') =>
    (await core.readNamespacedSecret({ name: secret, namespace: NAMESPACE }))
      .metadata!.managedFields!.filter((f) => JSON.stringify(f.fieldsV1 ?? {}).includes('"f:crl.pem"'))
      .map((f) => f.manager);
  const createPool = (poolName: string, spec: object) =>
    custom.createNamespacedCustomObject({
      ...BOXES,
      plural: 'vpnpools',
      body: { apiVersion: 'exploitgrid.io/v1alpha1', kind: 'VpnPool', metadata: { name: poolName }, spec },
    });
  const arenaPoolSpec = {
    udp: { clientSubnet: '10.8.0.0/16', maxClients: 10 },
    tcp: { clientSubnet: '10.9.0.0/16', port: 443 },
    publicHost: 'vpn.example.org',
  };
  /** Counts boxChanged events for the box from now on. */
  const countBoxChanged = () => {
    const counter = { count: 0, stop: () => runtime.events.off('boxChanged', listener) };
    const listener = (id: string) => {
      if (id === boxId) counter.count++;
    };
    runtime.events.on('boxChanged', listener);
    return counter;
  };
  /** Waits until the operator has reconciled the Box's latest spec (its status says so). */
  const reconciled = () =>
    until('the operator caught up with the Box', async () => {
      const box = await readBox(name);
      return box.status?.observedGeneration === box.metadata.generation;
    });
  const hook = async (
    which: 'connect' | 'disconnect' | 'sessions' | 'flows' | 'checks/next' | 'checks/result',
    body: object,
    token?: string,
    on = runtime,
  ) => {
    const response = await fetch(`http://127.0.0.1:${on.internalPort}/internal/vpn/${which}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token ?? (await pkiValue('hook-token'))}`,
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: response.status === 204 ? null : await response.json() };
  };

  const newRuntime = () =>
    new KubernetesRuntime({
      config,
      namespace: NAMESPACE,
      poolName: 'arena',
      boxImage: 'exploit-grid/box-debian:test',
      agentPort: 0,
      agentHost: '127.0.0.1',
      logger,
    });

  before(async function () {
    this.timeout(45 * 60_000);
    cluster = await startTestCluster(NAMESPACE);
    ({ plane, config, custom, core } = cluster);
    operator = new Operator(testOperatorOptions(cluster));
    await operator.start();
    runtime = newRuntime();
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

  it('is unavailable, saying why, until the pool and its PKI exist; revocations asked for meanwhile reach the CRL', async () => {
    expect(runtime.status()).to.include({ available: false });
    expect(runtime.status().reason).to.include('Waiting for the VPN pool arena');
    // The API starts with its revocations: they wait for the PKI instead of failing the start.
    await runtime.setRevoked([{ userId: attacker, serialNumber: earlySerial, revokedAt: new Date() }]);
    await createPool('arena', arenaPoolSpec);
    await until('the runtime available', async () => runtime.status().available, 20_000);
    await until('the early revocation in the CRL', async () => (await crlSerials()).includes(earlySerial));
    expect(await crlManagers()).to.include('exploit-grid-api');
  });

  it('writes the Box and its Secret, answers what the operator reports, and follows power', async () => {
    const first = await runtime.applyBox(spec({ ownerHandle: 'Neo_1' }));
    expect(first.phase).to.equal('PROVISIONING');
    let box = await readBox(name);
    expect(box.spec).to.deep.include({
      hostname: 'neo-box',
      power: 'On',
      owner: { id: owner, handle: 'Neo_1' },
      image: 'exploit-grid/box-debian:test',
      resources: { memoryMiB: 512, cpuMillis: 500 },
      ownerAddresses: [],
      attackWindows: [],
    });
    // Without the handle (a spec from before the port had it), from the hostname.
    await runtime.applyBox(spec({ hostname: 'neo-box-2' }));
    box = await readBox(name);
    expect(box.spec).to.deep.include({ hostname: 'neo-box-2', owner: { id: owner, handle: 'neo' } });
    await runtime.applyBox(spec());
    expect(box.spec.secretRef.name).to.equal('box-0c7d5f4e-1111-4222-8333-444455556666-secrets');
    const secret = await core.readNamespacedSecret({ name: box.spec.secretRef.name, namespace: NAMESPACE });
    expect(Buffer.from(secret.data!.agentToken!, 'base64').toString()).to.equal('agent secret');
    expect(JSON.stringify(box.spec)).to.not.include('red pill');

    // KubeVirt starts the VM: the operator reports Running, the adapter hears it.
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

  it('follows the pool as it changes: capacity and address from its watch', async () => {
    // No server is ready yet: the pool admits nobody.
    expect(runtime.poolUsage().UDP.maxClients).to.equal(0);
    await cluster.apps.patchNamespacedDeploymentStatus(
      {
        name: 'arena-udp-0',
        namespace: NAMESPACE,
        body: { status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    // (The pool is read again only every minute: this is the watch.)
    await until(
      'the ready server’s clients in the usage',
      async () => runtime.poolUsage().UDP.maxClients === 10,
      5_000,
    );
    const identity = await runtime.issueVpnIdentity(owner);
    await custom.patchNamespacedCustomObject(
      { ...BOXES, plural: 'vpnpools', name: 'arena', body: { spec: { publicHost: 'vpn2.example.org' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await until(
      'the new public host in .ovpn files',
      async () => runtime.vpnClientConfig('UDP', identity, 'neo').includes('remote vpn2.example.org 1194'),
      5_000,
    );
  });

  it('takes the VPN servers’ hooks: token, authorizer, sessions, owners’ addresses, clients in the pool', async () => {
    const body = { protocol: 'udp', commonName: owner, vpnAddress: '10.8.0.6', server: 'arena-udp-0' };
    expect((await hook('connect', body, 'wrong')).status).to.equal(401);
    expect((await hook('connect', { ...body, commonName: 'not-a-user' })).status).to.equal(400);
    expect(await hook('connect', body)).to.deep.equal({ status: 403, body: { allow: false } });
    expect(runtime.vpnSessions()).to.deep.equal([]);

    allowed = new Set([owner, attacker]);
    await reconciled();
    const changes = countBoxChanged();
    const connected = once(runtime.events, 'vpnConnected');
    expect(await hook('connect', body)).to.deep.equal({ status: 200, body: { allow: true } });
    expect((await connected)[0]).to.include({ userId: owner, protocol: 'UDP', vpnAddress: '10.8.0.6' });
    expect((await readBox(name)).spec.ownerAddresses).to.deep.equal(['10.8.0.6']);
    // The operator takes the new spec (its status records the generation) but the box's state is
    // the same: the BoxService is not woken for it.
    await reconciled();
    await sleep(500);
    changes.stop();
    expect(changes.count).to.equal(0);
    expect(runtime.poolUsage().UDP.clients).to.equal(1);
    await until(
      'the clients in the pool’s status',
      async () => (await readPool()).status?.udp?.clients === 1,
    );

    // An attacker's window: their VPN address may reach the box until the end; an address they
    // get later during the window joins it.
    await hook('connect', { ...body, commonName: attacker, vpnAddress: '10.8.0.7' });
    const end = new Date(Date.now() + 600_000);
    await runtime.openAttackWindow(attacker, boxId, end);
    const windows = (await readBox(name)).spec.attackWindows;
    expect(windows).to.have.length(1);
    expect(windows[0]).to.include({ sourceAddress: '10.8.0.7', until: end.toISOString() });
    expect(windows[0]!.attackId).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    await hook('connect', {
      protocol: 'tcp',
      commonName: attacker,
      vpnAddress: '10.9.0.10',
      server: 'arena-tcp-0',
    });
    expect((await readBox(name)).spec.attackWindows.map((w) => w.sourceAddress)).to.have.members([
      '10.8.0.7',
      '10.9.0.10',
    ]);
    expect((await readBox(name)).spec.ownerAddresses).to.deep.equal(['10.8.0.6']);
    expect(runtime.poolUsage().TCP.clients).to.equal(1);
    await until('both protocols’ clients in the pool’s status', async () => {
      const status = (await readPool()).status;
      return status?.udp?.clients === 2 && status.tcp?.clients === 1;
    });
    await runtime.closeAttackWindow(attacker, boxId);
    expect((await readBox(name)).spec.attackWindows).to.deep.equal([]);
    // A box that is not in the cluster has no window to open.
    let refused: unknown;
    await runtime
      .openAttackWindow(attacker, '0c7d5f4e-9999-4222-8333-444455556666', end)
      .catch((error: unknown) => (refused = error));
    expect(String(refused)).to.include('There is no Box for box 0c7d5f4e-9999-4222-8333-444455556666');

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

  it('has a box’s services checked by the VPN server holding the attacker’s latest session, as the attacker', async () => {
    // The attacker holds sessions on both servers (the test before): the TCP one is the latest.
    await runtime.applyBox(spec());
    await cluster.writeVmStatus(name, { created: true, ready: true, printableStatus: 'Running' });
    const running = await until('RUNNING', async () => {
      const o = await runtime.applyBox(spec());
      return o.phase === 'RUNNING' && o;
    });
    const check = {
      type: 'http' as const,
      port: 8080,
      method: 'GET' as const,
      path: '/?q={nonce}',
      status: 200,
      contains: 'q={nonce}',
    };
    // No window, no check.
    expect(await runtime.checkServices(attacker, boxId, [check], 2000)).to.equal(null);
    await runtime.openAttackWindow(attacker, boxId, new Date(Date.now() + 600_000));
    const results = runtime.checkServices(attacker, boxId, [check], 2000);
    const poll = await hook('checks/next', { server: 'arena-tcp-0' });
    expect(poll.status).to.equal(200);
    const [job] = (poll.body as { jobs: CheckJob[] }).jobs;
    expect(job).to.deep.include({ box: running.ip, port: 8080, speakingAs: '10.9.0.10', timeoutMs: 2000 });
    const asked = job!.request.type === 'http' ? job!.request.path : '';
    expect(
      await hook('checks/result', {
        server: 'arena-tcp-0',
        id: job!.id,
        outcome: 'answered',
        status: 200,
        body: `you asked ${asked}`,
      }),
    ).to.deep.equal({ status: 204, body: null });
    expect(await results).to.deep.equal([{ ok: true, detail: 'port 8080: answered as it should' }]);
    // A server that says the box did not answer: the defender's failure. (The VM restarting, the operator
    // shows the box Provisioning: it is checked all the same, at its address.)
    await cluster.writeVmStatus(name, { created: true, ready: false, printableStatus: 'Starting' });
    await until('Provisioning', async () => (await readBox(name)).status?.phase === 'Provisioning');
    await until(
      'the runtime seeing it',
      async () => (await runtime.applyBox(spec())).phase === 'PROVISIONING',
    );
    const failing = runtime.checkServices(attacker, boxId, [check], 2000);
    const [second] = ((await hook('checks/next', { server: 'arena-tcp-0' })).body as { jobs: CheckJob[] })
      .jobs;
    expect(second).to.deep.include({ box: running.ip });
    await hook('checks/result', {
      server: 'arena-tcp-0',
      id: second!.id,
      outcome: 'failed',
      error: 'connect ETIMEDOUT',
    });
    expect(await failing).to.deep.equal([{ ok: false, detail: 'port 8080: no answer (connect ETIMEDOUT)' }]);
    await runtime.closeAttackWindow(attacker, boxId);
    expect(await runtime.checkServices(attacker, boxId, [check], 2000)).to.equal(null);
    await runtime.applyBox(spec({ power: false })); // as the tests after expect it
  });

  it('hears Box changes again after the API server was down (its watches start again)', async function () {
    this.timeout(90_000);
    await reconciled();
    await plane.restartApiServer(1_000);
    await until('the API server back', () => readBox(name), 30_000);
    const changed = once(runtime.events, 'boxChanged');
    // KubeVirt reports the VM halted (the box was powered off): the operator says Stopped.
    await until(
      'the VM’s status written',
      () => cluster.writeVmStatus(name, { created: false, ready: false, printableStatus: 'Stopped' }),
      30_000,
    );
    expect(await changed).to.deep.equal([boxId]);
    expect((await runtime.applyBox(spec({ power: false }))).phase).to.equal('STOPPED');
    expect(runtime.status().available).to.equal(true);
  });

  it('keeps a window re-opened after an API restart for the box’s first write, with the attacker’s address once they connect', async () => {
    // A second runtime is the API after a restart: it knows no box, no session, no window.
    const restarted = newRuntime();
    await restarted.start();
    restarted.setVpnAuthorizer(async () => true);
    const stop = await restarted.serveAgents((_req, res) => res.writeHead(418).end());
    try {
      expect(restarted.status().available).to.equal(true);
      const end = new Date(Date.now() + 600_000);
      const before = await readBox(name);
      await restarted.openAttackWindow(attacker, boxId, end); // the AttackService re-opens it first
      expect((await readBox(name)).metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
      await hook(
        'connect',
        { protocol: 'udp', commonName: attacker, vpnAddress: '10.8.0.9', server: 'arena-udp-0' },
        undefined,
        restarted,
      );
      await restarted.applyBox(spec({ power: false })); // the BoxService's loop reaches the box
      const windows = (await readBox(name)).spec.attackWindows;
      expect(windows.map((w) => [w.sourceAddress, w.until])).to.deep.equal([['10.8.0.9', end.toISOString()]]);
    } finally {
      await stop();
      await restarted.close();
    }
    await runtime.applyBox(spec({ power: false }));
    expect((await readBox(name)).spec.attackWindows).to.deep.equal([]);
  });

  it('learns who is connected from the servers’ session reports after a restart; a missed disconnect ends there', async () => {
    const restarted = newRuntime();
    await restarted.start();
    restarted.setVpnAuthorizer(async () => true);
    const stop = await restarted.serveAgents((_req, res) => res.writeHead(418).end());
    try {
      await restarted.applyBox(spec({ power: false }));
      expect(restarted.vpnSessions()).to.deep.equal([]);
      const report = (sessions: { commonName: string; vpnAddress: string }[]) =>
        hook('sessions', { protocol: 'udp', server: 'arena-udp-0', sessions }, undefined, restarted);
      const connected = once(restarted.events, 'vpnConnected');
      expect((await report([{ commonName: owner, vpnAddress: '10.8.0.6' }])).status).to.equal(204);
      expect((await connected)[0]).to.include({ userId: owner, protocol: 'UDP', vpnAddress: '10.8.0.6' });
      expect(restarted.vpnSessions().map((s) => s.vpnAddress)).to.deep.equal(['10.8.0.6']);
      expect((await readBox(name)).spec.ownerAddresses).to.deep.equal(['10.8.0.6']);
      // The same report again changes nothing; another server's report does not end this one's sessions.
      await report([{ commonName: owner, vpnAddress: '10.8.0.6' }]);
      await hook('sessions', { protocol: 'udp', server: 'arena-udp-1', sessions: [] }, undefined, restarted);
      expect(restarted.vpnSessions()).to.have.length(1);
      // The player left while the API missed the disconnect: the next report ends the session.
      const disconnected = once(restarted.events, 'vpnDisconnected');
      await report([]);
      expect((await disconnected)[0]).to.include({ userId: owner });
      expect(restarted.vpnSessions()).to.deep.equal([]);
      expect((await readBox(name)).spec.ownerAddresses).to.deep.equal([]);
    } finally {
      await stop();
      await restarted.close();
    }
    await runtime.applyBox(spec({ power: false }));
  });

  it('keeps what the routers witnessed of the windows’ flows, for the referee of its boxes’ agents', async () => {
    const flow = { client: '10.8.0.7', clientPort: 51000, box: '172.30.1.9', boxPort: 22 };
    const report = (flows: object[]) =>
      hook('flows', { server: 'arena-udp-0', router: '172.30.0.10', flows });
    expect((await hook('flows', { server: 'arena-udp-0', router: '', flows: [] }, 'wrong')).status).to.equal(
      401,
    );
    const before = Date.now();
    expect((await report([{ ...flow, openedSecondsAgo: 3, idleSeconds: 1 }])).status).to.equal(204);
    const [seen] = runtime.witness.flows('172.30.1.9');
    expect(seen).to.include({ client: '10.8.0.7', clientPort: 51000, boxPort: 22 });
    expect(seen!.openedAt).to.be.within(before - 4000, Date.now() - 2000);
    expect(seen!.lastActiveAt).to.be.within(before - 2000, Date.now());
    // The box went quiet on it, then the router let go of it: the record keeps it, not active.
    await report([{ ...flow, openedSecondsAgo: 20, idleSeconds: null }]);
    await report([]);
    expect(runtime.witness.flows('172.30.1.9')).to.deep.equal([{ ...seen, lastActiveAt: null }]);
    expect(runtime.witness.flows('172.30.1.10')).to.deep.equal([]);
  });

  it('gives a new box the loadout of a ready spare of its image, oldest first, and not the same spare twice', async () => {
    const disks = {
      group: 'cdi.kubevirt.io',
      version: 'v1beta1',
      namespace: NAMESPACE,
      plural: 'datavolumes',
    };
    const spare = async (name: string, image: string, loadout: string[], state: 'preparing' | 'ready') => {
      const disk = spareDiskFor({
        name,
        namespace: NAMESPACE,
        image,
        settings: { size: '4Gi' },
        loadout,
        catalogue: 'digest',
      });
      // Not the operator's (its own count of spares here is none): labelled ready, as it labels them.
      const { [LABELS.managedBy]: _, ...labels } = disk.metadata.labels!;
      disk.metadata.labels = { ...labels, [SPARE_STATE]: state };
      await custom.createNamespacedCustomObject({ ...disks, body: disk });
      await sleep(1100); // creation times are whole seconds
    };
    // (The API server may still be settling from the test before, which stopped it.)
    expect(await until('an answer', async () => ({ loadout: await runtime.spareLoadout() }))).to.deep.equal({
      loadout: null,
    });
    await spare('spare-old', 'exploit-grid/box-debian:test', ['cmd-inject', 'sudo-rule'], 'ready');
    await spare('spare-other-image', 'exploit-grid/box-debian:older', ['sqli-login', 'cron-root'], 'ready');
    await spare('spare-busy', 'exploit-grid/box-debian:test', ['sqli-login', 'suid-helper'], 'preparing');
    await spare('spare-new', 'exploit-grid/box-debian:test', ['path-traversal', 'cron-root'], 'ready');
    expect(await runtime.spareLoadout()).to.deep.equal(['cmd-inject', 'sudo-rule']);
    expect(await runtime.spareLoadout()).to.deep.equal(['path-traversal', 'cron-root']);
    // Both handed out (the operator has not taken them yet): none left to offer.
    expect(await runtime.spareLoadout()).to.equal(null);
    for (const name of ['spare-old', 'spare-other-image', 'spare-busy', 'spare-new'])
      await custom.deleteNamespacedCustomObject({ ...disks, name });
  });

  it('snapshots a box’s disk as a VolumeSnapshot, restores it through the operator, and deletes it', async () => {
    const snapshots = {
      group: 'snapshot.storage.k8s.io',
      version: 'v1',
      namespace: NAMESPACE,
      plural: 'volumesnapshots',
    };
    const snapshotId = '5a0e5a0e-2222-4333-8444-000000000001';
    const noDisk = await runtime.snapshotBox('0c7d5f4e-9999-4999-8999-999999999999', snapshotId).then(
      () => null,
      (error: unknown) => error,
    );
    expect(noDisk, 'a box without a disk').to.be.instanceOf(BoxHasNoDisk);
    const disk = await until('the box’s disk noted', async () => {
      const box = (await custom.getNamespacedCustomObject({ ...BOXES, name })) as Box;
      return box.metadata.annotations?.['exploitgrid.io/disk'];
    });

    // What the CSI snapshotter would write once the storage took it.
    const taking = runtime.snapshotBox(boxId, snapshotId);
    const snapshot = await until('the VolumeSnapshot', () =>
      custom.getNamespacedCustomObject({ ...snapshots, name: `snap-${snapshotId}` }),
    );
    expect(snapshot).to.deep.nested.include({ 'spec.source.persistentVolumeClaimName': disk });
    await custom.patchNamespacedCustomObjectStatus(
      {
        ...snapshots,
        name: `snap-${snapshotId}`,
        body: { status: { readyToUse: true, restoreSize: '4Gi' } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(await taking).to.deep.equal({ sizeBytes: 4 * 2 ** 30 });

    // Restored: the Box asks the operator, which halts the VM (KubeVirt stops it), then swaps the disk.
    const restoring = runtime.restoreBox(boxId, snapshotId);
    await until('the VM halted', async () => (await cluster.readVm(name)).spec!.runStrategy === 'Halted');
    await cluster.writeVmStatus(name, { created: false, ready: false, printableStatus: 'Stopped' });
    await restoring;
    const box = (await custom.getNamespacedCustomObject({ ...BOXES, name })) as Box;
    expect(box.spec.power).to.equal('Off');
    expect(box.metadata.annotations!['exploitgrid.io/disk']).to.match(
      new RegExp(`^${name}-disk-[0-9a-f]{16}$`),
    );

    await runtime.deleteSnapshot(boxId, snapshotId);
    await runtime.deleteSnapshot(boxId, snapshotId); // again: nothing to do
    const gone = await custom.getNamespacedCustomObject({ ...snapshots, name: `snap-${snapshotId}` }).then(
      () => false,
      () => true,
    );
    expect(gone).to.equal(true);
    // Gone, it cannot be restored (409 for the player), and nothing is asked of the operator.
    const refused = await runtime.restoreBox(boxId, snapshotId).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(SnapshotImageGone);
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

  it('is unavailable while its pool is gone, and takes the new pool’s CA and writes its CRL when it is back', async function () {
    this.timeout(90_000);
    const revokedSerial = '5EC0DE0002';
    await runtime.setRevoked([{ userId: attacker, serialNumber: revokedSerial, revokedAt: new Date() }]);
    expect(await crlSerials()).to.deep.equal([revokedSerial]);
    const oldCa = await pkiValue('ca.crt');
    await custom.deleteNamespacedCustomObject({ ...BOXES, plural: 'vpnpools', name: 'arena' });
    await until('the runtime unavailable', async () => !runtime.status().available, 10_000);
    expect(runtime.status().reason).to.include('Waiting for the VPN pool arena');
    await until(
      'the old pool and its PKI gone',
      () =>
        readPool().then(
          () => false,
          () => true,
        ),
      30_000,
    );
    await createPool('arena', arenaPoolSpec);
    await until('the runtime available again', async () => runtime.status().available, 20_000);
    expect(await pkiValue('ca.crt')).to.not.equal(oldCa);
    await until('the revocation in the new pool’s CRL', async () =>
      (await crlSerials()).includes(revokedSerial),
    );
    // Identities come from the new CA.
    const identity = await runtime.issueVpnIdentity(owner);
    expect(runtime.vpnClientConfig('UDP', identity, 'neo')).to.include((await pkiValue('ca.crt')).trim());
  });

  describe('the API with ORCHESTRATOR=kubernetes', () => {
    let platform: RunningPlatform;
    after(async () => {
      await platform?.stop();
    });

    it('starts while its pool is missing, says why, and is ready once the operator made the pool’s PKI', async function () {
      this.timeout(180_000);
      const early = await startPlatform({
        env: {
          ORCHESTRATOR: 'kubernetes',
          KUBECONFIG: plane.kubeconfig,
          KUBE_NAMESPACE: NAMESPACE,
          VPN_POOL_NAME: 'later',
          AGENT_PORT: String(await freePort()),
        },
      });
      try {
        const player = await createVerifiedAccount(early, {
          handle: 'trinity',
          email: 'trinity@example.org',
          password: 'follow the white rabbit 1',
        });
        const runtimeStatus = async () =>
          (await (
            await fetch(`${early.url}/api/v1/boxes/runtime`, {
              headers: { authorization: `Bearer ${player.accessToken}` },
            })
          ).json()) as { available: boolean; reason: string | null };
        expect(await runtimeStatus()).to.deep.include({
          available: false,
          reason: `Waiting for the VPN pool later and its PKI in namespace ${NAMESPACE} (the operator makes the PKI).`,
        });
        await createPool('later', {
          udp: { clientSubnet: '10.18.0.0/16' },
          tcp: { clientSubnet: '10.19.0.0/16', port: 443 },
        });
        await until('the runtime available', async () => (await runtimeStatus()).available, 30_000);
        // The revocations the API started with waited for the PKI and are in its CRL now.
        await until('the API’s CRL', async () =>
          (await crlManagers('later-pki')).includes('exploit-grid-api'),
        );
      } finally {
        await early.stop();
      }
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
