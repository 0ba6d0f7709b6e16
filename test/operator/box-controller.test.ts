import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import type { VirtualMachine } from '../../operator/src/box/builders.ts';
import type { DataVolume } from '../../operator/src/box/disk.ts';
import { spareLoadoutOf, spareStateOf } from '../../operator/src/box/spares.ts';
import type { Box } from '../../operator/src/box/types.ts';
import { LOADOUT_INSTALLER } from '../../operator/src/catalogue/index.ts';
import { Operator, type OperatorOptions } from '../../operator/src/operator.ts';
import { startTestCluster, testOperatorOptions, type TestCluster } from '../support/cluster.ts';
import type { ControlPlane } from '../support/kube.ts';
import { until } from '../support/until.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const NAMESPACE = 'arena';
const BOXES = { group: 'exploitgrid.io', version: 'v1alpha1', namespace: NAMESPACE, plural: 'boxes' };

/**
 * The Box controller against a real API server with KubeVirt's VirtualMachine resource
 * installed; the test writes the VM status KubeVirt would write. There is no garbage collector
 * here: children disappear only because the operator deletes them.
 */
describe('Box controller on a real API server', function () {
  this.timeout(120_000);
  let cluster: TestCluster;
  let plane: ControlPlane;
  let custom: k8s.CustomObjectsApi;
  let core: k8s.CoreV1Api;
  let networking: k8s.NetworkingV1Api;
  const running: Operator[] = [];
  let serial = 0;

  const options = (identity: string): OperatorOptions =>
    testOperatorOptions(cluster, {
      leaderElection: { enabled: true, identity, leaseDurationMs: 3_000, retryMs: 300 },
    });
  const startOperator = async (identity = `op-${++serial}`) => {
    const operator = new Operator(options(identity));
    running.push(operator);
    await operator.start();
    return operator;
  };
  const stopAll = async () => {
    for (const operator of running.splice(0)) await operator.stop();
  };

  before(async function () {
    this.timeout(45 * 60_000); // the first run builds kube-apiserver and etcd
    cluster = await startTestCluster(NAMESPACE);
    ({ plane, custom, core, networking } = cluster);
  });
  afterEach(stopAll);
  after(async () => {
    await stopAll();
    await plane?.stop();
  });

  let boxSerial = 0;
  const newId = () => `0c7d5f4e-1111-4222-8333-${String(++boxSerial).padStart(12, '0')}`;
  async function createBox(
    spec: Partial<Box['spec']> = {},
    { secret = true }: { secret?: boolean } = {},
  ): Promise<string> {
    const id = newId();
    const name = `box-${id}`;
    if (secret) await createSecret(name);
    await custom.createNamespacedCustomObject({
      ...BOXES,
      body: {
        apiVersion: 'exploitgrid.io/v1alpha1',
        kind: 'Box',
        metadata: { name, labels: { 'exploitgrid.io/box-id': id } },
        spec: {
          owner: { id: '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11', handle: 'neo' },
          hostname: 'neo-box',
          power: 'On',
          secretRef: { name: `${name}-secrets` },
          ...spec,
        },
      },
    });
    return name;
  }
  const createSecret = (name: string) =>
    core.createNamespacedSecret({
      namespace: NAMESPACE,
      body: {
        metadata: { name: `${name}-secrets` },
        stringData: { rootPassword: 'red pill', agentToken: `token of ${name}` },
      },
    });
  const readBox = async (name: string) => (await custom.getNamespacedCustomObject({ ...BOXES, name })) as Box;
  const readVm = (name: string) => cluster.readVm(name);
  const vmExists = (name: string) =>
    readVm(name).then(
      () => true,
      () => false,
    );
  const patchBoxSpec = (name: string, spec: Partial<Box['spec']>) =>
    custom.patchNamespacedCustomObject(
      { ...BOXES, name, body: { spec } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  /** What KubeVirt would write into the VM's status. */
  const writeVmStatus = (name: string, status: NonNullable<VirtualMachine['status']>) =>
    cluster.writeVmStatus(name, status);
  const phaseOf = async (name: string) => (await readBox(name)).status?.phase;
  const DISKS = { group: 'cdi.kubevirt.io', version: 'v1beta1', namespace: NAMESPACE, plural: 'datavolumes' };
  const readDisk = async (name: string) =>
    (await custom.getNamespacedCustomObject({ ...DISKS, name })) as DataVolume;
  const listDisks = async (labelSelector?: string) =>
    (
      (await custom.listNamespacedCustomObject({
        ...DISKS,
        ...(labelSelector ? { labelSelector } : {}),
      })) as {
        items: DataVolume[];
      }
    ).items;
  const spares = (state?: 'preparing' | 'ready') =>
    listDisks(state ? `exploitgrid.io/spare-state=${state}` : 'exploitgrid.io/spare-state');
  /** What KubeVirt writes when a spare's preparing VM ends: its instance's phase, and the VM stopped. */
  const endPreparation = async (spare: string, phase: 'Succeeded' | 'Failed') => {
    const vmis = {
      group: 'kubevirt.io',
      version: 'v1',
      namespace: NAMESPACE,
      plural: 'virtualmachineinstances',
    };
    await custom.createNamespacedCustomObject({
      ...vmis,
      body: {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        metadata: { name: spare },
        spec: {},
      },
    });
    await custom.patchNamespacedCustomObjectStatus(
      { ...vmis, name: spare, body: { status: { phase } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await writeVmStatus(spare, { created: false, ready: false, printableStatus: 'Stopped' });
  };

  it('makes the VM, cloud-init Secret, Service and NetworkPolicy of a Box, and Running once the VM is ready', async () => {
    const operator = await startOperator();
    const name = await createBox({ sshPublicKey: 'ssh-ed25519 AAAAC3Nza neo@zion' });

    const vm = await until('the VirtualMachine', () => readVm(name), 15_000);
    expect(vm.spec!.runStrategy).to.equal('Always');
    expect(vm.metadata!.ownerReferences![0]).to.deep.include({ kind: 'Box', name, controller: true });

    const box = await until('the provisioning Box', async () => {
      const b = await readBox(name);
      return b.status?.phase === 'Provisioning' && b;
    });
    expect(box.metadata.finalizers).to.include('exploitgrid.io/box-children');
    const address = box.metadata.annotations!['exploitgrid.io/address']!;
    expect(address).to.match(/^172\.30\.\d+\.\d+$/);
    expect(box.status!.observedGeneration).to.equal(box.metadata.generation);

    const cloudInit = await core.readNamespacedSecret({ name: `${name}-cloud-init`, namespace: NAMESPACE });
    const userData = Buffer.from(cloudInit.data!.userdata!, 'base64').toString();
    expect(userData)
      .to.include('neo-box')
      .and.include(`token of ${name}`)
      .and.include('ssh-ed25519 AAAAC3Nza');
    const networkData = Buffer.from(cloudInit.data!.networkdata!, 'base64').toString();
    expect(networkData).to.include(`${address}/16`);
    // Its own disk, imported from the image, noted on the Box and owned by it.
    const disk = await readDisk(`${name}-disk`);
    expect(disk.spec.source).to.deep.equal({
      registry: { url: 'docker://exploit-grid/box-debian:bookworm', pullMethod: 'node' },
    });
    expect(disk.spec.storage!.resources!.requests).to.deep.equal({ storage: '5Gi' });
    expect(disk.metadata.ownerReferences![0]).to.deep.include({ kind: 'Box', name });
    expect(disk.metadata.labels!['exploitgrid.io/box']).to.equal(name);
    expect(vm.spec!.template.spec!.volumes!.find((v) => v.name === 'system')!.dataVolume).to.deep.equal({
      name: `${name}-disk`,
    });
    const noted = await until('the disk noted', async () => {
      const b = await readBox(name);
      return b.metadata.annotations?.['exploitgrid.io/disk'] ? b : false;
    });
    expect(noted.metadata.annotations).to.include({
      'exploitgrid.io/disk': `${name}-disk`,
      'exploitgrid.io/disk-prepared': 'false',
    });
    const service = await core.readNamespacedService({ name, namespace: NAMESPACE });
    expect(service.spec!.clusterIP).to.equal('None');
    const policy = await networking.readNamespacedNetworkPolicy({ name, namespace: NAMESPACE });
    expect(policy.spec!.ingress ?? []).to.deep.equal([]);
    expect(policy.spec!.egress![0]!.to![0]!.ipBlock!.cidr).to.equal('172.30.0.10/32');

    await writeVmStatus(name, { created: true, ready: true, printableStatus: 'Running' });
    const runningBox = await until('the running Box', async () => {
      const b = await readBox(name);
      return b.status?.phase === 'Running' && b;
    });
    expect(runningBox.status!.ip).to.equal(address);
    expect(runningBox.status!.conditions!.find((c) => c.type === 'Ready')!.status).to.equal('True');

    // The operator's endpoints.
    const metrics = await (await fetch(`http://127.0.0.1:${operator.httpPort}/metrics`)).text();
    expect(metrics).to.match(/exploit_grid_reconcile_total\{controller="box",result="success"\} [1-9]/);
    expect(metrics).to.include('exploit_grid_leader 1');
    expect((await fetch(`http://127.0.0.1:${operator.httpPort}/readyz`)).status).to.equal(200);
    expect((await fetch(`http://127.0.0.1:${operator.httpPort}/healthz`)).status).to.equal(200);
  });

  it('halts the VM on power off, Stopped once KubeVirt stopped it; crashes are reported', async () => {
    await startOperator();
    const name = await createBox();
    await until('the VirtualMachine', () => readVm(name), 15_000);
    const uid = (await readVm(name)).metadata!.uid;
    await writeVmStatus(name, { created: true, ready: true, printableStatus: 'Running' });
    await until('Running', async () => (await phaseOf(name)) === 'Running');

    await patchBoxSpec(name, { power: 'Off' });
    await until('a halted VM', async () => (await readVm(name)).spec!.runStrategy === 'Halted');
    expect((await readVm(name)).metadata!.uid).to.equal(uid); // changed in place
    await writeVmStatus(name, { created: false, ready: false, printableStatus: 'Stopped' });
    await until('Stopped', async () => (await phaseOf(name)) === 'Stopped');

    await patchBoxSpec(name, { power: 'On' });
    await writeVmStatus(name, { created: true, ready: false, printableStatus: 'CrashLoopBackOff' });
    const crashed = await until('Crashed', async () => {
      const b = await readBox(name);
      return b.status?.phase === 'Crashed' && b;
    });
    expect(crashed.status!.reason).to.include('CrashLoopBackOff');
  });

  it('waits for a missing Secret, then makes the box', async () => {
    await startOperator();
    const name = await createBox({}, { secret: false });
    const pending = await until('Pending', async () => {
      const b = await readBox(name);
      return b.status?.phase === 'Pending' && b;
    });
    expect(pending.status!.conditions!.find((c) => c.type === 'Synced')).to.include({
      status: 'False',
      reason: 'SecretMissing',
    });
    expect(await vmExists(name)).to.equal(false);
    await createSecret(name);
    await until('the VirtualMachine', () => readVm(name), 15_000);
  });

  it('opens the NetworkPolicy to an attack window’s source and closes it when the window ends', async () => {
    await startOperator();
    const name = await createBox({ ownerAddresses: ['10.8.0.2'] });
    const cidrs = async () => {
      const policy = await networking.readNamespacedNetworkPolicy({ name, namespace: NAMESPACE });
      return (policy.spec!.ingress ?? []).flatMap((rule) =>
        (rule._from ?? []).map((peer) => peer.ipBlock!.cidr),
      );
    };
    await until('the owner in the policy', async () => (await cidrs()).includes('10.8.0.2/32'));

    const until_ = new Date(Date.now() + 4_000).toISOString();
    await patchBoxSpec(name, {
      attackWindows: [
        { attackId: '9a1f6c1e-2222-4333-8444-555566667777', sourceAddress: '10.8.0.9', until: until_ },
      ],
    });
    await until('the attacker in the policy', async () => (await cidrs()).includes('10.8.0.9/32'));
    // Nothing changes the Box when the window ends: the operator looks again by itself.
    await until('the window closed', async () => !(await cidrs()).includes('10.8.0.9/32'), 10_000);
    expect(await cidrs()).to.deep.equal(['10.8.0.2/32']);
  });

  it('removes the children of a deleted Box before letting it go', async () => {
    await startOperator();
    const name = await createBox();
    await until('the VirtualMachine', () => readVm(name), 15_000);
    await until('the policy', () => networking.readNamespacedNetworkPolicy({ name, namespace: NAMESPACE }));
    await custom.deleteNamespacedCustomObject({ ...BOXES, name });
    await until('the Box gone', () =>
      readBox(name).then(
        () => false,
        () => true,
      ),
    );
    expect(await vmExists(name)).to.equal(false);
    const gone = (read: () => Promise<unknown>) =>
      read().then(
        () => false,
        () => true,
      );
    expect(
      await gone(() => core.readNamespacedSecret({ name: `${name}-cloud-init`, namespace: NAMESPACE })),
    ).to.equal(true);
    expect(await gone(() => core.readNamespacedService({ name, namespace: NAMESPACE }))).to.equal(true);
    expect(await gone(() => readDisk(`${name}-disk`))).to.equal(true);
    expect(await gone(() => networking.readNamespacedNetworkPolicy({ name, namespace: NAMESPACE }))).to.equal(
      true,
    );
    // The box's own Secret is the API's: still there.
    expect(
      await gone(() => core.readNamespacedSecret({ name: `${name}-secrets`, namespace: NAMESPACE })),
    ).to.equal(false);
  });

  it('keeps prepared spares; a Box with a ready one’s loadout takes it, once, and installs nothing', async () => {
    const operator = new Operator(
      testOperatorOptions(cluster, {
        spares: { count: 2, image: 'exploit-grid/box-debian:bookworm', loadoutSize: { in: 2, up: 1 } },
      }),
    );
    running.push(operator);
    await operator.start();
    const preparing = await until('two spares preparing', async () => {
      const list = await spares('preparing');
      return list.length === 2 && list;
    });
    for (const spare of preparing) {
      const vm = await until('its preparing VM', () => readVm(spare.metadata.name));
      expect(vm.spec!.runStrategy).to.equal('Once');
      expect(vm.spec!.template.spec!.networks).to.deep.equal([]);
      expect(spareLoadoutOf(spare)).to.have.length(3);
      // Its preparation installs the loadout drawn for it (its files and the installer, then power off).
      const init = await core.readNamespacedSecret({
        name: `${spare.metadata.name}-cloud-init`,
        namespace: NAMESPACE,
      });
      const userData = Buffer.from(init.data!.userdata!, 'base64').toString();
      expect(userData).to.include(LOADOUT_INSTALLER).and.include('poweroff');
      expect(
        userData.match(/"path": "\/var\/lib\/exploit-grid\/loadout\/0[1-3]\/install\.sh"/g),
      ).to.have.length(3);
    }
    const [first, second] = preparing as [DataVolume, DataVolume];
    const loadout = spareLoadoutOf(first)!;

    // Prepared: ready, its VM and cloud-init gone (the disk is free for a box).
    await endPreparation(first.metadata.name, 'Succeeded');
    await until(
      'the first spare ready',
      async () => spareStateOf(await readDisk(first.metadata.name)) === 'ready',
    );
    await until('its VM gone', async () => !(await vmExists(first.metadata.name)));
    await until('its cloud-init gone', () =>
      core.readNamespacedSecret({ name: `${first.metadata.name}-cloud-init`, namespace: NAMESPACE }).then(
        () => false,
        () => true,
      ),
    );

    // A Box with that loadout (in another order) takes the spare: relabelled, owned, noted.
    const name = await createBox({ loadout: [...loadout].reverse() });
    const box = await until('the Box with its disk', async () => {
      const b = await readBox(name);
      return b.metadata.annotations?.['exploitgrid.io/disk'] ? b : false;
    });
    expect(box.metadata.annotations).to.include({
      'exploitgrid.io/disk': first.metadata.name,
      'exploitgrid.io/disk-prepared': 'true',
    });
    const taken = await readDisk(first.metadata.name);
    expect(spareStateOf(taken)).to.equal(undefined);
    expect(taken.metadata.labels!['exploitgrid.io/box']).to.equal(name);
    expect(taken.metadata.ownerReferences![0]).to.deep.include({ kind: 'Box', name });
    const vm = await until('the Box’s VM', () => readVm(name));
    expect(vm.spec!.template.spec!.volumes!.find((v) => v.name === 'system')!.dataVolume!.name).to.equal(
      first.metadata.name,
    );
    // Its cloud-init gives it its identity and installs nothing: the spare has its loadout.
    const cloudInit = await core.readNamespacedSecret({ name: `${name}-cloud-init`, namespace: NAMESPACE });
    const userData = Buffer.from(cloudInit.data!.userdata!, 'base64').toString();
    expect(userData).to.include('neo-box').and.include(`token of ${name}`);
    expect(userData).to.not.include(LOADOUT_INSTALLER);
    expect(await listDisks(), 'no disk made for it').to.satisfy((disks: DataVolume[]) =>
      disks.every((d) => d.metadata.name !== `${name}-disk`),
    );

    // Taken, it no longer counts: another spare is made.
    await until('two spares again', async () => (await spares()).length === 2);

    // A second Box with the same loadout finds no ready spare: a disk of its own, and cloud-init installs.
    const other = await createBox({ loadout });
    await until('its own disk noted', async () => {
      const b = await readBox(other);
      return b.metadata.annotations?.['exploitgrid.io/disk'] === `${other}-disk`;
    });
    const otherInit = await until('its cloud-init', () =>
      core.readNamespacedSecret({ name: `${other}-cloud-init`, namespace: NAMESPACE }),
    );
    expect(Buffer.from(otherInit.data!.userdata!, 'base64').toString()).to.include(LOADOUT_INSTALLER);

    // A preparation that failed is removed (and made again later).
    await endPreparation(second.metadata.name, 'Failed');
    await until('the failed spare gone', () =>
      readDisk(second.metadata.name).then(
        () => false,
        () => true,
      ),
    );
    expect(await vmExists(second.metadata.name)).to.equal(false);

    // The Box deleted: the spare it took goes with it.
    await custom.deleteNamespacedCustomObject({ ...BOXES, name });
    await until('the taken disk gone', () =>
      readDisk(first.metadata.name).then(
        () => false,
        () => true,
      ),
    );

    // No spares wanted any more: those there are go; boxes' disks stay.
    await stopAll();
    const none = new Operator(testOperatorOptions(cluster, { spares: { count: 0, image: 'x' } }));
    running.push(none);
    await none.start();
    await until('no spares', async () => (await spares()).length === 0);
    expect((await readDisk(`${other}-disk`)).metadata.name).to.equal(`${other}-disk`);
  });

  it('restores a snapshot: the VM halted first, then a disk made from it in place of the old one, once', async () => {
    await startOperator();
    const name = await createBox();
    await until('the VM', () => readVm(name), 15_000);
    await writeVmStatus(name, { created: true, ready: true, printableStatus: 'Running' });
    await until('Running', async () => (await phaseOf(name)) === 'Running');
    const snapshots = {
      group: 'snapshot.storage.k8s.io',
      version: 'v1',
      namespace: NAMESPACE,
      plural: 'volumesnapshots',
    };
    // As the API makes them: `snap-<snapshot id>`, labelled with the box's id.
    const snapshot = async (snapshotName: string, boxId: string) =>
      custom.createNamespacedCustomObject({
        ...snapshots,
        body: {
          apiVersion: 'snapshot.storage.k8s.io/v1',
          kind: 'VolumeSnapshot',
          metadata: { name: snapshotName, labels: { 'exploitgrid.io/box-id': boxId } },
          spec: { source: { persistentVolumeClaimName: `${name}-disk` } },
        },
      });
    const snap1 = 'snap-0d0d0d0d-0000-4000-8000-000000000001';
    await snapshot(snap1, name.slice('box-'.length));
    const id = '5a0e5a0e-1111-4222-8333-000000000001';
    await patchBoxSpec(name, { restore: { id, snapshot: snap1 } });

    // Halted first; nothing is replaced while the instance runs.
    await until('a halted VM', async () => (await readVm(name)).spec!.runStrategy === 'Halted');
    await sleep(300);
    expect((await readBox(name)).metadata.annotations!['exploitgrid.io/disk']).to.equal(`${name}-disk`);
    await writeVmStatus(name, { created: false, ready: false, printableStatus: 'Stopped' });

    const restored = `${name}-disk-5a0e5a0e11114222`;
    const box = await until('restored', async () => {
      const b = await readBox(name);
      return b.status?.restored?.id === id && b;
    });
    expect(box.status!.restored).to.deep.equal({ id, snapshot: snap1 });
    expect(box.metadata.annotations).to.include({
      'exploitgrid.io/disk': restored,
      'exploitgrid.io/disk-prepared': 'true',
    });
    const disk = await readDisk(restored);
    expect(disk.spec.source).to.deep.equal({ snapshot: { namespace: NAMESPACE, name: snap1 } });
    expect(disk.metadata.ownerReferences![0]).to.deep.include({ kind: 'Box', name });
    // The old disk stays until the new one is filled (a failed copy leaves the box its disk), then goes.
    await sleep(300);
    expect((await readDisk(`${name}-disk`)).metadata.name).to.equal(`${name}-disk`);
    await custom.patchNamespacedCustomObjectStatus(
      { ...DISKS, name: restored, body: { status: { phase: 'Succeeded', progress: '100.0%' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await until('the old disk gone', () =>
      readDisk(`${name}-disk`).then(
        () => false,
        () => true,
      ),
    );
    // The VM runs again (the Box still says On) on the restored disk, and its cloud-init installs nothing.
    const vm = await until('the VM on its restored disk', async () => {
      const v = await readVm(name);
      return v.spec!.runStrategy === 'Always' && v;
    });
    expect(vm.spec!.template.spec!.volumes!.find((v) => v.name === 'system')!.dataVolume!.name).to.equal(
      restored,
    );
    const cloudInit = await core.readNamespacedSecret({ name: `${name}-cloud-init`, namespace: NAMESPACE });
    expect(Buffer.from(cloudInit.data!.userdata!, 'base64').toString()).to.not.include(LOADOUT_INSTALLER);

    await writeVmStatus(name, { created: true, ready: true, printableStatus: 'Running' });

    // A snapshot that is gone, or another box's: nothing replaced, and the status says why.
    const refuse = async (restoreId: string, snapshotName: string, error: string) => {
      await patchBoxSpec(name, { restore: { id: restoreId, snapshot: snapshotName } });
      await until('a halted VM', async () => (await readVm(name)).spec!.runStrategy === 'Halted');
      await writeVmStatus(name, { created: false, ready: false, printableStatus: 'Stopped' });
      const refused = await until('refused', async () => {
        const b = await readBox(name);
        return b.status?.restored?.id === restoreId && b;
      });
      expect(refused.status!.restored!.error).to.equal(error);
      expect(refused.metadata.annotations!['exploitgrid.io/disk']).to.equal(restored);
      await until('the VM on again', async () => (await readVm(name)).spec!.runStrategy === 'Always');
      await writeVmStatus(name, { created: true, ready: true, printableStatus: 'Running' });
    };
    await refuse(
      '6b1f6b1f-1111-4222-8333-000000000002',
      'snap-0d0d0d0d-0000-4000-8000-00000000dead',
      'The snapshot is gone.',
    );
    const others = 'snap-0d0d0d0d-0000-4000-8000-000000000002';
    await snapshot(others, '0c7d5f4e-1111-4222-8333-999999999999');
    await refuse('7c2a7c2a-1111-4222-8333-000000000003', others, 'The snapshot is not this box’s.');
  });

  it('keeps working after the API server was down a while (watches start again)', async () => {
    await startOperator();
    const before = await createBox();
    await until('the VirtualMachine', () => readVm(before), 15_000);
    await plane.restartApiServer(1_000);
    const after = await until('a Box created after the restart', () => createBox(), 30_000);
    await until('its VirtualMachine', () => readVm(after), 30_000);
    // Changes to VMs are seen again too.
    await writeVmStatus(after, { created: true, ready: true, printableStatus: 'Running' });
    await until('Running', async () => (await phaseOf(after)) === 'Running', 30_000);
  });

  it('runs one leader among two replicas; the other takes over when it stops', async () => {
    const first = await startOperator('replica-a');
    const second = await startOperator('replica-b');
    await until('a leader', async () => first.leading || second.leading, 10_000);
    await sleep(1_500);
    expect([first.leading, second.leading].filter(Boolean)).to.have.length(1);
    const [leader, follower] = first.leading ? [first, second] : [second, first];
    const readyz = await fetch(`http://127.0.0.1:${follower.httpPort}/readyz`);
    expect(await readyz.text()).to.include('following');

    // Only the leader works: a new Box is made while it leads ...
    const before = await createBox();
    await until('the VirtualMachine', () => readVm(before), 15_000);
    // ... and by the other replica once it stepped down (a graceful stop releases the Lease).
    await leader.stop();
    running.splice(running.indexOf(leader), 1);
    await until('the follower leading', async () => follower.leading, 10_000);
    const after = await createBox();
    await until('the VirtualMachine made by the new leader', () => readVm(after), 15_000);
  });

  it('converges after being killed mid-way: every Box gets its VM and a distinct address', async function () {
    this.timeout(180_000);
    const spawnOperator = (): ChildProcess => {
      const child = spawn(
        process.execPath,
        ['--conditions=source', path.join(repoRoot, 'operator/src/main.ts')],
        {
          env: {
            ...process.env,
            KUBECONFIG: plane.kubeconfig,
            WATCH_NAMESPACE: NAMESPACE,
            HTTP_PORT: '0',
            HTTP_HOST: '127.0.0.1',
            LEADER_ELECTION: 'false',
            AGENT_BUNDLE: path.join(repoRoot, 'package.json'), // any file: the content is not looked at here
            LOG_LEVEL: 'warn',
            BOX_SPARES: '0',
          },
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      return child;
    };
    const names: string[] = [];
    for (let i = 0; i < 30; i++) names.push(await createBox());
    const first = spawnOperator();
    // Kill it while it is at work: some boxes done, some not.
    await until(
      'a first VirtualMachine',
      async () => (await Promise.all(names.map(vmExists))).some(Boolean),
      30_000,
      20,
    );
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const made = (await Promise.all(names.map(vmExists))).filter(Boolean).length;
    expect(made).to.be.lessThan(names.length);

    const second = spawnOperator();
    try {
      await until(
        'every VirtualMachine',
        async () => (await Promise.all(names.map(vmExists))).every(Boolean),
        60_000,
      );
      const boxes = await until(
        'every Box with its status',
        async () => {
          const all = await Promise.all(names.map(readBox));
          return all.every((b) => b.status?.phase === 'Provisioning') && all;
        },
        30_000,
      );
      const addresses = boxes.map((b) => b.metadata.annotations!['exploitgrid.io/address']);
      expect(new Set(addresses).size).to.equal(names.length);
    } finally {
      second.kill('SIGTERM');
      await new Promise((resolve) => second.once('exit', resolve));
    }
  });
});
