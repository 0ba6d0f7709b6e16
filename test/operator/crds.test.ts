import * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import { installCrds, projectCrds, startControlPlane, type ControlPlane } from '../support/kube.ts';

const GROUP = 'exploitgrid.io';
const VERSION = 'v1alpha1';
const NAMESPACE = 'default';

/**
 * The CRDs in crds/ installed into a real kube-apiserver: they are accepted (structural), their
 * defaults apply, their validation refuses bad resources with the field named, and the printer
 * columns show what an engineer needs with `kubectl get`.
 */
describe('CRDs on a real API server', function () {
  this.timeout(120_000);
  let plane: ControlPlane;
  let objects: k8s.CustomObjectsApi;

  before(async function () {
    this.timeout(45 * 60_000); // the first run builds kube-apiserver and etcd
    plane = await startControlPlane();
    const config = new k8s.KubeConfig();
    config.loadFromFile(plane.kubeconfig);
    objects = config.makeApiClient(k8s.CustomObjectsApi);
    await installCrds(plane.kubeconfig, await projectCrds());
  });
  after(async () => {
    await plane?.stop();
  });

  const create = (plural: string, body: object) =>
    objects.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NAMESPACE,
      plural,
      body,
    });
  const refusal = async (plural: string, body: object): Promise<string> => {
    try {
      await create(plural, body);
    } catch (err) {
      const e = err as { code?: number; body?: string };
      expect(e.code).to.equal(422);
      return String(e.body);
    }
    throw new Error('the API server accepted it');
  };
  const box = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Box',
    metadata: { name },
    spec: {
      owner: { id: '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11', handle: 'neo' },
      hostname: 'neo-box',
      secretRef: { name: `${name}-secrets` },
      ...spec,
    },
  });
  const pool = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'VpnPool',
    metadata: { name },
    spec: { udp: { clientSubnet: '10.8.0.0/16' }, tcp: { clientSubnet: '10.9.0.0/16' }, ...spec },
  });

  it('takes a Box and fills in its defaults', async () => {
    const made = (await create('boxes', box('neo'))) as { spec: Record<string, unknown> };
    expect(made.spec).to.deep.include({
      power: 'Off',
      image: 'exploit-grid/box-debian:bookworm',
      resources: { memoryMiB: 512, cpuMillis: 500 },
      features: { persistentIp: false },
      attackWindows: [],
    });
  });

  it('refuses a Box with a bad field, naming it', async () => {
    expect(await refusal('boxes', box('bad-host', { hostname: 'Neo_Box' }))).to.include('spec.hostname');
    expect(await refusal('boxes', box('bad-power', { power: 'Maybe' }))).to.include('spec.power');
    expect(await refusal('boxes', box('bad-memory', { resources: { memoryMiB: 1 } }))).to.include(
      'spec.resources.memoryMiB',
    );
    expect(
      await refusal(
        'boxes',
        box('bad-window', {
          attackWindows: [
            { attackId: '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d12', sourceAddress: '10.8.0.999', until: 'soon' },
          ],
        }),
      ),
    )
      .to.include('spec.attackWindows[0].sourceAddress')
      .and.to.include('spec.attackWindows[0].until');
    const { spec } = box('no-owner');
    const withoutOwner = { ...box('no-owner'), spec: { ...spec, owner: undefined } };
    expect(await refusal('boxes', withoutOwner)).to.include('spec.owner');
  });

  it('takes a VpnPool with its defaults and refuses bad thresholds and subnets', async () => {
    const made = (await create('vpnpools', pool('main'))) as {
      spec: Record<string, Record<string, unknown>>;
    };
    expect(made.spec.udp).to.deep.include({
      replicas: 1,
      port: 1194,
      maxClients: 250,
      serviceType: 'LoadBalancer',
    });
    expect(made.spec.thresholds).to.deep.equal({ limitedPercent: 80, fullPercent: 100 });
    expect(
      await refusal(
        'vpnpools',
        pool('bad-thresholds', { thresholds: { limitedPercent: 90, fullPercent: 50 } }),
      ),
    ).to.include('limitedPercent must not exceed fullPercent');
    expect(
      await refusal('vpnpools', pool('bad-subnet', { udp: { clientSubnet: '10.8.0.0/30' } })),
    ).to.include('spec.udp.clientSubnet');
  });

  it('shows Phase, IP, Owner, Ready and Age for boxes, and Capacity, UDP, TCP, Clients for pools', async () => {
    const table = async (plural: string) => {
      const response = await fetchTable(plane, `/apis/${GROUP}/${VERSION}/namespaces/${NAMESPACE}/${plural}`);
      return response.columnDefinitions.map((c) => c.name);
    };
    expect(await table('boxes')).to.deep.equal(['Name', 'Phase', 'IP', 'Owner', 'Ready', 'Age']);
    expect(await table('vpnpools')).to.deep.equal(['Name', 'Capacity', 'UDP', 'TCP', 'Clients', 'Age']);
  });
});

/** A list as `kubectl get` asks for it (server-side printing). */
async function fetchTable(
  plane: ControlPlane,
  url: string,
): Promise<{ columnDefinitions: { name: string }[] }> {
  const config = new k8s.KubeConfig();
  config.loadFromFile(plane.kubeconfig);
  const options: { headers: Record<string, string>; ca?: Buffer } = { headers: {} };
  await config.applyToHTTPSOptions(options);
  const https = await import('node:https');
  return new Promise((resolve, reject) => {
    https
      .get(
        `${plane.server}${url}`,
        {
          ...options,
          headers: { ...options.headers, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
        },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve(JSON.parse(body) as { columnDefinitions: { name: string }[] }));
        },
      )
      .on('error', reject);
  });
}
