import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parseSubnet } from '../box/addresses.ts';
import type { Box } from '../box/types.ts';
import {
  CHECKER_FILE,
  CONFIG_DIGEST_ANNOTATION,
  accessConfigFor,
  accessConfigMapFor,
  deploymentFor,
  pkiSecretFor,
  routesFor,
  serverConfigMapFor,
  serverSlices,
  servicesFor,
  vpnPoolStatusFor,
  type DeploymentOptions,
  type ObservedPool,
} from './builders.ts';
import { SCRIPTS } from './scripts.ts';
import type { VpnPool } from './types.ts';

const run = promisify(execFile);

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

describe('VpnPool children', () => {
  const options: DeploymentOptions = {
    image: 'registry.example/exploit-grid/openvpn:1',
    arenaNetwork: 'arena',
    arena,
    apiInternalUrl: 'http://eg-api-internal:8089',
    checker: Buffer.from('// the service checker\n'),
  };
  const servers = serverSlices(pool(), arena);
  const udp1 = servers[1]!;

  it('runs each server as one pod of its own Deployment, owned by the pool, on the arena at its router address', () => {
    const deployment = deploymentFor(pool(), udp1, options);
    expect(deployment.metadata).to.deep.include({ name: 'arena-udp-1', namespace: 'eg' });
    expect(deployment.metadata!.labels).to.deep.include({
      'app.kubernetes.io/name': 'exploit-grid',
      'app.kubernetes.io/instance': 'arena',
      'app.kubernetes.io/component': 'vpn-server',
      'app.kubernetes.io/part-of': 'exploit-grid',
      'app.kubernetes.io/managed-by': 'exploit-grid-operator',
      'exploitgrid.io/vpnpool': 'arena',
      'exploitgrid.io/vpn-server': 'arena-udp-1',
    });
    expect(deployment.spec!.template.metadata!.labels).to.deep.equal(deployment.metadata!.labels);
    expect(deployment.metadata!.ownerReferences).to.deep.equal([
      {
        apiVersion: 'exploitgrid.io/v1alpha1',
        kind: 'VpnPool',
        name: 'arena',
        uid: 'u1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(deployment.spec).to.deep.include({ replicas: 1, strategy: { type: 'Recreate' } });
    const template = deployment.spec!.template;
    expect(deployment.spec!.selector.matchLabels).to.deep.equal({
      'exploitgrid.io/vpn-server': 'arena-udp-1',
    });
    expect(template.metadata!.labels).to.deep.include(deployment.spec!.selector.matchLabels);
    expect(JSON.parse(template.metadata!.annotations!['k8s.v1.cni.cncf.io/networks']!)).to.deep.equal([
      { name: 'arena', interface: 'arena0', ips: ['172.30.0.11/16'] },
    ]);

    const container = template.spec!.containers[0]!;
    expect(container.image).to.equal(options.image);
    expect(container.env).to.deep.include.members([
      { name: 'SERVER_NAME', value: 'arena-udp-1' },
      { name: 'PROTOCOL', value: 'udp' },
      { name: 'CLIENT_SUBNET', value: '10.8.64.0/18' },
      { name: 'ROUTER_ADDRESS', value: '172.30.0.11' },
      { name: 'API_INTERNAL_URL', value: 'http://eg-api-internal:8089' },
    ]);
    expect(container.ports).to.deep.equal([{ name: 'vpn', containerPort: 1194, protocol: 'UDP' }]);
    // Not privileged: NET_ADMIN (tun, routes, nftables) and the port below 1024, nothing else.
    expect(container.securityContext).to.deep.equal({
      capabilities: { drop: ['ALL'], add: ['NET_ADMIN', 'NET_BIND_SERVICE'] },
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
    });
    expect(container.readinessProbe!.exec!.command).to.deep.equal([
      '/bin/sh',
      '/etc/exploit-grid/server/ready.sh',
    ]);
    const volumes = Object.fromEntries(template.spec!.volumes!.map((v) => [v.name, v]));
    expect(volumes.pki!.secret!.secretName).to.equal('arena-pki');
    expect(volumes.server!.configMap!.name).to.equal('arena-server');
    expect(volumes.access!.configMap!.name).to.equal('arena-access');
    expect(volumes.tun!.hostPath).to.deep.equal({ path: '/dev/net/tun', type: 'CharDevice' });
    const mounts = Object.fromEntries(container.volumeMounts!.map((m) => [m.name, m.mountPath]));
    expect(mounts).to.deep.equal({
      pki: '/etc/exploit-grid/pki',
      server: '/etc/exploit-grid/server',
      access: '/etc/exploit-grid/access',
      tun: '/dev/net/tun',
      run: '/run',
    });
    expect(
      deploymentFor(pool({ pkiSecretName: 'vpn-ca' }), udp1, options).spec!.template.spec!.volumes![0]!,
    ).to.have.nested.property('secret.secretName', 'vpn-ca');
  });

  it('restarts a server when its configuration changes, and only then', () => {
    const digest = (p: VpnPool, server = udp1, o = options) =>
      deploymentFor(p, server, o).spec!.template.metadata!.annotations![CONFIG_DIGEST_ANNOTATION];
    const base = pool();
    expect(digest(base)).to.match(/^[0-9a-f]{16}$/);
    expect(digest(pool())).to.equal(digest(base));
    expect(digest(pool({ udp: { ...base.spec.udp, maxClients: 50 } }))).to.not.equal(digest(base));
    expect(digest(base, udp1, { ...options, apiInternalUrl: 'http://other:8089' })).to.not.equal(
      digest(base),
    );
    // A new service checker is what the server runs too.
    expect(digest(base, udp1, { ...options, checker: Buffer.from('// another checker\n') })).to.not.equal(
      digest(base),
    );
    // Another protocol's settings are not this server's configuration.
    expect(digest(pool({ tcp: { ...base.spec.tcp, maxClients: 7 } }))).to.equal(digest(base));
    expect(digest(base, udp1, { ...options, image: 'other' })).to.equal(digest(base));
  });

  it('puts a Service per protocol in front of that protocol’s servers', () => {
    const services = servicesFor(pool({ tcp: { ...pool().spec.tcp, serviceType: 'NodePort' } }));
    expect(services.map((s) => [s.metadata!.name, s.spec!.type, s.spec!.ports])).to.deep.equal([
      ['arena-udp', 'LoadBalancer', [{ name: 'openvpn-udp', port: 1194, targetPort: 1194, protocol: 'UDP' }]],
      ['arena-tcp', 'NodePort', [{ name: 'openvpn-tcp', port: 443, targetPort: 443, protocol: 'TCP' }]],
    ]);
    expect(services[1]!.spec!.selector).to.deep.equal({
      'exploitgrid.io/vpnpool': 'arena',
      'exploitgrid.io/vpn-protocol': 'tcp',
    });
    // The selector matches the tcp servers' pods, not the udp ones.
    const podLabels = (i: number) =>
      deploymentFor(pool(), servers[i]!, options).spec!.template.metadata!.labels!;
    expect(podLabels(3)).to.deep.include(services[1]!.spec!.selector);
    expect(podLabels(0)).to.not.deep.include(services[1]!.spec!.selector);
  });

  it('configures each server for its slice with tls-crypt, the CRL, short renegotiation and the hooks', () => {
    const configMap = serverConfigMapFor(pool(), arena, options.apiInternalUrl, options.checker);
    expect(configMap.metadata!.name).to.equal('arena-server');
    expect(Object.keys(configMap.data!).sort()).to.deep.equal(
      [
        ...Object.keys(SCRIPTS),
        CHECKER_FILE,
        'arena-udp-0.conf',
        'arena-udp-1.conf',
        'arena-udp-2.conf',
        'arena-tcp-0.conf',
      ].sort(),
    );
    for (const [name, script] of Object.entries(SCRIPTS)) expect(configMap.data![name]).to.equal(script);
    expect(configMap.data![CHECKER_FILE]).to.equal('// the service checker\n');
    const lines = configMap.data!['arena-udp-1.conf']!.split('\n');
    expect(lines).to.include.members([
      'port 1194',
      'proto udp4',
      'topology subnet',
      'server 10.8.64.0 255.255.192.0',
      'push "route 172.30.0.0 255.255.0.0"',
      'max-clients 100',
      'tls-crypt /etc/exploit-grid/pki/tls-crypt.key',
      'crl-verify /etc/exploit-grid/pki/crl.pem',
      'reneg-sec 600',
      'data-ciphers AES-256-GCM:AES-128-GCM:CHACHA20-POLY1305',
      'remote-cert-tls client',
      'setenv SERVER_NAME arena-udp-1',
      'setenv API_INTERNAL_URL http://eg-api-internal:8089',
      'tmp-dir /run/openvpn',
      'client-connect "/bin/sh /etc/exploit-grid/server/client-connect.sh"',
      'client-disconnect "/bin/sh /etc/exploit-grid/server/client-disconnect.sh"',
    ]);
    // Routed, one session per certificate.
    expect(lines.join('\n')).to.not.match(/duplicate-cn|client-to-client|redirect-gateway/);
    expect(configMap.data!['arena-tcp-0.conf']).to.include('proto tcp4-server\n');
    expect(configMap.data!['arena-tcp-0.conf']).to.include('server 10.9.0.0 255.255.255.0\n');
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
      loadout: [],
      ownerAddresses: [],
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

  it('writes the access list into the pool’s access ConfigMap', () => {
    const configMap = accessConfigMapFor(
      pool(),
      [
        box('b1', 'neo', '172.30.1.1', [
          { attackId: 'a1', sourceAddress: '10.8.0.9', until: '2026-11-22T12:10:00Z' },
        ]),
      ],
      new Date('2026-11-22T12:10:00Z'), // the window ends now
    );
    expect(configMap.metadata).to.deep.include({ name: 'arena-access', namespace: 'eg' });
    expect(configMap.metadata!.labels).to.deep.include({ 'exploitgrid.io/vpnpool': 'arena' });
    expect(JSON.parse(configMap.data!['access.json']!)).to.deep.equal({
      owners: { neo: ['172.30.1.1'] },
      windows: [],
    });
  });
});

describe('VpnPool PKI Secret', () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(path.join(os.tmpdir(), 'eg-pool-pki-'))));
  after(() => rm(dir, { recursive: true, force: true }));
  const openssl = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run('openssl', args);
      return `${stdout}${stderr}`;
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      return `FAILED ${e.stdout ?? ''} ${e.stderr ?? ''}`;
    }
  };

  it('holds a CA, the server certificate it signed, an empty CRL it signed, tls-crypt key and hook token', async () => {
    const secret = await pkiSecretFor(pool());
    expect(secret.metadata).to.deep.include({ name: 'arena-pki', namespace: 'eg' });
    expect(secret.metadata!.ownerReferences![0]).to.include({ kind: 'VpnPool', controller: true });
    const data = secret.stringData!;
    expect(Object.keys(data).sort()).to.deep.equal(
      ['ca.crt', 'ca.key', 'crl.pem', 'hook-token', 'server.crt', 'server.key', 'tls-crypt.key'].sort(),
    );
    for (const [name, content] of Object.entries(data)) await writeFile(path.join(dir, name), content);
    const file = (name: string) => path.join(dir, name);

    expect(
      await openssl('verify', '-CAfile', file('ca.crt'), '-purpose', 'sslserver', file('server.crt')),
    ).to.include(': OK');
    expect(await openssl('x509', '-in', file('server.crt'), '-noout', '-subject')).to.include(
      'CN = arena.vpn.exploitgrid.io',
    );
    // The key is the certificate's.
    expect(await openssl('pkey', '-in', file('server.key'), '-pubout')).to.equal(
      await openssl('x509', '-in', file('server.crt'), '-noout', '-pubkey'),
    );
    const crl = await openssl('crl', '-in', file('crl.pem'), '-CAfile', file('ca.crt'), '-noout', '-text');
    expect(crl).to.include('verify OK');
    expect(crl).to.include('No Revoked Certificates');
    expect(data['tls-crypt.key']).to.include('-----BEGIN OpenVPN Static key V1-----');
    expect(Buffer.from(data['hook-token']!, 'base64url')).to.have.length(32);

    const other = await pkiSecretFor(pool({ pkiSecretName: 'vpn-ca' }));
    expect(other.metadata!.name).to.equal('vpn-ca');
    const again = other.stringData!;
    expect(again['hook-token']).to.not.equal(data['hook-token']);
    expect(again['ca.crt']).to.not.equal(data['ca.crt']);
  });
});
