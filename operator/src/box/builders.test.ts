import { expect } from 'chai';
import {
  cloudInitSecretFor,
  cloudInitSecretName,
  virtualMachineFor,
  type VirtualMachine,
} from './builders.ts';
import type { Box } from './types.ts';

const box = (over: Partial<Box['spec']> = {}): Box => ({
  apiVersion: 'exploitgrid.io/v1alpha1',
  kind: 'Box',
  metadata: { name: 'box-1', namespace: 'arena', uid: '1b5c7d3e-0000-4000-8000-000000000001' },
  spec: {
    owner: { id: '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11', handle: 'neo' },
    hostname: 'neo-box',
    power: 'On',
    image: 'exploit-grid/box-debian:bookworm',
    resources: { memoryMiB: 768, cpuMillis: 1500 },
    features: { persistentIp: false },
    secretRef: { name: 'box-1-secrets' },
    attackWindows: [],
    ...over,
  },
});

describe('Box → VirtualMachine', () => {
  const vm = (b: Box): VirtualMachine => virtualMachineFor(b, { arenaNetwork: 'arena/arena-net' });

  it('runs a powered-on box and halts a powered-off one', () => {
    expect(vm(box()).spec!.runStrategy).to.equal('Always');
    expect(vm(box({ power: 'Off' })).spec!.runStrategy).to.equal('Halted');
  });

  it('gives the VM the box’s CPU, memory, disk image and hostname', () => {
    const spec = vm(box()).spec!.template.spec!;
    expect(spec.hostname).to.equal('neo-box');
    expect(spec.domain.cpu!.cores).to.equal(2);
    expect(spec.domain.resources!.requests).to.deep.equal({ memory: '768Mi', cpu: '1500m' });
    expect(spec.domain.resources!.limits).to.deep.equal({ memory: '768Mi', cpu: '1500m' });
    expect(spec.volumes!.find((v) => v.name === 'system')!.containerDisk!.image).to.equal(
      'exploit-grid/box-debian:bookworm',
    );
    // Every volume has its disk.
    expect(spec.domain.devices.disks!.map((d) => d.name)).to.have.members(spec.volumes!.map((v) => v.name));
  });

  it('puts the VM on the arena network only, with its cloud-init from the box’s Secret', () => {
    const spec = vm(box()).spec!.template.spec!;
    expect(spec.networks).to.deep.equal([
      { name: 'arena', multus: { networkName: 'arena/arena-net', default: true } },
    ]);
    expect(spec.domain.devices.interfaces).to.deep.equal([{ name: 'arena', bridge: {} }]);
    const cloudInit = spec.volumes!.find((v) => v.name === 'cloud-init')!.cloudInitNoCloud!;
    expect(cloudInit.secretRef!.name).to.equal(cloudInitSecretName(box()));
    expect(cloudInit.networkDataSecretRef!.name).to.equal(cloudInitSecretName(box()));
    expect(JSON.stringify(vm(box()))).to.not.include('password');
  });

  it('names the Box as its controller and labels it with the box and its owner', () => {
    const made = vm(box());
    expect(made.metadata!.ownerReferences).to.deep.equal([
      {
        apiVersion: 'exploitgrid.io/v1alpha1',
        kind: 'Box',
        name: 'box-1',
        uid: '1b5c7d3e-0000-4000-8000-000000000001',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(made.metadata!.labels).to.include({
      'exploitgrid.io/box': 'box-1',
      'exploitgrid.io/owner': '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11',
    });
    expect(made.spec!.template.metadata!.labels).to.include({ 'exploitgrid.io/box': 'box-1' });
  });
});

describe('Box → cloud-init Secret', () => {
  const input = { rootPassword: 's3cret pass', address: '10.66.1.8', prefixLength: 16, gateway: '10.66.0.1' };

  it('sets the hostname, root’s password and sshd for root, and the arena address', () => {
    const secret = cloudInitSecretFor(box(), input);
    const userData = secret.stringData!.userdata!;
    expect(userData.startsWith('#cloud-config\n')).to.equal(true);
    const config = JSON.parse(userData.slice('#cloud-config\n'.length)) as Record<string, unknown>;
    expect(config).to.deep.include({ hostname: 'neo-box', ssh_pwauth: true, disable_root: false });
    expect(config.chpasswd).to.deep.equal({
      expire: false,
      users: [{ name: 'root', password: 's3cret pass', type: 'text' }],
    });
    expect(config).to.not.have.property('users');
    const network = JSON.parse(secret.stringData!.networkdata!) as {
      ethernets: Record<string, { addresses: string[]; routes: unknown[] }>;
    };
    expect(network.ethernets.arena!.addresses).to.deep.equal(['10.66.1.8/16']);
    expect(network.ethernets.arena!.routes).to.deep.equal([{ to: 'default', via: '10.66.0.1' }]);
    expect(secret.metadata!.name).to.equal('box-1-cloud-init');
    expect(secret.metadata!.ownerReferences![0]!.uid).to.equal(box().metadata.uid);
  });

  it('gives root the owner’s SSH key when there is one', () => {
    const secret = cloudInitSecretFor(box({ sshPublicKey: 'ssh-ed25519 AAAAC3Nza neo@zion' }), input);
    const config = JSON.parse(secret.stringData!.userdata!.slice('#cloud-config\n'.length)) as {
      users: { name: string; ssh_authorized_keys: string[] }[];
    };
    expect(config.users).to.deep.equal([
      { name: 'root', ssh_authorized_keys: ['ssh-ed25519 AAAAC3Nza neo@zion'] },
    ]);
  });
});
