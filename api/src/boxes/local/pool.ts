import { existsSync } from 'node:fs';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  LOADOUT_DIR,
  chooseLoadout,
  type CatalogueEntry,
  type LoadoutSize,
} from '@exploit-grid/operator/catalogue';
import type { Logger } from '../../logger.ts';
import { KeyedLock } from '../../keyed-lock.ts';
import type { Machine, MachineSpec, MachineState } from './machine.ts';

/** What the pool asks of the runtime it serves. */
export interface PoolHost {
  /** The base image new boxes are made from, or null while it is not ready. */
  imagePath(): string | null;
  /** A box of the runtime has this slot (a spare must never take it). */
  slotInUse(slot: number): boolean;
  machine(id: string, slot: number): Machine;
  /** What a box at `slot` is started with: its address, limits and the files of `loadout`. */
  spareSpec(slot: number, loadout: string[]): Promise<MachineSpec>;
  /** Prepares (disk, files) and starts a machine, as a first start of a box does. */
  boot(machine: Machine, spec: MachineSpec): Promise<void>;
}

export interface WarmPoolOptions {
  boxesDir: string;
  /** Spares kept booted (BOX_WARM_POOL); 0: none, every first start boots a box from nothing. */
  size: number;
  diskMiB: number;
  loadout: LoadoutSize;
  catalogue: CatalogueEntry[];
  logger: Logger;
}

/** What a spare was made for (`spare.json` in its directory): a box takes it over only when all still hold. */
interface SpareRecord {
  image: string;
  diskMiB: number;
  size: LoadoutSize;
  loadout: string[];
}

/** A spare held for a box that was given its loadout but has not started yet goes after this long. */
const RESERVED_SPARE_MS = 10 * 60_000;
/** How long a claim waits for a spare that is still booting or installing its loadout. */
const CLAIM_WAIT_MS = 30_000;
/** How long a new spare may take to boot and install its loadout before it is thrown away. */
const SPARE_READY_MS = 120_000;
/** The spare's identity until a box takes it over: nobody can log in (root locked, no key). */
const SPARE_HOSTNAME = 'spare';
const LOCKED = '*';

const spareId = (slot: number) => `.spare-${slot}`;

/**
 * The local runtime's warm pool: spare boxes booted ahead of time at the next free slots (each slot is an
 * address, a UID range and a cgroup), each with a loadout drawn for it and installed at its boot, so that a
 * new box starts in well under a second. A spare runs for no one: root is locked, it has no key, and the
 * router knows no port of a box before that box's first start, so the bridge drops all a spare sends (its
 * future owner's traffic included) until it is the box.
 *
 * A new box is given the loadout of the spare at its slot (`loadoutAt`, asked at creation); its first start
 * takes the spare over (`claim`): the spare's directory becomes the box's, and the box's hostname, root
 * password, key and limits are written into it while it runs. A spare that does not fit the box (another
 * image, disk size or loadout) is thrown away and the box boots from nothing, as without a pool.
 * The pool is refilled in the background (`refill`, one spare at a time).
 */
export class WarmPool {
  readonly #o: WarmPoolOptions;
  readonly #host: PoolHost;
  readonly #log: Logger;
  /** Work on one spare slot at a time: making, claiming and removing a spare. */
  readonly #locks = new KeyedLock();
  /** When a spare was first seen at a slot a box had taken (a box not started yet). */
  readonly #reservedSince = new Map<number, number>();
  /** Each spare's state as last seen (its init is looked for again only when its launcher changed). */
  readonly #seen = new Map<number, MachineState>();
  #work: Promise<void> | null = null;
  #closing = false;

  constructor(options: WarmPoolOptions, host: PoolHost) {
    this.#o = options;
    this.#host = host;
    this.#log = options.logger.child({ component: 'warm-pool' });
  }

