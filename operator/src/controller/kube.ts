/**
 * The few calls the controllers make, on top of client-node: server-side apply (of objects and
 * of a custom resource's status) with the operator's field manager, delete-if-present, and a
 * metadata merge patch guarded by the resourceVersion read (so finalizers and annotations are
 * never written over someone else's newer change).
 */
import { createHash } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { statusOf } from './errors.ts';

export const FIELD_MANAGER = 'exploit-grid-operator';

export class Kube {
  readonly config: k8s.KubeConfig;
  readonly objects: k8s.KubernetesObjectApi;
  readonly custom: k8s.CustomObjectsApi;
  readonly core: k8s.CoreV1Api;

  readonly fieldManager: string;

  constructor(config: k8s.KubeConfig, fieldManager = FIELD_MANAGER) {
    this.config = config;
    this.fieldManager = fieldManager;
    this.objects = k8s.KubernetesObjectApi.makeApiClient(config);
    this.custom = config.makeApiClient(k8s.CustomObjectsApi);
    this.core = config.makeApiClient(k8s.CoreV1Api);
  }

  /** Server-side apply: the object as this operator wants it (fields it no longer sets are dropped). */
  async apply<T extends k8s.KubernetesObject>(object: T): Promise<T> {
    return (await this.objects.patch(
      object,
      undefined,
      undefined,
      this.fieldManager,
      true,
      k8s.PatchStrategy.ServerSideApply,
    )) as T;
  }

  async applyStatus(
    resource: { group: string; version: string; plural: string; kind: string },
    namespace: string,
    name: string,
    status: object,
  ): Promise<void> {
    await this.custom.patchNamespacedCustomObjectStatus(
      {
        group: resource.group,
        version: resource.version,
        namespace,
        plural: resource.plural,
        name,
        body: {
          apiVersion: `${resource.group}/${resource.version}`,
          kind: resource.kind,
          metadata: { name, namespace },
          status,
        },
        fieldManager: this.fieldManager,
        force: true,
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
    );
  }

  /** Merge-patches metadata (finalizers, annotations) of the object as last read; 409 when it changed since. */
  async patchMetadata(
    object: {
      apiVersion: string;
      kind: string;
      metadata: { name: string; namespace: string; resourceVersion?: string };
    },
    metadata: {
      finalizers?: string[];
      /** A null value removes the key (JSON merge patch). */
      annotations?: Record<string, string | null>;
      labels?: Record<string, string | null>;
      ownerReferences?: k8s.V1OwnerReference[];
    },
  ): Promise<void> {
    await this.objects.patch(
      {
        apiVersion: object.apiVersion,
        kind: object.kind,
        metadata: {
          name: object.metadata.name,
          namespace: object.metadata.namespace,
          resourceVersion: object.metadata.resourceVersion,
          ...metadata,
        } as k8s.V1ObjectMeta, // nulls remove keys in a merge patch
      },
      undefined,
      undefined,
      this.fieldManager,
      undefined,
      k8s.PatchStrategy.MergePatch,
    );
  }

  /** Creates the object unless one of its name is there already; answers whether it made it. */
  async createIfMissing(object: k8s.KubernetesObject): Promise<boolean> {
    try {
      await this.objects.create(object, undefined, undefined, this.fieldManager);
      return true;
    } catch (error) {
      if (statusOf(error) === 409) return false;
      throw error;
    }
  }

  /**
   * Deletes the object if it is there; answers whether it was. With `preconditions`, only that version of it
   * (a 409 when it changed since it was read: the caller decides).
   */
  async deleteIfPresent(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
    preconditions?: { uid?: string; resourceVersion?: string },
  ): Promise<boolean> {
    try {
      await this.objects.delete(
        { apiVersion, kind, metadata: { name, namespace } },
        undefined,
        undefined,
        undefined,
        undefined,
        'Background',
        preconditions ? { preconditions } : undefined,
      );
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw error;
    }
  }

  async exists(apiVersion: string, kind: string, namespace: string, name: string): Promise<boolean> {
    try {
      await this.objects.read({ apiVersion, kind, metadata: { name, namespace } });
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw error;
    }
  }
}

/**
 * client-node (2.0) makes a new HTTP dispatcher, and so a new TLS connection, for every request
 * it sends: thousands of TLS handshakes under load (most of the operator's CPU and memory in
 * test/bench/operator.ts). This makes a KubeConfig keep one keep-alive dispatcher per set of
 * connection options, as client-go does. Tokens are headers, so rotating ones still apply.
 */
export function reuseConnections(config: k8s.KubeConfig): k8s.KubeConfig {
  const target = config as unknown as {
    createDispatcher: (cluster: k8s.Cluster | null, agentOptions: object) => unknown;
    createDispatcherOptions: (cluster: k8s.Cluster | null, agentOptions: object) => unknown;
  };
  if ((config as unknown as Record<symbol, boolean>)[REUSING]) return config;
  const create = target.createDispatcher.bind(config);
  const dispatchers = new Map<string, unknown>();
  target.createDispatcher = (cluster, agentOptions) => {
    const key = createHash('sha256')
      .update(JSON.stringify([cluster?.server, target.createDispatcherOptions(cluster, agentOptions)]))
      .digest('hex');
    if (!dispatchers.has(key)) dispatchers.set(key, create(cluster, agentOptions));
    return dispatchers.get(key);
  };
  (config as unknown as Record<symbol, boolean>)[REUSING] = true;
  return config;
}

const REUSING = Symbol('exploit-grid.reuseConnections');
