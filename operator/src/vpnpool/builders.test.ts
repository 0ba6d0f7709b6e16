import { expect } from 'chai';
import { parseSubnet } from '../box/addresses.ts';
import type { Box } from '../box/types.ts';
import { accessConfigFor, routesFor, serverSlices, vpnPoolStatusFor, type ObservedPool } from './builders.ts';
import type { VpnPool } from './types.ts';

const arena = parseSubnet('172.30.0.0/16');
const pool = (over: Partial<VpnPool['spec']> = {}, status?: VpnPool['status']): VpnPool => ({
  apiVersion: 'exploitgrid.io/v1alpha1',
  kind: 'VpnPool',
  metadata: { name: 'arena', namespace: 'eg', uid: 'u1', generation: 3 },
  spec: {
    udp: {
      replicas: 3,
      port: 1194,
      clientSubnet: '10.8.0.0/16',
      maxClients: 100,
      serviceType: 'LoadBalancer',
    },
    tcp: {
      replicas: 1,
      port: 443,
      clientSubnet: '10.9.0.0/24',
      maxClients: 100,
      serviceType: 'LoadBalancer',
    },
    thresholds: { limitedPercent: 80, fullPercent: 100 },
    ...over,
  },
  ...(status ? { status } : {}),
});

describe('VpnPool servers', () => {
  it('splits each client subnet into power-of-two slices, one per server, with router addresses', () => {
    const servers = serverSlices(pool(), arena);
    expect(servers.map((s) => [s.name, s.slice.cidr, s.routerAddress])).to.deep.equal([
      ['arena-udp-0', '10.8.0.0/18', '172.30.0.10'],
      ['arena-udp-1', '10.8.64.0/18', '172.30.0.11'],
      ['arena-udp-2', '10.8.128.0/18', '172.30.0.12'],
      ['arena-tcp-0', '10.9.0.0/24', '172.30.0.100'],
    ]);
    expect(routesFor(servers)[3]).to.deep.equal({ to: '10.9.0.0/24', via: '172.30.0.100' });
  });

  it('refuses slices smaller than /29, saying what to change', () => {
    const tcp = {
      replicas: 40,
      port: 443,
      clientSubnet: '10.9.0.0/24',
      maxClients: 5,
      serviceType: 'ClusterIP' as const,
    };
    expect(() => serverSlices(pool({ tcp }), arena)).to.throw('smaller than /29');
  });
});

describe('VpnPool status', () => {
  const observed: ObservedPool = { readyServers: { udp: 3, tcp: 1 }, serviceAddress: { udp: '203.0.113.7' } };
  const now = new Date('2026-11-22T12:00:00Z');

  it('admits maxClients per ready server and is AVAILABLE below the limited threshold', () => {
    const status = vpnPoolStatusFor(pool({}, { udp: { clients: 100 }, tcp: { clients: 10 } }), observed, now);
    expect(status).to.include({ capacity: 'AVAILABLE', clients: 110 });
    expect(status.udp).to.deep.equal({
      readyReplicas: 3,
      maxClients: 300,
      address: '203.0.113.7:1194',
      summary: '100/300',
    });
    expect(status.udp).to.not.have.property('clients'); // the API's field
    expect(status.conditions![0]).to.include({ type: 'Ready', status: 'True' });
  });

  it('is LIMITED from limitedPercent, FULL from fullPercent or without a ready server', () => {
    const at = (udp: number, tcp: number, o = observed) =>
      vpnPoolStatusFor(pool({}, { udp: { clients: udp }, tcp: { clients: tcp } }), o, now).capacity;
    expect(at(319, 0)).to.equal('AVAILABLE');
    expect(at(300, 20)).to.equal('LIMITED'); // 80 %
    expect(at(300, 100)).to.equal('FULL');
    expect(at(0, 0, { readyServers: { udp: 0, tcp: 0 }, serviceAddress: {} })).to.equal('FULL');
  });

  it('uses the public host when there is one', () => {
    expect(vpnPoolStatusFor(pool({ publicHost: 'vpn.example.org' }), observed, now).tcp!.address).to.equal(
      'vpn.example.org:443',
    );
  });
});

describe('Access config', () => {
  const box = (
    name: string,
    owner: string,
    address: string | undefined,
    windows: Box['spec']['attackWindows'] = [],
  ): Box => ({
    apiVersion: 'exploitgrid.io/v1alpha1',
    kind: 'Box',
    metadata: {
      name,
      namespace: 'eg',
      uid: name,
      ...(address ? { annotations: { 'exploitgrid.io/address': address } } : {}),
    },
    spec: {
      owner: { id: owner, handle: owner },
      hostname: `${owner}-box`,
      power: 'On',
      image: 'i',
      resources: { memoryMiB: 512, cpuMillis: 500 },
      features: { persistentIp: false },
      secretRef: { name: `${name}-secrets` },
      attackWindows: windows,
    },
  });

  it('maps owners to their boxes and keeps open windows only; boxes without an address are left out', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const config = accessConfigFor(
      [
        box('b1', 'neo', '172.30.1.1', [
          { attackId: 'a1', sourceAddress: '10.8.0.9', until: '2026-11-22T12:10:00Z' },
          { attackId: 'a0', sourceAddress: '10.8.0.8', until: '2026-11-22T11:00:00Z' },
        ]),
        box('b2', 'neo', '172.30.1.2'),
        box('b3', 'trinity', undefined),
      ],
      now,
    );
    expect(config).to.deep.equal({
      owners: { neo: ['172.30.1.1', '172.30.1.2'] },
      windows: [{ source: '10.8.0.9', box: '172.30.1.1', until: '2026-11-22T12:10:00Z' }],
    });
  });
});