  #spare(slot: number): Machine {
    return this.#host.machine(spareId(slot), slot);
  }

  /** The state of the spare at `slot` (the loop asks every pass: known inits are not looked for again). */
  async #state(slot: number): Promise<MachineState> {
    const state = await this.#spare(slot).state(this.#seen.get(slot));
    if (state.state === 'absent') this.#seen.delete(slot);
    else this.#seen.set(slot, state);
    return state;
  }

  async #record(slot: number): Promise<SpareRecord | null> {
    const text = await readFile(path.join(this.#spare(slot).dir, 'spare.json'), 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      return JSON.parse(text) as SpareRecord;
    } catch {
      return null;
    }
  }

  /** Whether a spare was made for what new boxes get now. */
  #current(record: SpareRecord | null, image: string | null): record is SpareRecord {
    return (
      record !== null &&
      image !== null &&
      record.image === image &&
      record.diskMiB === this.#o.diskMiB &&
      record.size.in === this.#o.loadout.in &&
      record.size.up === this.#o.loadout.up
    );
  }

  /** Slots that hold a spare (made or being made). */
  async #slots(): Promise<number[]> {
    return (await readdir(this.#o.boxesDir).catch(() => []))
      .map((entry) => /^\.spare-(\d+)$/.exec(entry)?.[1])
      .filter((slot): slot is string => slot !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  /** The loadout of the spare at `slot` (a box made there now gets it), or null when there is none to take. */
  async loadoutAt(slot: number): Promise<string[] | null> {
    // Not under the slot's lock (a spare booting holds it): a record half written reads as none.
    const record = await this.#record(slot);
    if (!this.#current(record, this.#host.imagePath())) return null;
    const state = await this.#state(slot);
    return state.state === 'running' || state.state === 'starting' ? record.loadout : null;
  }

  /**
   * Makes the spare at `spec.slot` the box `box` (never started, so it has no disk yet), when it fits:
   * ready (waiting a little for one still booting or installing: the installer writes the users and
   * passwords its entries need, and the box's root password goes into the same file), made for the current
   * image and disk size, holding the box's loadout. Answers whether it did; a spare that does not fit, or
   * that could not be made the box, is removed, so the box boots at its slot from nothing.
   */
  claim(box: Machine, spec: MachineSpec, loadout: string[]): Promise<boolean> {
    return this.#locks.run(String(spec.slot), async () => {
      const spare = this.#spare(spec.slot);
      if (!existsSync(spare.dir)) return false;
      const record = await this.#record(spec.slot);
      const fits =
        this.#current(record, this.#host.imagePath()) &&
        record.loadout.length === loadout.length &&
        record.loadout.every((id, i) => id === loadout[i]) &&
        // The box's directory holds no more than its slot: nothing of its own to lose.
        !existsSync(path.join(box.dir, 'disk.img')) &&
        !existsSync(path.join(box.dir, 'root'));
      let state: MachineState = await spare.state();
      for (const deadline = Date.now() + CLAIM_WAIT_MS; fits;) {
        const alive = state.state === 'running' || state.state === 'starting';
        if (!alive || Date.now() > deadline) break;
        if (state.state === 'running' && (await this.#markReady(spare))) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
        state = await spare.state();
      }
      if (!fits || state.state !== 'running' || !existsSync(path.join(spare.dir, 'ready'))) {
        await this.#remove(spec.slot, fits ? `not ready (${state.state})` : 'does not fit the box');
        return false;
      }
      this.#reservedSince.delete(spec.slot);
      this.#seen.delete(spec.slot);
      // The box's directory holds nothing of its own (the runtime makes it at a first start).
      await rm(box.dir, { recursive: true, force: true });
      await rename(spare.dir, box.dir);
      try {
        await rm(path.join(box.dir, 'spare.json'), { force: true });
        await rm(path.join(box.dir, 'ready'), { force: true });
        await writeFile(path.join(box.dir, 'slot'), String(spec.slot));
        await box.takeOver(spec);
        return true;
      } catch (err) {
        // Half a takeover is no box: it goes, and the box boots from nothing (never a first start on a disk
        // that ran).
        this.#log.warn({ err, slot: spec.slot }, 'Could not make a spare the box; booting it from nothing');
        await box.destroy(0);
        return false;
      }
    });
  }

  /**
   * Keeps the pool full in the background (one run at a time; the runtime's loop calls it with the slots its
   * boxes have): removes spares that no longer fit or stopped, and those held too long for a box that never
   * started, then boots spares at the lowest free slots. A spare held for a box counts towards the pool's
   * size, so boxes made and never started cannot make the pool grow.
   */
  refill(usedSlots: number[]): void {
    if (this.#work || this.#closing) return;
    this.#work = this.#refill(new Set(usedSlots))
      .catch((err: unknown) => this.#log.warn({ err }, 'Could not refill the warm pool'))
      .finally(() => (this.#work = null));
  }

  async #refill(used: Set<number>): Promise<void> {
    const image = this.#host.imagePath();
    const now = Date.now();
    let held = 0;
    const free: number[] = [];
    for (const slot of await this.#slots()) {
      if (this.#closing) return;
      const record = await this.#record(slot);
      const state = await this.#state(slot);
      const alive = state.state === 'running' || state.state === 'starting';
      if (!this.#current(record, image) || !alive) {
        await this.#locks.run(String(slot), () => this.#remove(slot, alive ? 'outdated' : 'stopped'));
        continue;
      }
      // One whose readiness was not seen (the API stopped meanwhile) is marked now.
      if (state.state === 'running') await this.#markReady(this.#spare(slot));
      if (used.has(slot)) {
        const since = this.#reservedSince.get(slot) ?? now;
        this.#reservedSince.set(slot, since);
        if (now - since > RESERVED_SPARE_MS) {
          await this.#locks.run(String(slot), () => this.#remove(slot, 'its box never started'));
          continue;
        }
        held += 1;
      } else free.push(slot);
    }
    for (const slot of this.#reservedSince.keys()) if (!used.has(slot)) this.#reservedSince.delete(slot);
    // The lowest free slots: those new boxes get.
    const wanted: number[] = [];
    for (let slot = 0; wanted.length < Math.max(0, this.#o.size - held); slot++)
      if (!used.has(slot)) wanted.push(slot);
    for (const slot of free)
      if (!wanted.includes(slot))
        await this.#locks.run(String(slot), () => this.#remove(slot, 'not among the next free slots'));
    if (image === null) return;
    for (const slot of wanted) {
      if (this.#closing) return;
      if (!free.includes(slot)) await this.#make(slot, image);
    }
  }

  /** Boots a spare at a free slot and waits for its loadout to be installed. */
  async #make(slot: number, image: string): Promise<void> {
    const spare = this.#spare(slot);
    const started = Date.now();
    const booted = await this.#locks.run(String(slot), async () => {
      // Checked under the slot's lock: a box that took the slot since the loop's list was read starts
      // through claim, under the same lock.
      if (this.#host.slotInUse(slot) || existsSync(spare.dir)) return false;
      const loadout = chooseLoadout(this.#o.catalogue, this.#o.loadout);
      try {
        const spec = await this.#host.spareSpec(slot, loadout);
        await this.#host.boot(spare, {
          ...spec,
          hostname: SPARE_HOSTNAME,
          rootPasswordHash: LOCKED,
          sshPublicKey: null,
        });
        const record: SpareRecord = { image, diskMiB: this.#o.diskMiB, size: this.#o.loadout, loadout };
        await writeFile(path.join(spare.dir, 'spare.json'), JSON.stringify(record));
        return true;
      } catch (err) {
        await this.#remove(slot, 'could not boot');
        throw err;
      }
    });
    if (!booted) return;
    // Outside the lock: a box may take the spare over while it installs its loadout.
    while (!this.#closing && existsSync(spare.dir)) {
      const state = await spare.state();
      if (state.state === 'running' && (await this.#markReady(spare))) {
        this.#log.debug({ slot, ms: Date.now() - started }, 'Spare box ready');
        return;
      }
      const gone = state.state !== 'running' && state.state !== 'starting';
      if (gone || Date.now() - started > SPARE_READY_MS) {
        await this.#locks.run(String(slot), () =>
          // Only the spare this run made: one a box took over is that box now.
          existsSync(path.join(spare.dir, 'spare.json'))
            ? this.#remove(slot, gone ? `stopped while booting (${state.state})` : 'not ready in time')
            : Promise.resolve(),
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Marks a running spare ready once its installer has removed the loadout's directory; answers whether it is. */
  async #markReady(spare: Machine): Promise<boolean> {
    const marker = path.join(spare.dir, 'ready');
    if (existsSync(marker)) return true;
    if (existsSync(path.join(spare.rootDir, LOADOUT_DIR.slice(1)))) return false;
    await writeFile(marker, new Date().toISOString()).catch(() => undefined /* taken over meanwhile */);
    return true;
  }

  async #remove(slot: number, why: string): Promise<void> {
    const spare = this.#spare(slot);
    if (!existsSync(spare.dir)) return;
    // No clean poweroff: nobody's work is in it.
    await spare.destroy(0);
    this.#reservedSince.delete(slot);
    this.#seen.delete(slot);
    this.#log.debug({ slot, why }, 'Spare box removed');
  }

  /** Lets go of the pool (spares keep running for the next start). */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#work;
  }

  /** Stops and removes every spare. */
  async destroy(): Promise<void> {
    await this.close();
    for (const slot of await this.#slots())
      await this.#locks.run(String(slot), () => this.#remove(slot, 'destroyed'));
  }
}
