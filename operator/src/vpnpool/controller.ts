/**
 * The VpnPool controller: from a pool to its servers (a Deployment each), Services, server and
 * access ConfigMaps and PKI Secret, and its status from the servers' readiness and the clients
 * the API reports. Level-based like the Box controller: a finalizer, server-side apply of pure
 * builders, children applied again only when what they are made of changed.
 */
import { createHash } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ArenaSubnet } from '../box/addresses.ts';
import { openWindows } from '../box/builders.ts';
import type { Box } from '../box/types.ts';
import { statusOf } from '../controller/errors.ts';
import type { Kube } from '../controller/kube.ts';
import type { HandlerResult } from '../controller/queue.ts';
import {
  POOL_FINALIZER,
  POOL_LABELS,
  accessConfigMapFor,
  deploymentFor,
  pkiSecretFor,
  pkiSecretName,
  serverConfigMapFor,
  serverSlices,
  serviceName,
  servicesFor,
  vpnPoolStatusFor,
  accessConfigMapName,
  serverConfigMapName,
  type ObservedPool,
  type VpnServer,
} from './builders.ts';
import { PROTOCOLS, type Protocol, type VpnPool, type VpnPoolStatus } from './types.ts';

export const VPNPOOL_RESOURCE = {
  group: 'exploitgrid.io',
  version: 'v1alpha1',
  plural: 'vpnpools',
  kind: 'VpnPool',
} as const;

export interface VpnPoolControllerOptions {
  kube: Kube;
  logger: Logger;
  arena: ArenaSubnet;
  arenaNetwork: string;
  image: string;
  apiInternalUrl: string;
  /** The service checker's bundle (operator/dist/vpn-checker.cjs). */
  checker: Buffer;
  pools: { get(name: string, namespace: string): VpnPool | undefined };
  boxes: { list(): readonly Box[] };
  deployments: { list(): readonly k8s.V1Deployment[] };
  now?: () => Date;
}

export class VpnPoolController {
  readonly #options: VpnPoolControllerOptions;
  /** Per pool uid and child: a digest of what it was last applied from. */
  readonly #applied = new Map<string, string>();

  constructor(options: VpnPoolControllerOptions) {
    this.#options = options;
  }

  forget(): void {
    this.#applied.clear();
  }

  async reconcile(key: string): Promise<HandlerResult> {
    const slash = key.indexOf('/');
    const [namespace, name] = [key.slice(0, slash), key.slice(slash + 1)];
    const pool = this.#options.pools.get(name, namespace);
    if (!pool) return;
    const { kube, arena } = this.#options;
    if (pool.metadata.deletionTimestamp) return this.#finalize(pool);
    if (!pool.metadata.finalizers?.includes(POOL_FINALIZER)) {
      await kube.patchMetadata(pool, { finalizers: [...(pool.metadata.finalizers ?? []), POOL_FINALIZER] });
    }
    const now = this.#options.now?.() ?? new Date();

    let servers: VpnServer[];
    try {
      servers = serverSlices(pool, arena);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.#writeStatus(
        pool,
        vpnPoolStatusFor(pool, this.#observe(pool, []), now, { reason: 'InvalidSpec', message }),
      );
      return;
    }

    await this.#ensurePki(pool);
    const children: k8s.KubernetesObject[] = [
      serverConfigMapFor(pool, arena, this.#options.apiInternalUrl, this.#options.checker),
      accessConfigMapFor(pool, this.#options.boxes.list(), now),
      ...servicesFor(pool),
      ...servers.map((server) =>
        deploymentFor(pool, server, {
          image: this.#options.image,
          arenaNetwork: this.#options.arenaNetwork,
          arena,
          apiInternalUrl: this.#options.apiInternalUrl,
          checker: this.#options.checker,
        }),
      ),
    ];
    await Promise.all(children.map((child) => this.#applyIfChanged(pool, child)));

    // Servers no longer wanted (fewer replicas).
    const wanted = new Set(servers.map((server) => server.name));
    for (const deployment of this.#deploymentsOf(pool)) {
      const server = deployment.metadata?.name;
      if (server && !wanted.has(server)) {
        await kube.deleteIfPresent('apps/v1', 'Deployment', namespace, server);
        this.#applied.delete(`${pool.metadata.uid}/Deployment/${server}`);
      }
    }

    const observed = this.#observe(pool, servers);
    observed.serviceAddress = await this.#serviceAddresses(pool);
    await this.#writeStatus(pool, vpnPoolStatusFor(pool, observed, now));

    // Look again when the next attack window ends: the access ConfigMap drops it.
    const ends = this.#options.boxes
      .list()
      .flatMap((box) => openWindows(box, now).map((w) => new Date(w.until).getTime()));
    if (ends.length > 0) return { requeueAfterMs: Math.min(...ends) - now.getTime() + 50 };
  }

  #deploymentsOf(pool: VpnPool): k8s.V1Deployment[] {
    return this.#options.deployments
      .list()
      .filter(
        (d) =>
          d.metadata?.namespace === pool.metadata.namespace &&
          d.metadata?.labels?.[POOL_LABELS.pool] === pool.metadata.name,
      );
  }

  #observe(pool: VpnPool, servers: VpnServer[]): ObservedPool {
    const ready = new Set(
      this.#deploymentsOf(pool)
        .filter((d) => (d.status?.readyReplicas ?? 0) >= 1)
        .map((d) => d.metadata?.name),
    );
    const readyServers = { udp: 0, tcp: 0 } as Record<Protocol, number>;
    for (const server of servers) if (ready.has(server.name)) readyServers[server.protocol] += 1;
    return { readyServers, serviceAddress: {} };
  }

  async #serviceAddresses(pool: VpnPool): Promise<Partial<Record<Protocol, string>>> {
    const addresses: Partial<Record<Protocol, string>> = {};
    for (const protocol of PROTOCOLS) {
      try {
        const service = await this.#options.kube.core.readNamespacedService({
          name: serviceName(pool, protocol),
          namespace: pool.metadata.namespace,
        });
        const ingress = service.status?.loadBalancer?.ingress?.[0];
        const address = ingress?.ip ?? ingress?.hostname ?? service.spec?.clusterIP;
        if (address && address !== 'None') addresses[protocol] = address;
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
    }
    return addresses;
  }

