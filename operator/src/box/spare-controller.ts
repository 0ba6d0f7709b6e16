/**
 * Keeps BOX_SPARES prepared spare disks (spares.ts) in the namespace: makes the missing ones (a loadout
 * drawn for each, balanced as a box's), watches each preparation to its end (KubeVirt's instance
 * Succeeded: ready; Failed or too slow: removed and made again, later and later while they keep failing),
 * removes those that no longer fit (another image or disk size) and those beyond the count. Boxes take ready
 * ones (BoxController); a taken spare is a Box's disk and no longer counts, so another is made.
 */
import type * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { loadoutFiles } from '../catalogue/bundle.ts';
import type { CatalogueEntry } from '../catalogue/catalogue.ts';
import { chooseLoadout, type LoadoutSize } from '../catalogue/loadout.ts';
import { statusOf } from '../controller/errors.ts';
import type { Kube } from '../controller/kube.ts';
import type { HandlerResult } from '../controller/queue.ts';
import type { VirtualMachine } from './builders.ts';
import {
  DATA_VOLUME_API_VERSION,
  DISK_ANNOTATIONS,
  createdAt,
  diskFits,
  type DataVolume,
  type DiskSettings,
} from './disk.ts';
import {
  SPARE_STATE,
  catalogueDigest,
  newSpareName,
  spareCloudInitFor,
  spareCloudInitName,
  spareDiskFor,
  spareLoadoutOf,
  spareStateOf,
  spareVirtualMachineFor,
} from './spares.ts';

/** A preparation that has not ended by then is given up (an import, a boot and an install take minutes). */
export const PREPARE_TIMEOUT_MS = 30 * 60_000;
/** How often a preparation is looked at besides the watch events of its VM. */
const PREPARING_POLL_MS = 15_000;
/** After a failed preparation the next starts this much later, doubling up to ten minutes. */
const FAILURE_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 10 * 60_000;

export interface SpareControllerOptions {
  kube: Kube;
  logger: Logger;
  namespace: string;
  /** How many spares to keep (BOX_SPARES); 0 keeps none and removes those there are. */
  count: number;
  /** The image new Boxes get (BOX_IMAGE; the Box CRD's default unless the API sets one). */
  image: string;
  disk: DiskSettings;
  loadoutSize: LoadoutSize;
  catalogue: CatalogueEntry[];
  disks: { list(): readonly DataVolume[] };
  vms: {
    get(name: string, namespace: string): VirtualMachine | undefined;
    list(): readonly VirtualMachine[];
  };
  /** KubeVirt's VirtualMachineInstance phase of a VM (Succeeded, Failed, Running, ...), undefined when none. */
  instancePhase?: (name: string) => Promise<string | undefined>;
  prepareTimeoutMs?: number;
  now?: () => Date;
}

export class SpareController {
  readonly #o: SpareControllerOptions;
  /** catalogueDigest() of this operator's catalogue. */
  readonly #catalogue: string;
  /** Spares made and not yet in the cache, and when (counted, so a lagging cache makes none twice). */
  readonly #made = new Map<string, number>();
  #failures = 0;
  #notBefore = 0;

  constructor(options: SpareControllerOptions) {
    this.#o = options;
    this.#catalogue = catalogueDigest(loadoutFiles(options.catalogue.map((entry) => entry.id)));
  }

