import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ATTACK_MESSAGES,
  SNAPSHOT_MESSAGES,
  TIER_PERKS,
  type Box,
  type BoxSnapshot,
  type BoxSnapshots,
} from '../contracts/index.ts';
import { Sql, uniqueViolation } from '../db/sql.ts';
import type { Orm } from '../db/orm.ts';
import { conflict, forbidden, notFound, serviceUnavailable } from '../http/errors.ts';
import { isUuid } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { BoxHasNoDisk, SnapshotImageGone, type BoxOrchestrator } from './orchestrator.ts';
import { LOADOUT_PARAM, type BoxRow, type BoxService } from './service.ts';

interface SnapshotRow {
  id: string;
  box_id: string;
  name: string;
  loadout: string[];
  size_bytes: string | null;
  created_at: string;
}

const toSnapshot = (row: SnapshotRow): BoxSnapshot => ({
  id: row.id,
  name: row.name,
  createdAt: new Date(row.created_at).toISOString(),
  sizeBytes: Number(row.size_bytes ?? 0),
});

/**
 * Snapshots of boxes (docs/boxes.md, "Snapshots"): the tiers' snapshot slots (none on BASIC). A snapshot
 * saves the box's disk as it is, hardened or not, with the loadout it has; restoring it puts both back in
 * place of a fresh reset. Taking one counts on the owner's slots from the moment it starts; one at a time
 * per box; none is taken or restored while the box is under attack (a restore is a reset's path).
 */
export class SnapshotService {
  readonly #orm: Orm;
  readonly #boxes: BoxService;
  readonly #orchestrator: BoxOrchestrator;
  readonly #log: Logger;

  constructor(options: { orm: Orm; boxes: BoxService; orchestrator: BoxOrchestrator; logger: Logger }) {
    this.#orm = options.orm;
    this.#boxes = options.boxes;
    this.#orchestrator = options.orchestrator;
    this.#log = options.logger.child({ component: 'snapshots' });
  }

  #sql(): Sql {
    return new Sql(this.#orm.em.fork() as EntityManager);
  }

  async list(userId: string, hostname: string): Promise<BoxSnapshots> {
    const box = await this.#boxes.ownBox(userId, hostname);
    const rows = await this.#sql().all<SnapshotRow>(
      'select * from box_snapshots where box_id = ? and size_bytes is not null order by created_at, id',
      [box.id],
    );
    return { snapshots: rows.map(toSnapshot), slots: TIER_PERKS[box.tier].snapshotSlots };
  }

  /** Saves the box's disk now (running or not) under `name`, in one of the owner's tier's slots. */
  async create(userId: string, hostname: string, name: string): Promise<BoxSnapshot> {
    const box = await this.#boxes.ownBox(userId, hostname);
    const slots = TIER_PERKS[box.tier].snapshotSlots;
    if (slots === 0) throw forbidden(SNAPSHOT_MESSAGES.notInTier);
    if (!this.#orchestrator.snapshotBox) throw serviceUnavailable(SNAPSHOT_MESSAGES.unavailable);
    const sql = this.#sql();
    // Reading a running disk freezes it for a moment: not a way to stall the attacker mid-fight.
    if (await sql.one('select 1 from attacks where box_id = ? and status = ?', [box.id, 'PENDING']))
      throw conflict(ATTACK_MESSAGES.underAttack);
    // Counted from the start, under the box's row lock: two at once cannot both take the last slot.
    const row = await sql
      .transaction(async (tx) => {
        await tx.run('select 1 from boxes where id = ? for update', [box.id]);
        const taken = await tx.all<{ size_bytes: string | null }>(
          'select size_bytes from box_snapshots where box_id = ?',
          [box.id],
        );
        if (taken.some((t) => t.size_bytes === null)) throw conflict(SNAPSHOT_MESSAGES.taking);
        if (taken.length >= slots) throw conflict(SNAPSHOT_MESSAGES.slotsFull);
        await this.#boxes.churn(userId);
        return tx.one<SnapshotRow>(
          `insert into box_snapshots (box_id, name, loadout) values (?, ?, ${LOADOUT_PARAM}) returning *`,
          [box.id, name, JSON.stringify(box.loadout)],
        );
      })
      .catch((err: unknown) => {
        if (uniqueViolation(err)) throw conflict(SNAPSHOT_MESSAGES.nameTaken);
        throw err;
      });
    try {
      const { sizeBytes } = await this.#orchestrator.snapshotBox(box.id, row!.id);
      const done = await sql.one<SnapshotRow>(
        'update box_snapshots set size_bytes = ? where id = ? returning *',
        [sizeBytes, row!.id],
      );
      this.#log.info({ userId, box: box.id, snapshot: row!.id, sizeBytes }, 'Box snapshot taken');
      return toSnapshot(done!);
    } catch (err) {
      await sql.run('delete from box_snapshots where id = ?', [row!.id]);
      await this.#orchestrator.deleteSnapshot?.(box.id, row!.id).catch(() => undefined);
      if (err instanceof BoxHasNoDisk) throw conflict(SNAPSHOT_MESSAGES.noDisk);
      this.#log.error({ err, box: box.id }, 'Could not take a box snapshot');
      throw serviceUnavailable(SNAPSHOT_MESSAGES.failed);
    }
  }

  /** Puts the snapshot's disk and loadout in place of the box's (it powers off; see BoxService.rebuild). */
  async restore(userId: string, hostname: string, snapshotId: string): Promise<Box> {
    const box = await this.#boxes.ownBox(userId, hostname);
    const snapshot = await this.#own(box, snapshotId);
    const restoreBox = this.#orchestrator.restoreBox;
    if (!restoreBox) throw serviceUnavailable(SNAPSHOT_MESSAGES.unavailable);
    return this.#boxes.rebuild(userId, box, {
      loadout: snapshot.loadout,
      reason: SNAPSHOT_MESSAGES.restored,
      failure: SNAPSHOT_MESSAGES.restoreFailed,
      disk: async () => {
        try {
          await restoreBox.call(this.#orchestrator, box.id, snapshot.id);
        } catch (err) {
          if (err instanceof SnapshotImageGone) throw conflict(SNAPSHOT_MESSAGES.imageGone);
          throw err;
        }
      },
      done: 'Box restored from a snapshot',
    });
  }

  async delete(userId: string, hostname: string, snapshotId: string): Promise<void> {
    const box = await this.#boxes.ownBox(userId, hostname);
    const snapshot = await this.#own(box, snapshotId);
    await this.#sql().run('delete from box_snapshots where id = ?', [snapshot.id]);
    await this.#orchestrator
      .deleteSnapshot?.(box.id, snapshot.id)
      .catch((err: unknown) => this.#log.error({ err, box: box.id }, 'Could not remove a snapshot’s files'));
    this.#log.info({ userId, box: box.id, snapshot: snapshot.id }, 'Box snapshot deleted');
  }

  /** A finished snapshot of the box (404 otherwise; 409 while it is still being taken). */
  async #own(box: BoxRow, snapshotId: string): Promise<SnapshotRow> {
    if (!isUuid(snapshotId)) throw notFound(SNAPSHOT_MESSAGES.notFound);
    const row = await this.#sql().one<SnapshotRow>(
      'select * from box_snapshots where id = ? and box_id = ?',
      [snapshotId, box.id],
    );
    if (!row) throw notFound(SNAPSHOT_MESSAGES.notFound);
    if (row.size_bytes === null) throw conflict(SNAPSHOT_MESSAGES.taking);
    return row;
  }
}