  /** The PKI is made once: created when missing, never replaced (players' certificates hang on it). */
  async #ensurePki(pool: VpnPool): Promise<void> {
    const { kube } = this.#options;
    if (await kube.exists('v1', 'Secret', pool.metadata.namespace, pkiSecretName(pool))) return;
    try {
      await kube.core.createNamespacedSecret({
        namespace: pool.metadata.namespace,
        body: await pkiSecretFor(pool),
      });
      this.#options.logger.info({ pool: pool.metadata.name }, 'Created VpnPool PKI Secret');
    } catch (error) {
      if (statusOf(error) !== 409) throw error; // made meanwhile: keep that one
    }
  }

  async #applyIfChanged(pool: VpnPool, child: k8s.KubernetesObject): Promise<void> {
    const id = `${pool.metadata.uid}/${child.kind}/${child.metadata?.name}`;
    const digest = createHash('sha256').update(JSON.stringify(child)).digest('hex');
    if (this.#applied.get(id) === digest) return;
    await this.#options.kube.apply(child);
    this.#applied.set(id, digest);
  }

  async #writeStatus(pool: VpnPool, status: VpnPoolStatus): Promise<void> {
    const strip = (s: VpnPoolStatus | undefined) =>
      JSON.stringify({
        ...s,
        udp: { ...s?.udp, clients: undefined },
        tcp: { ...s?.tcp, clients: undefined },
        conditions: (s?.conditions ?? []).map(({ lastTransitionTime: _, ...rest }) => rest),
      });
    if (pool.status && strip(pool.status) === strip(status)) return;
    await this.#options.kube.applyStatus(
      VPNPOOL_RESOURCE,
      pool.metadata.namespace,
      pool.metadata.name,
      status,
    );
  }

  async #finalize(pool: VpnPool): Promise<HandlerResult> {
    if (!pool.metadata.finalizers?.includes(POOL_FINALIZER)) return;
    const { kube } = this.#options;
    const namespace = pool.metadata.namespace;
    const children: [string, string, string][] = [
      ...this.#deploymentsOf(pool).map((d): [string, string, string] => [
        'apps/v1',
        'Deployment',
        d.metadata!.name!,
      ]),
      ...PROTOCOLS.map((p): [string, string, string] => ['v1', 'Service', serviceName(pool, p)]),
      ['v1', 'ConfigMap', serverConfigMapName(pool)],
      ['v1', 'ConfigMap', accessConfigMapName(pool)],
      ['v1', 'Secret', pkiSecretName(pool)],
    ];
    for (const [apiVersion, kind, name] of children)
      await kube.deleteIfPresent(apiVersion, kind, namespace, name);
    try {
      await kube.patchMetadata(pool, {
        finalizers: pool.metadata.finalizers.filter((f) => f !== POOL_FINALIZER),
      });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
    for (const id of this.#applied.keys())
      if (id.startsWith(`${pool.metadata.uid}/`)) this.#applied.delete(id);
    this.#options.logger.info(
      { pool: pool.metadata.name },
      'Deleted the VpnPool’s servers, Services and ConfigMaps',
    );
  }
}
