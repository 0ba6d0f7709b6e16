/**
 * The operator: informers for Boxes, KubeVirt VirtualMachines and VpnPools in one namespace,
 * and, while this replica leads (Lease), the Box and VpnPool controllers working through their
 * queues. Every replica serves /metrics, /healthz and /readyz; only the leader writes.
 */
import type * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { parseSubnet, toAddress } from './box/addresses.ts';
import { LABELS, MANAGER, type VirtualMachine } from './box/builders.ts';
import { BoxController, keyOf } from './box/controller.ts';
import { GROUP, VERSION, type Box } from './box/types.ts';
import { serveOperatorHttp } from './controller/http.ts';
import { describeError } from './controller/errors.ts';
import { Informer } from './controller/informer.ts';
import { Kube, reuseConnections } from './controller/kube.ts';
import { LeaderElector } from './controller/leader.ts';
import { Metrics } from './controller/metrics.ts';
import { WorkQueue } from './controller/queue.ts';

export interface OperatorOptions {
  config: k8s.KubeConfig;
  namespace: string;
  arenaNetwork: string;
  arenaSubnet: string;
  /** Where boxes report (default: http://<the first router address>/). */
  agentApiUrl?: string;
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
}

export class Operator {
  readonly metrics = new Metrics();
  readonly #options: OperatorOptions;
  readonly #kube: Kube;
  readonly #boxes: Informer<Box>;
  readonly #vms: Informer<VirtualMachine & k8s.KubernetesObject>;
  readonly #elector: LeaderElector | undefined;
  readonly #boxController: BoxController;
  #boxQueue: WorkQueue | undefined;
  #http: { port: number; close: () => Promise<void> } | undefined;
  #resync: NodeJS.Timeout | undefined;
  #leading = false;
  #synced = false;

  constructor(options: OperatorOptions) {
    this.#options = options;
    const { namespace, logger } = options;
    const config = reuseConnections(options.config);
    this.#kube = new Kube(config);
    const custom = this.#kube.custom;
    const subnet = parseSubnet(options.arenaSubnet);
    this.#boxes = new Informer<Box>(config, {
      kind: 'Box',
      path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/boxes`,
      list: async () =>
        (await custom.listNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace,
          plural: 'boxes',
        })) as k8s.KubernetesListObject<Box>,
      logger,
      onChange: (box) => this.#boxQueue?.add(keyOf(box)),
    });
    this.#vms = new Informer<VirtualMachine & k8s.KubernetesObject>(config, {
      kind: 'VirtualMachine',
      path: `/apis/kubevirt.io/v1/namespaces/${namespace}/virtualmachines`,
      labelSelector: `${LABELS.managedBy}=${MANAGER}`,
      list: async () =>
        (await custom.listNamespacedCustomObject({
          group: 'kubevirt.io',
          version: 'v1',
          namespace,
          plural: 'virtualmachines',
          labelSelector: `${LABELS.managedBy}=${MANAGER}`,
        })) as k8s.KubernetesListObject<VirtualMachine & k8s.KubernetesObject>,
      logger,
      onChange: (vm, event) => {
        const box = vm.metadata?.labels?.[LABELS.box];
        if (!box) return;
        // A VM deleted under a Box that still wants it: applied again (not just looked at).
        if (event === 'delete') this.#boxController.forget(vm.metadata?.ownerReferences?.[0]?.uid);
        this.#boxQueue?.add(`${namespace}/${box}`);
      },
    });
    const firstRouter = toAddress(subnet.network + 10);
    this.#boxController = new BoxController({
      kube: this.#kube,
      logger: logger.child({ controller: 'box' }),
      arenaNetwork: options.arenaNetwork,
      arenaSubnet: subnet,
      agentApiUrl: () => options.agentApiUrl ?? `http://${firstRouter}/`,
      routes: () => [],
      agentBundle: options.agentBundle,
      boxes: { get: (name, ns) => this.#boxes.get(name, ns), list: () => this.#boxes.list() },
      vms: { get: (name, ns) => this.#vms.get(name, ns) },
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
    await Promise.all([this.#boxes.start(), this.#vms.start()]);
    await Promise.all([this.#boxes.synced(), this.#vms.synced()]);
    this.#synced = true;
    logger.info({ namespace: this.#options.namespace, port: this.#http.port }, 'operator started');
    if (this.#elector) this.#elector.start();
    else this.#startLeading();
    const resyncMs = this.#options.resyncMs ?? 5 * 60_000;
    this.#resync = setInterval(() => {
      this.#boxController.forget();
      this.#enqueueAll();
    }, resyncMs);
    this.#resync.unref();
  }

  /** Graceful: work in flight finishes, the Lease is released, watches and the HTTP server close. */
  async stop(): Promise<void> {
    clearInterval(this.#resync);
    await this.#stopLeading();
    await this.#elector?.stop();
    await Promise.all([this.#boxes.stop(), this.#vms.stop()]);
    await this.#http?.close();
    this.#options.logger.info('operator stopped');
  }

  #startLeading(): void {
    if (this.#leading) return;
    this.#leading = true;
    this.metrics.leader.set(1);
    const logger = this.#options.logger;
    const controller = 'box';
    this.#boxQueue = new WorkQueue(
      async (key) => {
        const end = this.metrics.reconcileSeconds.startTimer({ controller });
        const endQuantiles = this.metrics.reconcileQuantiles.startTimer({ controller });
        try {
          const result = await this.#boxController.reconcile(key);
          this.metrics.reconciles.inc({ controller, result: 'success' });
          return result;
        } catch (error) {
          this.metrics.reconciles.inc({ controller, result: 'error' });
          throw error;
        } finally {
          end();
          endQuantiles();
          this.metrics.queueDepth.set({ controller }, this.#boxQueue?.depth ?? 0);
        }
      },
      { concurrency: this.#options.concurrency ?? 4 },
      (key, error, retryInMs) =>
        logger.warn({ controller, key, error: describeError(error), retryInMs }, 'reconcile failed'),
    );
    this.#enqueueAll();
  }

  async #stopLeading(): Promise<void> {
    if (!this.#leading) return;
    this.#leading = false;
    this.metrics.leader.set(0);
    const queue = this.#boxQueue;
    this.#boxQueue = undefined;
    await queue?.stop();
  }

  #enqueueAll(): void {
    for (const box of this.#boxes.list()) this.#boxQueue?.add(keyOf(box));
  }
}
