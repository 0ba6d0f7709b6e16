/**
 * The operator: informers for Boxes, KubeVirt VirtualMachines and VpnPools in one namespace,
 * and, while this replica leads (Lease), the Box and VpnPool controllers working through their
 * queues. Every replica serves /metrics, /healthz and /readyz; only the leader writes.
 */
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { parseSubnet, toAddress } from './box/addresses.ts';
import { ANNOTATIONS, LABELS, MANAGER, VM_RESOURCE, type VirtualMachine } from './box/builders.ts';
import { BOX_RESOURCE, BoxController, keyOf } from './box/controller.ts';
import {
  DATA_VOLUME_RESOURCE,
  DEFAULT_BOX_IMAGE,
  DEFAULT_DISK_SIZE,
  DISK_ANNOTATIONS,
  type DataVolume,
  type DiskSettings,
} from './box/disk.ts';
import { SpareController } from './box/spare-controller.ts';
import { SPARE_STATE } from './box/spares.ts';
import { loadCatalogue } from './catalogue/catalogue.ts';
import { DEFAULT_LOADOUT_SIZE, type LoadoutSize } from './catalogue/loadout.ts';
import { statusOf } from './controller/errors.ts';
import type { Box } from './box/types.ts';
import { POOL_LABELS, routesFor, serverSlices } from './vpnpool/builders.ts';
import { VPNPOOL_RESOURCE, VpnPoolController } from './vpnpool/controller.ts';
import type { VpnPool } from './vpnpool/types.ts';
import { serveOperatorHttp } from './controller/http.ts';
import { describeError } from './controller/errors.ts';
import { Informer, customResourceInformer } from './controller/informer.ts';
import { Kube, reuseConnections } from './controller/kube.ts';
import { LeaderElector } from './controller/leader.ts';
import { Metrics } from './controller/metrics.ts';
import { WorkQueue, type HandlerResult } from './controller/queue.ts';

/** What a pool's access ConfigMap takes from a Box (builders.ts, accessConfigFor). */
const accessInputs = (box: Box) => [
  box.spec.owner.id,
  box.metadata.annotations?.[ANNOTATIONS.address],
  box.spec.attackWindows,
  Boolean(box.metadata.deletionTimestamp),
];

export interface OperatorOptions {
  config: k8s.KubeConfig;
  namespace: string;
  arenaNetwork: string;
  arenaSubnet: string;
  /** Where boxes report (default: http://<the first router address>/). */
  agentApiUrl?: string;
  /**
   * The OpenVPN servers' image, where they reach the API's internal Service, and their service checker
   * (operator/dist/vpn-checker.cjs).
   */
  vpn: { image: string; apiInternalUrl: string; checkerBundle: Buffer };
  agentBundle: Buffer;
  http: { port: number; host: string };
  leaderElection: {
    enabled: boolean;
    identity: string;
    leaseName?: string;
    leaseDurationMs?: number;
    retryMs?: number;
  };
  logger: Logger;
  /** Boxes reconciled at once. */
  concurrency?: number;
  /** Every object is looked at again this often, whatever happened (drift in children). */
  resyncMs?: number;
  /** The boxes' disks (BOX_DISK_SIZE, BOX_STORAGE_CLASS); 5Gi of the default StorageClass when absent. */
  disk?: DiskSettings;
  /**
   * Prepared spare disks (BOX_SPARES, BOX_IMAGE, BOX_LOADOUT_IN, BOX_LOADOUT_UP): none when absent. The
   * image and loadout sizes must be those the API gives new Boxes, or no Box takes a spare.
   */
  spares?: { count: number; image: string; loadoutSize?: LoadoutSize; prepareTimeoutMs?: number };
}

