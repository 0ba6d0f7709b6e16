import * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  MANAGER,
  cloudInitSecretFor,
  virtualMachineFor,
  type VirtualMachine,
} from '../../operator/src/box/builders.ts';
import type { DataVolume } from '../../operator/src/box/disk.ts';
import {
  spareCloudInitFor,
  spareDiskFor,
  spareLoadoutOf,
  spareStateOf,
  spareVirtualMachineFor,
} from '../../operator/src/box/spares.ts';
import type { Box } from '../../operator/src/box/types.ts';
import {
  LOADOUT_INSTALLER,
  chooseLoadout,
  loadCatalogue,
  loadoutFiles,
} from '../../operator/src/catalogue/index.ts';
import {
  installCrds,
  kubevirtCrds,
  projectCrds,
  startControlPlane,
  type ControlPlane,
} from '../support/kube.ts';

const NAMESPACE = 'arena';

/**
 * What the Box builders make, applied the way the operator applies it (server-side apply with
 * its field manager) to a real API server with the Box CRD and KubeVirt's VirtualMachine
 * resource: accepted, owned by the Box, and changed in place when the Box changes.
 */
describe('Box children on a real API server', function () {
  this.timeout(120_000);
  let plane: ControlPlane;
  let objects: k8s.KubernetesObjectApi;
  let custom: k8s.CustomObjectsApi;
  let core: k8s.CoreV1Api;

  before(async function () {
    this.timeout(45 * 60_000); // the first run builds kube-apiserver and etcd
    plane = await startControlPlane();
    await installCrds(plane.kubeconfig, [...(await projectCrds()), ...kubevirtCrds]);
    const config = new k8s.KubeConfig();
    config.loadFromFile(plane.kubeconfig);
    objects = k8s.KubernetesObjectApi.makeApiClient(config);
    custom = config.makeApiClient(k8s.CustomObjectsApi);
    core = config.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  });
  after(async () => {
    await plane?.stop();
  });

  const apply = (object: k8s.KubernetesObject) =>
    objects.patch(object, undefined, undefined, MANAGER, true, k8s.PatchStrategy.ServerSideApply);
  const readVm = async (name: string) =>
    (await custom.getNamespacedCustomObject({
      group: 'kubevirt.io',
      version: 'v1',
      namespace: NAMESPACE,
      plural: 'virtualmachines',
      name,
    })) as VirtualMachine;

  it('applies the VirtualMachine and its cloud-init Secret for a Box, owned by it', async () => {
    const box = (await custom.createNamespacedCustomObject({
      group: 'exploitgrid.io',
      version: 'v1alpha1',
      namespace: NAMESPACE,
      plural: 'boxes',
      body: {
        apiVersion: 'exploitgrid.io/v1alpha1',
        kind: 'Box',
        metadata: { name: 'trinity' },
        spec: {
          owner: { id: '0c7d5f4e-1111-4222-8333-444455556666', handle: 'trinity' },
          hostname: 'trinity-box',
          power: 'On',
          secretRef: { name: 'trinity-secrets' },
          // A whole loadout: the CRD takes it, and its files fit in the cloud-init Secret.
          loadout: chooseLoadout(loadCatalogue()),
        },
      },
    })) as Box;

    await apply(
      virtualMachineFor(box, {
        arenaNetwork: `${NAMESPACE}/arena`,
        disk: 'trinity-disk',
      }) as k8s.KubernetesObject,
    );
    await apply(
      cloudInitSecretFor(box, {
        rootPassword: 'red pill',
        agentToken: 'agent secret',
        agent: { bundle: Buffer.from('// agent\n'), apiUrl: 'http://10.66.0.10/' },
        address: '10.66.1.9',
        prefixLength: 16,
        routes: [{ to: '10.8.0.0/16', via: '10.66.0.10' }],
        loadout: loadoutFiles(box.spec.loadout ?? []),
      }) as k8s.KubernetesObject,
    );

    const vm = await readVm('trinity');
    expect(vm.spec!.runStrategy).to.equal('Always');
    expect(vm.metadata!.ownerReferences![0]).to.deep.include({
      kind: 'Box',
      name: 'trinity',
      uid: box.metadata.uid,
    });
    expect(vm.metadata!.managedFields!.map((f) => f.manager)).to.include(MANAGER);
    // The defaults of the Box reached the VM.
    expect(vm.spec!.template.spec!.domain.resources!.requests).to.deep.equal({
      memory: '512Mi',
      cpu: '500m',
    });

    const secret = await core.readNamespacedSecret({ name: 'trinity-cloud-init', namespace: NAMESPACE });
    const userData = Buffer.from(secret.data!.userdata!, 'base64').toString();
    expect(userData)
      .to.match(/^#cloud-config\n/)
      .and.include('trinity-box');
    // The loadout the apiserver kept on the Box is the one installed by cloud-init.
    expect(box.spec.loadout).to.have.length(5);
    expect(userData).to.include(LOADOUT_INSTALLER);
    expect(secret.metadata!.ownerReferences![0]!.uid).to.equal(box.metadata.uid);

    // Powered off: the same VM, halted, in place.
    await apply(
      virtualMachineFor(
        { ...box, spec: { ...box.spec, power: 'Off' } },
        { arenaNetwork: `${NAMESPACE}/arena`, disk: 'trinity-disk' },
      ) as k8s.KubernetesObject,
    );
    const halted = await readVm('trinity');
    expect(halted.spec!.runStrategy).to.equal('Halted');
    expect(halted.metadata!.uid).to.equal(vm.metadata!.uid);
  });

  it('takes a prepared spare: its disk, and a VM with no network whose cloud-init holds a whole loadout', async () => {
    const loadout = chooseLoadout(loadCatalogue());
    const settings = { size: '4Gi', storageClass: 'fast' };
    await apply(
      spareDiskFor({
        name: 'spare-1',
        namespace: NAMESPACE,
        image: 'exploit-grid/box-debian:bookworm',
        settings,
        loadout,
        catalogue: 'digest',
      }) as k8s.KubernetesObject,
    );
    await apply(spareCloudInitFor('spare-1', NAMESPACE, loadoutFiles(loadout)) as k8s.KubernetesObject);
    await apply(spareVirtualMachineFor('spare-1', NAMESPACE) as k8s.KubernetesObject);
    const disk = (await custom.getNamespacedCustomObject({
      group: 'cdi.kubevirt.io',
      version: 'v1beta1',
      namespace: NAMESPACE,
      plural: 'datavolumes',
      name: 'spare-1',
    })) as DataVolume;
    expect(disk.spec.source).to.deep.equal({
      registry: { url: 'docker://exploit-grid/box-debian:bookworm', pullMethod: 'node' },
    });
    expect(disk.spec.storage).to.deep.include({ storageClassName: 'fast' });
    expect(spareLoadoutOf(disk)).to.deep.equal(loadout);
    expect(spareStateOf(disk)).to.equal('preparing');
    const vm = await readVm('spare-1');
    expect(vm.spec!.runStrategy).to.equal('Once');
    expect(vm.spec!.template.spec!.networks).to.deep.equal([]);
    expect(vm.spec!.template.spec!.domain.devices.autoattachPodInterface).to.equal(false);
    const secret = await core.readNamespacedSecret({ name: 'spare-1-cloud-init', namespace: NAMESPACE });
    const userData = Buffer.from(secret.data!.userdata!, 'base64').toString();
    expect(userData).to.include(LOADOUT_INSTALLER).and.include('poweroff');
    // Nothing of a box's identity, and root stays locked.
    expect(userData).to.not.include('chpasswd');
    expect(userData).to.not.include('ssh_authorized_keys');
  });
});
