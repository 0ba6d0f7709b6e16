import {
  boxSchema,
  boxSnapshotSchema,
  boxSnapshotsSchema,
  deleteBoxResponse,
  type BoxSnapshot,
} from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { log } from '../logging.ts';
import { toast } from '../notifications/toast.ts';
import {
  DELETE_SNAPSHOT_FAILED,
  RESTORE_SNAPSHOT_FAILED,
  SNAPSHOTS_LOAD_FAILED,
  TAKE_SNAPSHOT_FAILED,
} from '../strings/snapshots.ts';
import { detailOf } from './BoxStore.ts';
import type { RootStore } from './RootStore.ts';

/** What is under way: taking one, or restoring or deleting the snapshot with this id. */
export type SnapshotAction = 'take' | `restore:${string}` | `delete:${string}`;

const stores = new WeakMap<RootStore, SnapshotStore>();

/** The snapshot store of `root`, made on first use (its code comes with the snapshot list, not before). */
export function snapshotStoreOf(root: RootStore): SnapshotStore {
  let store = stores.get(root);
  if (!store) {
    store = new SnapshotStore(root);
    stores.set(root, store);
  }
  return store;
}

/**
 * The snapshots of the operator's box (My Box; docs/boxes.md "Snapshots"): the list and the tier's slots,
 * taking one, restoring one (the box comes back powered off, through the box store) and deleting one.
 */
export class SnapshotStore {
  snapshots: readonly BoxSnapshot[] = [];
  slots = 0;
  status: 'idle' | 'loading' | 'ready' | 'failed' = 'idle';
  /** The last failure: the action's text, and the server's message when it says more. */
  error: { message: string; detail?: string } | null = null;
  readonly pending = observable.map<SnapshotAction, true>();
  /** The box the list is of (a new box, or another account, starts again). */
  private loadedFor: string | null = null;
  private readonly root: RootStore;

  constructor(root: RootStore) {
    this.root = root;
    makeObservable<this, 'loadedFor'>(this, {
      snapshots: observableRef,
      slots: observable,
      status: observable,
      error: observableRef,
      loadedFor: observable,
      full: computed,
      clearError: action,
    });
    reaction(
      () => this.root.auth.box?.id ?? null,
      (id) => {
        if (id !== this.loadedFor) runInAction(() => this.forget());
      },
    );
  }

  /** Every slot holds a snapshot (or the tier has none). */
  get full(): boolean {
    return this.snapshots.length >= this.slots;
  }

  isPending(action: SnapshotAction): boolean {
    return this.pending.has(action);
  }

  clearError() {
    this.error = null;
  }

  /** GET /boxes/{hostname}/snapshots for the operator's box. */
  async load(): Promise<void> {
    const box = this.root.auth.box;
    if (!box) return;
    runInAction(() => {
      this.status = 'loading';
      this.loadedFor = box.id;
    });
    try {
      const answer = await this.root.api.get(`${this.path(box.hostname)}`, boxSnapshotsSchema);
      runInAction(() => {
        if (this.loadedFor !== box.id) return;
        this.snapshots = answer.snapshots;
        this.slots = answer.slots;
        this.status = 'ready';
      });
    } catch (error) {
      log.warn(SNAPSHOTS_LOAD_FAILED, error);
      runInAction(() => {
        this.status = 'failed';
        this.error = { message: SNAPSHOTS_LOAD_FAILED, ...detailOf(error, SNAPSHOTS_LOAD_FAILED) };
      });
    }
  }

  /** POST /boxes/{hostname}/snapshots: the box's disk saved now under `name`. */
  take(name: string): Promise<boolean> {
    return this.run('take', TAKE_SNAPSHOT_FAILED, async (hostname) => {
      const taken = await this.root.api.post(this.path(hostname), boxSnapshotSchema, { body: { name } });
      runInAction(() => (this.snapshots = [...this.snapshots, taken]));
    });
  }

  /** POST .../{id}/restore: the box comes back powered off with the snapshot's disk (the page confirms first). */
  restore(snapshot: BoxSnapshot): Promise<boolean> {
    return this.run(`restore:${snapshot.id}`, RESTORE_SNAPSHOT_FAILED, async (hostname) => {
      const box = await this.root.api.post(`${this.path(hostname)}/${snapshot.id}/restore`, boxSchema);
      this.root.box.replaceBox(box);
    });
  }

  /** DELETE .../{id}: its slot is free again (the page confirms first). */
  remove(snapshot: BoxSnapshot): Promise<boolean> {
    return this.run(`delete:${snapshot.id}`, DELETE_SNAPSHOT_FAILED, async (hostname) => {
      await this.root.api.request('DELETE', `${this.path(hostname)}/${snapshot.id}`, deleteBoxResponse);
      runInAction(() => (this.snapshots = this.snapshots.filter((s) => s.id !== snapshot.id)));
    });
  }

  private path(hostname: string): string {
    return `/boxes/${encodeURIComponent(hostname)}/snapshots`;
  }

  private async run(
    action: SnapshotAction,
    failure: string,
    call: (hostname: string) => Promise<void>,
  ): Promise<boolean> {
    const box = this.root.auth.box;
    if (!box || this.pending.has(action)) return false;
    runInAction(() => {
      this.pending.set(action, true);
      this.error = null;
    });
    try {
      await call(box.hostname);
      return true;
    } catch (error) {
      log.warn(failure, error);
      const more = detailOf(error, failure);
      runInAction(() => (this.error = { message: failure, ...more }));
      toast.error(more.detail ? `${failure} ${more.detail}` : failure);
      return false;
    } finally {
      runInAction(() => this.pending.delete(action));
    }
  }

  private forget() {
    this.snapshots = [];
    this.slots = 0;
    this.status = 'idle';
    this.error = null;
    this.loadedFor = null;
  }
}