export class Operator {
  readonly metrics = new Metrics();
  readonly #options: OperatorOptions;
  readonly #kube: Kube;
  readonly #boxes: Informer<Box>;
  readonly #vms: Informer<VirtualMachine & k8s.KubernetesObject>;
  readonly #pools: Informer<VpnPool>;
  readonly #deployments: Informer<k8s.V1Deployment & k8s.KubernetesObject>;
  readonly #disks: Informer<DataVolume & k8s.KubernetesObject>;
  readonly #elector: LeaderElector | undefined;
  readonly #boxController: BoxController;
  readonly #poolController: VpnPoolController;
  readonly #spareController: SpareController;
  /** Per Box and per pool, what the other controller depends on, as last seen (see #changed). */
  readonly #boxAccess = new Map<string, string>();
  readonly #poolRoutes = new Map<string, string>();
  #boxQueue: WorkQueue | undefined;
  #poolQueue: WorkQueue | undefined;
  #spareQueue: WorkQueue | undefined;
  #http: { port: number; close: () => Promise<void> } | undefined;
  #resync: NodeJS.Timeout | undefined;
  #leading = false;
  #synced = false;

  constructor(options: OperatorOptions) {
    this.#options = options;
    const { namespace, logger } = options;
    const config = reuseConnections(options.config);
    this.#kube = new Kube(config);
    const subnet = parseSubnet(options.arenaSubnet);
    this.#boxes = customResourceInformer<Box>(config, BOX_RESOURCE, {
      namespace,
      logger,
      onChange: (box, event) => {
        this.#boxQueue?.add(keyOf(box));
        // Who may reach which box is in the pools' access ConfigMaps: they are looked at again
        // when that changed, not for every status write (500 boxes starting would mean 500
        // pool reconciles over every box).
        if (this.#changed(this.#boxAccess, keyOf(box), event, () => accessInputs(box))) this.#enqueuePools();
      },
    });
    this.#pools = customResourceInformer<VpnPool>(config, VPNPOOL_RESOURCE, {
      namespace,
      logger,
      onChange: (pool, event) => {
        this.#poolQueue?.add(keyOf(pool));
        // The boxes' routes to the VPN client slices come from the pools' specs; a pool's status
        // changes with every VPN client and must not wake every box.
        if (this.#changed(this.#poolRoutes, keyOf(pool), event, () => pool.spec)) this.#enqueueBoxes();
      },
    });
    const apps = config.makeApiClient(k8s.AppsV1Api);
    const poolSelector = `${LABELS.managedBy}=${MANAGER},${POOL_LABELS.pool}`;
    this.#deployments = new Informer<k8s.V1Deployment & k8s.KubernetesObject>(config, {
      kind: 'Deployment',
      path: `/apis/apps/v1/namespaces/${namespace}/deployments`,
      labelSelector: poolSelector,
      list: async () =>
        (await apps.listNamespacedDeployment({
          namespace,
          labelSelector: poolSelector,
        })) as k8s.KubernetesListObject<k8s.V1Deployment & k8s.KubernetesObject>,
      logger,
      onChange: (deployment) => {
        const pool = deployment.metadata?.labels?.[POOL_LABELS.pool];
        if (pool) this.#poolQueue?.add(`${namespace}/${pool}`);
      },
    });
    this.#vms = customResourceInformer<VirtualMachine & k8s.KubernetesObject>(config, VM_RESOURCE, {
      namespace,
      labelSelector: `${LABELS.managedBy}=${MANAGER}`,
      logger,
      onChange: (vm, event) => {
        if (vm.metadata?.labels?.[SPARE_STATE]) this.#enqueueSpares();
        const box = vm.metadata?.labels?.[LABELS.box];
        if (!box) return;
        // A VM deleted under a Box that still wants it: applied again (not just looked at).
        if (event === 'delete') this.#boxController.forget(vm.metadata?.ownerReferences?.[0]?.uid);
        this.#boxQueue?.add(`${namespace}/${box}`);
      },
    });
    this.#disks = customResourceInformer<DataVolume & k8s.KubernetesObject>(config, DATA_VOLUME_RESOURCE, {
      namespace,
      labelSelector: `${LABELS.managedBy}=${MANAGER}`,
      logger,
      onChange: (disk, event) => {
        // Spares come and go, and a spare a Box took (it keeps its loadout's note) is one fewer; a box's own
        // disk filling up (CDI's progress) is nothing to the spares.
        if (
          event === 'delete' ||
          disk.metadata?.labels?.[SPARE_STATE] ||
          disk.metadata?.annotations?.[DISK_ANNOTATIONS.loadout]
        )
          this.#enqueueSpares();
        const box = disk.metadata?.labels?.[LABELS.box];
        if (box) this.#boxQueue?.add(`${namespace}/${box}`);
      },
    });
    const diskSettings = options.disk ?? { size: DEFAULT_DISK_SIZE };
    const firstRouter = toAddress(subnet.network + 10);
    this.#boxController = new BoxController({
      kube: this.#kube,
      logger: logger.child({ controller: 'box' }),
      arenaNetwork: options.arenaNetwork,
      arenaSubnet: subnet,
      agentApiUrl: () => options.agentApiUrl ?? `http://${firstRouter}/`,
      routes: () =>
        this.#pools.list().flatMap((pool) => {
          try {
            return routesFor(serverSlices(pool, subnet));
          } catch {
            return []; // a pool with a bad spec says so in its status
          }
        }),
      agentBundle: options.agentBundle,
      boxes: { get: (name, ns) => this.#boxes.get(name, ns), list: () => this.#boxes.list() },
      vms: { get: (name, ns) => this.#vms.get(name, ns) },
      disks: { get: (name, ns) => this.#disks.get(name, ns), list: () => this.#disks.list() },
      disk: diskSettings,
    });
    this.#spareController = new SpareController({
      kube: this.#kube,
      logger: logger.child({ controller: 'spare' }),
      namespace,
      count: options.spares?.count ?? 0,
      image: options.spares?.image ?? DEFAULT_BOX_IMAGE,
      disk: diskSettings,
      loadoutSize: options.spares?.loadoutSize ?? DEFAULT_LOADOUT_SIZE,
      catalogue: options.spares?.count ? loadCatalogue() : [],
      ...(options.spares?.prepareTimeoutMs ? { prepareTimeoutMs: options.spares.prepareTimeoutMs } : {}),
      disks: { list: () => this.#disks.list() },
      vms: { get: (name, ns) => this.#vms.get(name, ns), list: () => this.#vms.list() },
      instancePhase: async (name) => {
        try {
          const vmi = (await this.#kube.objects.read({
            apiVersion: 'kubevirt.io/v1',
            kind: 'VirtualMachineInstance',
            metadata: { name, namespace },
          })) as { status?: { phase?: string } };
          return vmi.status?.phase;
        } catch (error) {
          if (statusOf(error) === 404) return undefined;
          throw error;
        }
      },
    });
    this.#poolController = new VpnPoolController({
      kube: this.#kube,
      logger: logger.child({ controller: 'vpnpool' }),
      arena: subnet,
      arenaNetwork: options.arenaNetwork,
      image: options.vpn.image,
      apiInternalUrl: options.vpn.apiInternalUrl,
      checker: options.vpn.checkerBundle,
      pools: { get: (name, ns) => this.#pools.get(name, ns) },
      boxes: { list: () => this.#boxes.list() },
      deployments: { list: () => this.#deployments.list() },
    });
    if (options.leaderElection.enabled) {
      this.#elector = new LeaderElector(config, {
        namespace,
        name: options.leaderElection.leaseName ?? 'exploit-grid-operator',
        identity: options.leaderElection.identity,
        leaseDurationMs: options.leaderElection.leaseDurationMs,
        retryMs: options.leaderElection.retryMs,
        logger,
        onStartedLeading: () => this.#startLeading(),
        onStoppedLeading: () => void this.#stopLeading(),
      });
    }
  }

  get #informers(): Pick<Informer<k8s.KubernetesObject>, 'start' | 'synced' | 'stop'>[] {
    return [this.#boxes, this.#vms, this.#pools, this.#deployments, this.#disks];
  }

  get leading(): boolean {
    return this.#leading;
  }

  get httpPort(): number | undefined {
    return this.#http?.port;
  }

  async start(): Promise<void> {
    const { logger } = this.#options;
    this.#http = await serveOperatorHttp(this.#options.http.port, this.#options.http.host, this.metrics, {
      ready: () =>
        this.#synced
          ? { ok: true, reason: this.#leading ? 'leading' : 'following' }
          : { ok: false, reason: 'caches not synced yet' },
    });
    await Promise.all(this.#informers.map((informer) => informer.start()));
    await Promise.all(this.#informers.map((informer) => informer.synced()));
    this.#synced = true;
    logger.info({ namespace: this.#options.namespace, port: this.#http.port }, 'Started the operator');
    if (this.#elector) this.#elector.start();
    else this.#startLeading();
    const resyncMs = this.#options.resyncMs ?? 5 * 60_000;
    this.#resync = setInterval(() => {
      this.#boxController.forget();
      this.#poolController.forget();
      this.#enqueueBoxes();
      this.#enqueuePools();
      this.#enqueueSpares();
    }, resyncMs);
    this.#resync.unref();
  }

  /** Graceful: work in flight finishes, the Lease is released, watches and the HTTP server close. */
  async stop(): Promise<void> {
    clearInterval(this.#resync);
    await this.#stopLeading();
    await this.#elector?.stop();
    await Promise.all(this.#informers.map((informer) => informer.stop()));
    await this.#http?.close();
    this.#options.logger.info('Stopped the operator');
  }

  #startLeading(): void {
    if (this.#leading) return;
    this.#leading = true;
    this.metrics.leader.set(1);
    // Another replica may have led meanwhile: what this one applied before proves nothing now.
    this.#boxController.forget();
    this.#poolController.forget();
    this.#boxQueue = this.#queue('box', (key) => this.#boxController.reconcile(key));
    this.#poolQueue = this.#queue('vpnpool', (key) => this.#poolController.reconcile(key));
    this.#spareQueue = this.#queue('spare', () => this.#spareController.reconcile());
    this.#enqueuePools();
    this.#enqueueBoxes();
    this.#enqueueSpares();
  }

  /** A controller's work queue, measured. */
  #queue(controller: string, reconcile: (key: string) => Promise<HandlerResult>): WorkQueue {
    const { logger } = this.#options;
    const queue: WorkQueue = new WorkQueue(
      async (key) => {
        const end = this.metrics.reconcileSeconds.startTimer({ controller });
        const endQuantiles = this.metrics.reconcileQuantiles.startTimer({ controller });
        try {
          const result = await reconcile(key);
          this.metrics.reconciles.inc({ controller, result: 'success' });
          return result;
        } catch (error) {
          this.metrics.reconciles.inc({ controller, result: 'error' });
          throw error;
        } finally {
          end();
          endQuantiles();
          this.metrics.queueDepth.set({ controller }, queue.depth);
        }
      },
      { concurrency: this.#options.concurrency ?? 4 },
      (key, error, retryInMs) =>
        logger.warn({ controller, key, error: describeError(error), retryInMs }, 'Failed to reconcile'),
    );
    return queue;
  }

  async #stopLeading(): Promise<void> {
    if (!this.#leading) return;
    this.#leading = false;
    this.metrics.leader.set(0);
    const queues = [this.#boxQueue, this.#poolQueue, this.#spareQueue];
    this.#boxQueue = undefined;
    this.#poolQueue = undefined;
    this.#spareQueue = undefined;
    await Promise.all(queues.map((queue) => queue?.stop()));
  }

  /** Whether what `inputs` picks out of an object changed since the last event (a delete always). */
  #changed(
    seen: Map<string, string>,
    key: string,
    event: 'add' | 'update' | 'delete',
    inputs: () => unknown,
  ): boolean {
    if (event === 'delete') {
      seen.delete(key);
      return true;
    }
    const now = JSON.stringify(inputs());
    if (seen.get(key) === now) return false;
    seen.set(key, now);
    return true;
  }

  #enqueueBoxes(): void {
    for (const box of this.#boxes.list()) this.#boxQueue?.add(keyOf(box));
  }

  #enqueuePools(): void {
    for (const pool of this.#pools.list()) this.#poolQueue?.add(keyOf(pool));
  }

  /** The spares are one piece of work for the namespace. */
  #enqueueSpares(): void {
    this.#spareQueue?.add(`${this.#options.namespace}/spares`);
  }
}
