/**
 * A cache of one kind of object kept by list + watch (client-node's ListWatch: it re-lists on
 * `410 Gone` and reconnects after a watch ends), made to survive everything else: when the
 * watch fails (the API server is down, a network error), it starts again after a growing delay
 * and re-lists, so handlers see every object again and nothing is missed for good.
 */
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeError } from './errors.ts';

export interface InformerOptions<T extends k8s.KubernetesObject> {
  kind: string;
  path: string;
  list: () => Promise<k8s.KubernetesListObject<T>>;
  labelSelector?: string;
  logger: Logger;
  /** Called for every add, change and delete (and every object again after a re-list). */
  onChange: (object: T, event: 'add' | 'update' | 'delete') => void;
}

const MAX_RESTART_MS = 30_000;
const WATCH_IDLE_MS = 10_000;

export class Informer<T extends k8s.KubernetesObject> {
  readonly #options: InformerOptions<T>;
  readonly #listWatch: k8s.ListWatch<T>;
  #stopped = false;
  #restartMs = 500;
  #restartTimer: NodeJS.Timeout | undefined;
  #synced = false;
  #syncWaiters: (() => void)[] = [];

  constructor(config: k8s.KubeConfig, options: InformerOptions<T>) {
    this.#options = options;
    const listFn = async () => {
      const list = await options.list();
      this.#restartMs = 500;
      // The list is in the cache once this returns; tell waiters right after.
      queueMicrotask(() => this.#markSynced());
      return list;
    };
    const watch = new k8s.Watch(config);
    // A watch that hears nothing for this long is dropped and opened again from the last version
    // seen (client-node's default is 30 s). A dead connection to an API server that went away is
    // not always noticed otherwise; reopening an idle watch costs one request.
    (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = WATCH_IDLE_MS; // private in the typings
    this.#listWatch = new k8s.ListWatch<T>(options.path, watch, listFn, false, options.labelSelector);
    for (const event of ['add', 'update', 'delete'] as const) {
      this.#listWatch.on(event, (object) => {
        this.#restartMs = 500;
        options.onChange(object, event);
      });
    }
    this.#listWatch.on(k8s.ERROR, (error) => this.#restart(error));
  }

  async start(): Promise<void> {
    this.#stopped = false;
    await this.#listWatch.start().catch((error: unknown) => this.#restart(error));
  }

  /** Resolves once the first list is in the cache. */
  synced(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  get(name: string, namespace?: string): T | undefined {
    return this.#listWatch.get(name, namespace);
  }

  list(namespace?: string): readonly T[] {
    return this.#listWatch.list(namespace);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#restartTimer);
    await this.#listWatch.stop();
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    for (const resolve of this.#syncWaiters.splice(0)) resolve();
  }

  #restart(error: unknown): void {
    if (this.#stopped) return;
    const delay = this.#restartMs;
    this.#restartMs = Math.min(MAX_RESTART_MS, this.#restartMs * 2);
    this.#options.logger.warn(
      { kind: this.#options.kind, error: describeError(error), retryInMs: delay },
      'Watch failed; listing again after a delay',
    );
    clearTimeout(this.#restartTimer);
    this.#restartTimer = setTimeout(() => {
      if (this.#stopped) return;
      // Watches again from the last version seen (or lists again when that is gone: 410).
      void this.#listWatch.start().catch((err: unknown) => this.#restart(err));
    }, delay);
  }
}

/**
 * An informer for a namespaced custom resource: the watch path and the list call are made from
 * one description, so the two cannot disagree.
 */
export function customResourceInformer<T extends k8s.KubernetesObject>(
  config: k8s.KubeConfig,
  resource: { group: string; version: string; plural: string; kind: string },
  options: Omit<InformerOptions<T>, 'kind' | 'path' | 'list'> & { namespace: string },
): Informer<T> {
  const custom = config.makeApiClient(k8s.CustomObjectsApi);
  const { namespace, labelSelector } = options;
  return new Informer<T>(config, {
    ...options,
    kind: resource.kind,
    path: `/apis/${resource.group}/${resource.version}/namespaces/${namespace}/${resource.plural}`,
    list: async () =>
      (await custom.listNamespacedCustomObject({
        group: resource.group,
        version: resource.version,
        namespace,
        plural: resource.plural,
        ...(labelSelector ? { labelSelector } : {}),
      })) as k8s.KubernetesListObject<T>,
  });
}
