/**
 * Lease-based leader election (coordination.k8s.io/v1), as client-go's leaderelection does it:
 * a replica takes the Lease when it is free or its holder stopped renewing it for longer than
 * its duration, renews it while it leads, and gives it up on shutdown. Updates carry the
 * resourceVersion read, so two replicas racing for one Lease cannot both win.
 */
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeError, statusOf } from './errors.ts';

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  /** How often the leader renews, and a follower tries. */
  retryMs?: number;
  logger: Logger;
  onStartedLeading: () => void;
  /** The Lease was lost (another replica took it after we could not renew): stop acting. */
  onStoppedLeading: () => void;
}

export class LeaderElector {
  readonly #api: k8s.CoordinationV1Api;
  readonly #options: Required<LeaderElectionOptions>;
  #leading = false;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #lastRenew = 0;
  #tickInFlight: Promise<void> | undefined;

  constructor(config: k8s.KubeConfig, options: LeaderElectionOptions) {
    this.#api = config.makeApiClient(k8s.CoordinationV1Api);
    this.#options = { leaseDurationMs: 15_000, retryMs: 2_000, ...options };
  }

  get leading(): boolean {
    return this.#leading;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#tickInFlight = this.#tick().finally(() => (this.#tickInFlight = undefined));
    }, delayMs);
    this.#timer.unref();
  }

  /** Stops trying; a leader releases the Lease so another replica takes over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#tickInFlight; // a renewal under way would make the release below conflict
    if (!this.#leading) return;
    this.#leading = false;
    try {
      const lease = await this.#read();
      if (lease?.spec?.holderIdentity === this.#options.identity) {
        if (lease.spec.acquireTime)
          lease.spec.acquireTime = micro(new Date(lease.spec.acquireTime as unknown as string));
        lease.spec.holderIdentity = undefined;
        lease.spec.leaseDurationSeconds = 1;
        lease.spec.renewTime = micro(new Date(0));
        await this.#api.replaceNamespacedLease({
          namespace: this.#options.namespace,
          name: this.#options.name,
          body: lease,
        });
      }
    } catch (error) {
      this.#options.logger.warn({ error: describeError(error) }, 'Failed to release the leader Lease');
    }
  }

  async #read(): Promise<k8s.V1Lease | undefined> {
    try {
      return await this.#api.readNamespacedLease({
        namespace: this.#options.namespace,
        name: this.#options.name,
      });
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    try {
      const acquired = await this.#tryAcquireOrRenew();
      if (acquired) this.#lastRenew = Date.now();
      if (acquired && !this.#leading) {
        this.#leading = true;
        this.#options.logger.info({ identity: this.#options.identity }, 'Became the leader');
        this.#options.onStartedLeading();
      } else if (!acquired && this.#leading) {
        this.#lose('another replica holds the lease');
      }
    } catch (error) {
      this.#options.logger.warn({ error: describeError(error) }, 'Failed to reach the leader Lease');
      // Keep leading only while the lease we hold is surely still ours.
      if (this.#leading && Date.now() - this.#lastRenew > this.#options.leaseDurationMs * 0.66) {
        this.#lose('could not renew the lease in time');
      }
    }
    if (!this.#stopped) this.#schedule(this.#options.retryMs);
  }

  #lose(reason: string): void {
    this.#leading = false;
    this.#options.logger.warn({ identity: this.#options.identity, reason }, 'Stopped leading');
    this.#options.onStoppedLeading();
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity, leaseDurationMs } = this.#options;
    const now = new Date();
    const durationSeconds = Math.max(1, Math.round(leaseDurationMs / 1000));
    const lease = await this.#read();
    if (!lease) {
      try {
        await this.#api.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: micro(now),
              renewTime: micro(now),
              leaseTransitions: 0,
            },
          },
        });
        return true;
      } catch (error) {
        if (statusOf(error) === 409) return false;
        throw error;
      }
    }
    const spec = lease.spec ?? {};
    // Times read back must be written in the API's microsecond format again.
    if (spec.acquireTime) spec.acquireTime = micro(new Date(spec.acquireTime as unknown as string));
    const holder = spec.holderIdentity;
    const renewed = spec.renewTime ? new Date(spec.renewTime as unknown as string).getTime() : 0;
    const expired = renewed + (spec.leaseDurationSeconds ?? durationSeconds) * 1000 < now.getTime();
    if (holder && holder !== identity && !expired) return false;
    const takingOver = holder !== identity;
    lease.spec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: micro(now),
      ...(takingOver
        ? {
            acquireTime: micro(now),
            leaseTransitions: (spec.leaseTransitions ?? 0) + 1,
          }
        : {}),
    };
    try {
      // The resourceVersion read above makes this a compare-and-swap.
      await this.#api.replaceNamespacedLease({ namespace, name, body: lease });
      return true;
    } catch (error) {
      if (statusOf(error) === 409) return false;
      throw error;
    }
  }
}

/** A Lease time (the API server wants microseconds: client-node's V1MicroTime writes them). */
const micro = (date: Date) => new k8s.V1MicroTime(date.getTime());