  async reconcile(): Promise<HandlerResult> {
    const { namespace, count } = this.#o;
    const now = (this.#o.now?.() ?? new Date()).getTime();
    const live: DataVolume[] = [];
    let preparing = 0;
    const disks = this.#o.disks.list().filter((disk) => disk.metadata.namespace === namespace);
    const names = new Set(disks.map((disk) => disk.metadata.name));
    for (const [name, at] of this.#made) if (names.has(name) || now - at > 60_000) this.#made.delete(name);
    for (const spare of disks) {
      if (spare.metadata.deletionTimestamp) continue;
      const state = spareStateOf(spare);
      if (!state) continue;
      if (
        !diskFits(spare, this.#o.image, this.#o.disk) ||
        !spareLoadoutOf(spare) ||
        spare.metadata.annotations?.[DISK_ANNOTATIONS.catalogue] !== this.#catalogue
      ) {
        await this.#remove(spare, 'Removed a spare made for another image, disk size or catalogue');
        continue;
      }
      const outcome = state === 'ready' ? await this.#keepReady(spare) : await this.#prepare(spare, now);
      if (outcome === 'failed') {
        this.#failed(now);
        await this.#remove(spare, 'Removed a spare whose preparation failed');
        continue;
      }
      if (outcome === 'preparing') preparing++;
      live.push(spare);
    }
    // A preparing VM whose disk is gone (deleted from outside) goes too.
    for (const vm of this.#o.vms.list()) {
      const name = vm.metadata?.name;
      if (!name || vm.metadata?.namespace !== namespace || !vm.metadata.labels?.[SPARE_STATE]) continue;
      if (!names.has(name) && !this.#made.has(name)) await this.#removePreparation(name);
    }
    // Too many (the count went down): the newest go first, those still preparing before the ready ones.
    const extra = live
      .sort((a, b) => rank(a) - rank(b) || createdAt(b) - createdAt(a))
      .slice(0, Math.max(0, live.length - count));
    for (const spare of extra) await this.#remove(spare, 'Removed a spare beyond BOX_SPARES');
    let missing = Math.max(0, count - live.length - this.#made.size);
    if (missing > 0 && now < this.#notBefore) return { requeueAfterMs: this.#notBefore - now };
    for (; missing > 0; missing--) {
      if (!(await this.#make())) break;
      preparing++;
    }
    if (preparing > 0) return { requeueAfterMs: PREPARING_POLL_MS };
  }

  /** Makes one spare: its disk, then the VM that prepares it. False when no loadout can be drawn. */
  async #make(): Promise<boolean> {
    const { kube, namespace, logger } = this.#o;
    let loadout: string[];
    try {
      loadout = chooseLoadout(this.#o.catalogue, this.#o.loadoutSize);
    } catch (error) {
      logger.error({ error: (error as Error).message }, 'Could not draw a loadout for a spare');
      return false;
    }
    const name = newSpareName();
    await kube.createIfMissing(
      spareDiskFor({
        name,
        namespace,
        image: this.#o.image,
        settings: this.#o.disk,
        loadout,
        catalogue: this.#catalogue,
      }),
    );
    this.#made.set(name, (this.#o.now?.() ?? new Date()).getTime());
    await this.#applyPreparation(name, loadout);
    logger.info({ spare: name, loadout }, 'Created spare DataVolume and VirtualMachine to prepare it');
    return true;
  }

  /** The preparing VM and its cloud-init, with the loadout the disk was made for (never the cache's guess). */
  async #applyPreparation(name: string, loadout: readonly string[]): Promise<void> {
    const { kube, namespace } = this.#o;
    await kube.apply(spareCloudInitFor(name, namespace, loadoutFiles(loadout)));
    await kube.apply(spareVirtualMachineFor(name, namespace) as k8s.KubernetesObject);
  }

  /** One preparation's state: its VM made (again) when missing, ready once its instance Succeeded. */
  async #prepare(spare: DataVolume, now: number): Promise<'preparing' | 'ready' | 'failed'> {
    const { name } = spare.metadata;
    if (now - createdAt(spare) > (this.#o.prepareTimeoutMs ?? PREPARE_TIMEOUT_MS)) return 'failed';
    if (!this.#o.vms.get(name, this.#o.namespace)) {
      await this.#applyPreparation(name, spareLoadoutOf(spare) ?? []);
      return 'preparing';
    }
    const phase = await (this.#o.instancePhase?.(name) ?? Promise.resolve(undefined));
    if (phase === 'Failed') return 'failed';
    if (phase !== 'Succeeded') return 'preparing';
    // Ready before its VM goes: a VM made again for a disk marked preparing would wait for nothing.
    await this.#o.kube.patchMetadata(spare, {
      labels: { [SPARE_STATE]: 'ready' },
    });
    this.#failures = 0;
    this.#o.logger.info({ spare: name }, 'Prepared spare DataVolume');
    await this.#removePreparation(name);
    return 'ready';
  }

  /** A ready spare keeps nothing but its disk. */
  async #keepReady(spare: DataVolume): Promise<'ready'> {
    if (this.#o.vms.get(spare.metadata.name, this.#o.namespace))
      await this.#removePreparation(spare.metadata.name);
    return 'ready';
  }

  async #removePreparation(name: string): Promise<void> {
    const { kube, namespace } = this.#o;
    await kube.deleteIfPresent('kubevirt.io/v1', 'VirtualMachine', namespace, name);
    await kube.deleteIfPresent('v1', 'Secret', namespace, spareCloudInitName(name));
  }

  /**
   * Removes a spare: its disk only as the cache saw it (uid and resourceVersion), so a spare a Box took
   * meanwhile (relabelled, a new resourceVersion) is left to the Box.
   */
  async #remove(spare: DataVolume, message: string): Promise<void> {
    const { name, uid, resourceVersion } = spare.metadata;
    try {
      await this.#o.kube.deleteIfPresent(DATA_VOLUME_API_VERSION, 'DataVolume', this.#o.namespace, name, {
        ...(uid ? { uid } : {}),
        ...(resourceVersion ? { resourceVersion } : {}),
      });
    } catch (error) {
      if (statusOf(error) === 409) return; // taken by a Box (or changed) since: looked at again
      throw error;
    }
    await this.#removePreparation(name);
    this.#o.logger.info({ spare: name }, message);
  }

  #failed(now: number): void {
    this.#failures++;
    this.#notBefore = now + Math.min(MAX_BACKOFF_MS, FAILURE_BACKOFF_MS * 2 ** (this.#failures - 1));
  }
}

const rank = (disk: DataVolume) => (spareStateOf(disk) === 'preparing' ? 0 : 1);
