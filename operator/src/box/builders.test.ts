import { expect } from 'chai';
import { LOADOUT_DIR, LOADOUT_INSTALLER, loadoutFiles } from '../catalogue/bundle.ts';
import {
  boxStatusFor,
  cloudInitSecretFor,
  cloudInitSecretName,
  networkPolicyFor,
  serviceFor,
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
    loadout: [],
    ownerAddresses: [],
    attackWindows: [],
    ...over,
  },
});

describe('Box → VirtualMachine', () => {
  const vm = (b: Box): VirtualMachine =>
    virtualMachineFor(b, { arenaNetwork: 'arena/arena-net', disk: 'box-1-disk' });

  it('runs a powered-on box and halts a powered-off one', () => {
    expect(vm(box()).spec!.runStrategy).to.equal('Always');
    expect(vm(box({ power: 'Off' })).spec!.runStrategy).to.equal('Halted');
  });

  it('gives the VM the box’s CPU, memory, disk and hostname', () => {
    const spec = vm(box()).spec!.template.spec!;
    expect(spec.hostname).to.equal('neo-box');
    expect(spec.domain.cpu!.cores).to.equal(2);
    expect(spec.domain.resources!.requests).to.deep.equal({ memory: '768Mi', cpu: '1500m' });
    expect(spec.domain.resources!.limits).to.deep.equal({ memory: '768Mi', cpu: '1500m' });
    // Its own disk (a DataVolume that outlives a stop), not the image's ephemeral container disk.
    expect(spec.volumes!.find((v) => v.name === 'system')).to.deep.equal({
      name: 'system',
      dataVolume: { name: 'box-1-disk' },
    });
    expect(spec.volumes!.some((v) => v.containerDisk)).to.equal(false);
    // One machine (and cloud-init instance) per Box: the same at every start, new after a reset.
    expect(spec.domain.firmware!.uuid).to.equal(box().metadata.uid);
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
    expect(made.metadata!.labels).to.deep.equal({
      'app.kubernetes.io/name': 'exploit-grid',
      'app.kubernetes.io/instance': 'box-1',
      'app.kubernetes.io/component': 'box',
      'app.kubernetes.io/part-of': 'exploit-grid',
      'app.kubernetes.io/managed-by': 'exploit-grid-operator',
      'exploitgrid.io/box': 'box-1',
      'exploitgrid.io/owner': '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11',
    });
    expect(made.spec!.template.metadata!.labels).to.include({ 'exploitgrid.io/box': 'box-1' });
  });
});

