import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { expect } from 'chai';
import { testLogger } from '../../testing/logger.ts';
import { KubernetesRuntime } from './runtime.ts';

const BOXES = '/apis/exploitgrid.io/v1alpha1/namespaces/arena/boxes';
const POOLS = '/apis/exploitgrid.io/v1alpha1/namespaces/arena/vpnpools';
const A = '0c7d5f4e-1111-4222-8333-444455556666';
const B = '0c7d5f4e-2222-4222-8333-444455556666';
const C = '0c7d5f4e-3333-4222-8333-444455556666';

const box = (id: string, phase: string, ip?: string) => ({
  apiVersion: 'exploitgrid.io/v1alpha1',
  kind: 'Box',
  metadata: {
    name: `box-${id}`,
    namespace: 'arena',
    uid: `uid-${id}`,
    labels: { 'exploitgrid.io/box-id': id },
  },
  spec: {},
  status: { phase, ...(ip ? { ip } : {}) },
});

/**
 * An API server that answers only what the runtime's watches ask (lists and watches of Boxes
 * and VpnPools; the pool itself is missing), so a test decides when a watch ends and how: the
 * `410 Gone` an API server sends when the version a watch resumes from was compacted away.
 */
class FakeApiServer {
  boxes: object[] = [];
  resourceVersion = 1;
  boxLists = 0;
  readonly boxWatches: { resourceVersion: string | null; response: http.ServerResponse }[] = [];
  readonly #open = new Set<http.ServerResponse>();
  readonly #server = http.createServer((request, response) => this.#answer(request, response));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const response of this.#open) response.end();
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #answer(request: http.IncomingMessage, response: http.ServerResponse): void {
    const url = new URL(request.url!, 'http://api');
    const json = (status: number, body: object): void =>
      void response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const watching = url.searchParams.get('watch') === 'true';
    if (url.pathname === BOXES && !watching) {
      this.boxLists++;
      return json(200, {
        apiVersion: 'exploitgrid.io/v1alpha1',
        kind: 'BoxList',
        metadata: { resourceVersion: String(this.resourceVersion) },
        items: this.boxes,
      });
    }
    if (url.pathname === POOLS && !watching)
      return json(200, { kind: 'VpnPoolList', metadata: { resourceVersion: '1' }, items: [] });
    if ((url.pathname === BOXES || url.pathname === POOLS) && watching) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
      this.#open.add(response);
      response.on('close', () => this.#open.delete(response));
      if (url.pathname === BOXES)
        this.boxWatches.push({ resourceVersion: url.searchParams.get('resourceVersion'), response });
      return;
    }
    json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
  }
}

const until = async (what: string, check: () => boolean, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('the kubernetes runtime’s Box watch', () => {
  let api: FakeApiServer;
  let runtime: KubernetesRuntime;
  let changed: string[];

  beforeEach(async () => {
    api = new FakeApiServer();
    const server = await api.start();
    const config = new k8s.KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'fake', server, skipTLSVerify: true }],
      users: [{ name: 'fake', token: 'token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
      currentContext: 'fake',
    });
    runtime = new KubernetesRuntime({
      config,
      namespace: 'arena',
      poolName: 'arena',
      agentPort: 0,
      agentHost: '127.0.0.1',
      logger: testLogger,
    });
    changed = [];
    runtime.events.on('boxChanged', (id) => changed.push(id));
  });
  afterEach(async () => {
    await runtime.close();
    await api.stop();
  });

  it('lists again after 410 Gone: what changed or went meanwhile reaches boxChanged, what did not stays quiet', async () => {
    api.boxes = [box(A, 'Provisioning'), box(B, 'Running', '172.30.1.5'), box(C, 'Stopped')];
    await runtime.start();
    // Not ready without its pool, and says why; the watches run anyway.
    expect(runtime.status().reason).to.include('Waiting for the VPN pool arena');
    await until('the first watch', () => api.boxWatches.length === 1);
    expect(api.boxWatches[0]!.resourceVersion).to.equal('1');
    expect(changed.sort()).to.deep.equal([A, B, C]);
    changed = [];

    // Meanwhile A started, B went, C stayed; the API server compacted the versions the watch had.
    api.boxes = [box(A, 'Running', '172.30.1.4'), box(C, 'Stopped')];
    api.resourceVersion = 7;
    api.boxWatches[0]!.response.end(
      `${JSON.stringify({
        type: 'ERROR',
        object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 },
      })}\n`,
    );
    await until('a watch from the new list', () => api.boxWatches.length === 2);
    expect(api.boxLists).to.equal(2);
    expect(api.boxWatches[1]!.resourceVersion).to.equal('7');
    expect(changed.sort()).to.deep.equal([A, B]);
  });

  it('resumes from the last version after a watch simply ended, without listing again', async () => {
    api.boxes = [box(A, 'Running', '172.30.1.4')];
    await runtime.start();
    await until('the first watch', () => api.boxWatches.length === 1);
    changed = [];
    api.boxWatches[0]!.response.end();
    await until('the watch again', () => api.boxWatches.length === 2, 10_000);
    expect(api.boxLists).to.equal(1);
    expect(api.boxWatches[1]!.resourceVersion).to.equal('1');
    // A change arrives on the resumed watch.
    api.boxWatches[1]!.response.write(
      `${JSON.stringify({ type: 'MODIFIED', object: { ...box(A, 'Crashed'), metadata: { ...box(A, 'Crashed').metadata, resourceVersion: '9' } } })}\n`,
    );
    await until('boxChanged', () => changed.length === 1);
    expect(changed).to.deep.equal([A]);
  });
});