describe('Box → cloud-init Secret', () => {
  const input = {
    rootPassword: 's3cret pass',
    agentToken: 'agent-token-1',
    agent: { bundle: Buffer.from('console.log("agent")\n'), apiUrl: 'http://172.30.0.10/' },
    address: '10.66.1.8',
    prefixLength: 16,
    routes: [
      { to: '10.8.0.0/17', via: '10.66.0.10' },
      { to: '10.8.128.0/17', via: '10.66.0.11' },
    ],
    loadout: [],
  };

  it('sets the hostname, root’s password and sshd for root, and the arena address', () => {
    const secret = cloudInitSecretFor(box(), input);
    const userData = secret.stringData!.userdata!;
    expect(userData.startsWith('#cloud-config\n')).to.equal(true);
    const config = JSON.parse(userData.slice('#cloud-config\n'.length)) as Record<string, unknown>;
    expect(config).to.deep.include({ hostname: 'neo-box', ssh_pwauth: true, disable_root: false });
    // The box's own disk outlives its first boot: the network (routes of a resized pool) again at every boot.
    expect(config.updates).to.deep.equal({ network: { when: ['boot'] } });
    expect(config.chpasswd).to.deep.equal({
      expire: false,
      users: [{ name: 'root', password: 's3cret pass', type: 'text' }],
    });
    expect(config).to.not.have.property('users');
    const network = JSON.parse(secret.stringData!.networkdata!) as {
      ethernets: Record<string, { addresses: string[]; routes: unknown[] }>;
    };
    expect(network.ethernets.arena!.addresses).to.deep.equal(['10.66.1.8/16']);
    expect(network.ethernets.arena!.routes).to.deep.equal(input.routes);
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

describe('Box → cloud-init agent', () => {
  const input = {
    rootPassword: 'pw',
    agentToken: 'agent-token-1',
    agent: { bundle: Buffer.from('console.log("agent")\n'), apiUrl: 'http://172.30.0.10/' },
    address: '172.30.1.1',
    prefixLength: 16,
    routes: [],
    loadout: [],
  };

  it('installs the agent with its unit, environment and secret (root only) and starts it', () => {
    const config = JSON.parse(
      cloudInitSecretFor(box(), input).stringData!.userdata!.slice('#cloud-config\n'.length),
    ) as {
      write_files: { path: string; permissions: string; content: string; encoding?: string }[];
      runcmd: string[][];
    };
    const file = (path: string) => config.write_files.find((f) => f.path === path)!;
    const program = file('/usr/local/lib/exploit-grid/agent.cjs');
    expect(Buffer.from(program.content, 'base64').toString()).to.equal('console.log("agent")\n');
    expect(file('/etc/exploit-grid/agent.token')).to.include({
      permissions: '0600',
      content: 'agent-token-1\n',
    });
    expect(file('/etc/exploit-grid/agent.env')).to.include({
      permissions: '0600',
      content: 'EG_AGENT_API_URL=http://172.30.0.10/\n',
    });
    expect(file('/etc/systemd/system/exploit-grid-agent.service').content).to.include(
      'ExecStart=/usr/bin/node',
    );
    expect(config.runcmd).to.deep.include(['systemctl', 'enable', '--now', 'exploit-grid-agent.service']);
    // No loadout, no installer.
    expect(config.write_files.some((f) => f.path.startsWith(LOADOUT_DIR))).to.equal(false);
    expect(config.runcmd).to.not.deep.include([LOADOUT_INSTALLER]);
  });

  it('writes the loadout’s files (modes kept, content exact) and runs the installer once, last', () => {
    const loadout = loadoutFiles(['ping-tool', 'sudo-find']);
    const config = JSON.parse(
      cloudInitSecretFor(box({ loadout: ['ping-tool', 'sudo-find'] }), {
        ...input,
        loadout,
      }).stringData!.userdata!.slice('#cloud-config\n'.length),
    ) as {
      write_files: { path: string; permissions: string; content: string; encoding?: string }[];
      runcmd: string[][];
      bootcmd?: string[][];
    };
    for (const file of loadout) {
      const written = config.write_files.find((f) => f.path === file.path);
      expect(written, file.path).to.include({ permissions: `0${file.mode.toString(8)}`, encoding: 'b64' });
      expect(Buffer.from(written!.content, 'base64').equals(file.content), file.path).to.equal(true);
    }
    expect(config.runcmd.at(-1)).to.deep.equal([LOADOUT_INSTALLER]);
    // The directory is root's alone before the files land in it (bootcmd runs before write_files).
    expect(config.bootcmd).to.deep.equal([
      ['cloud-init-per', 'once', 'exploit-grid-loadout-dir', 'install', '-d', '-m', '700', LOADOUT_DIR],
    ]);
  });
});

describe('Box → Service and NetworkPolicy', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const agentEndpoint = { cidr: '172.30.0.10/32', port: 80 };

  it('names the box with a headless Service on its VM pod', () => {
    const service = serviceFor(box());
    expect(service.spec!.clusterIP).to.equal('None');
    expect(service.spec!.selector).to.deep.equal({ 'exploitgrid.io/box': 'box-1' });
    expect(service.metadata!.ownerReferences![0]!.uid).to.equal(box().metadata.uid);
  });

  it('admits nobody by default and lets the box reach only the agents’ endpoint', () => {
    const policy = networkPolicyFor(box(), { now, agentEndpoint });
    expect(policy.spec!.podSelector!.matchLabels).to.deep.equal({ 'exploitgrid.io/box': 'box-1' });
    expect(policy.spec!.policyTypes).to.deep.equal(['Ingress', 'Egress']);
    expect(policy.spec!.ingress).to.deep.equal([]);
    expect(policy.spec!.egress).to.deep.equal([
      { to: [{ ipBlock: { cidr: '172.30.0.10/32' } }], ports: [{ protocol: 'TCP', port: 80 }] },
    ]);
  });

  it('admits the owner’s VPN addresses and open attack windows’ sources, not ended ones', () => {
    const policy = networkPolicyFor(
      box({
        ownerAddresses: ['10.8.0.2'],
        attackWindows: [
          { attackId: 'a1', sourceAddress: '10.8.0.9', until: '2026-11-22T12:05:00Z' },
          { attackId: 'a0', sourceAddress: '10.9.0.4', until: '2026-11-22T11:59:59Z' },
        ],
      }),
      { now, agentEndpoint },
    );
    expect(policy.spec!.ingress).to.deep.equal([
      { _from: [{ ipBlock: { cidr: '10.8.0.2/32' } }, { ipBlock: { cidr: '10.8.0.9/32' } }] },
    ]);
  });
});

describe('Box status from its VM', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const vm = (status: NonNullable<VirtualMachine['status']>): VirtualMachine =>
    ({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: {},
      spec: { template: {} },
      status,
    }) as VirtualMachine;

  it('is Running with its address once the VM is ready', () => {
    const status = boxStatusFor(
      box(),
      { vm: vm({ ready: true, printableStatus: 'Running' }), address: '172.30.1.1' },
      now,
    );
    expect(status).to.include({ phase: 'Running', ip: '172.30.1.1' });
    expect(status.conditions!.find((c) => c.type === 'Ready')).to.include({ status: 'True' });
  });

  it('is Provisioning while the VM starts, Crashed when KubeVirt gives up, Stopped when halted', () => {
    expect(boxStatusFor(box(), { vm: undefined, address: '172.30.1.1' }, now).phase).to.equal('Provisioning');
    expect(
      boxStatusFor(box(), { vm: vm({ printableStatus: 'Starting' }), address: '172.30.1.1' }, now),
    ).to.include({ phase: 'Provisioning', reason: 'Starting' });
    const crashed = boxStatusFor(box(), { vm: vm({ printableStatus: 'ErrImagePull' }), address: 'x' }, now);
    expect(crashed).to.include({ phase: 'Crashed', reason: 'ErrImagePull' });
    expect(crashed).to.not.have.property('ip');
    expect(
      boxStatusFor(box({ power: 'Off' }), { vm: vm({ created: false }), address: 'x' }, now).phase,
    ).to.equal('Stopped');
    expect(boxStatusFor(box({ power: 'Off' }), { vm: vm({ created: true }), address: 'x' }, now)).to.include({
      phase: 'Provisioning',
      reason: 'Stopping',
    });
  });

  it('is Pending with the problem in Synced, and keeps transition times of unchanged conditions', () => {
    const pending = boxStatusFor(
      box(),
      { vm: undefined, address: undefined, problem: { reason: 'SecretMissing', message: 'Waiting.' } },
      now,
    );
    expect(pending.phase).to.equal('Pending');
    expect(pending.conditions!.find((c) => c.type === 'Synced')).to.include({
      status: 'False',
      reason: 'SecretMissing',
    });
    const later = new Date('2026-11-22T12:10:00Z');
    const again = boxStatusFor(
      { ...box(), status: pending },
      { vm: undefined, address: undefined, problem: { reason: 'SecretMissing', message: 'Waiting.' } },
      later,
    );
    expect(again.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime).to.equal(now.toISOString());
  });
});
