import { expect } from 'chai';
import {
  ATTACK_MESSAGES,
  SNAPSHOT_MESSAGES,
  SNAPSHOT_NAME_MAX,
  type Box,
  type BoxSnapshot,
  type BoxSnapshots,
  type Tier,
} from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';

describe('box snapshots', function () {
  let t: BoxTestPlatform;

  before(async () => {
    t = await startBoxPlatform({ orchestrator: { boot: 'instant' } });
  });
  after(async () => {
    await t?.close();
  });

  /** A player of `tier` whose box has run once (it has a disk to save). */
  async function owner(tier: Tier, options: { started?: boolean } = {}) {
    const user = await t.account();
    await t.db.query('update users set tier = $1 where id = $2', [tier, user.id]);
    const box = (await t.call<Box>('POST', '/boxes', { token: user.token, body: {} })).body;
    if (options.started !== false) {
      await t.call('POST', `/boxes/${box.hostname}/power`, { token: user.token, body: { on: true } });
      await waitFor(
        () => t.call<Box>('GET', '/boxes/my', { token: user.token }).then((r) => r.body),
        (b) => b.status === 'RUNNING',
        { what: 'a running box' },
      );
    }
    return { user, box };
  }
  const take = (user: TestAccount, box: Box, name: string) =>
    t.call<BoxSnapshot & { message: string }>('POST', `/boxes/${box.hostname}/snapshots`, {
      token: user.token,
      body: { name },
    });
  const list = (user: TestAccount, box: Box) =>
    t.call<BoxSnapshots & { message: string }>('GET', `/boxes/${box.hostname}/snapshots`, {
      token: user.token,
    });
  const restore = (user: TestAccount, box: Box, id: string) =>
    t.call<Box & { message: string }>('POST', `/boxes/${box.hostname}/snapshots/${id}/restore`, {
      token: user.token,
    });
  const rows = async (box: Box) =>
    (await t.db.query('select id, name, size_bytes from box_snapshots where box_id = $1', [box.id])).rows;
  const loadout = async (box: Box) =>
    (await t.db.query<{ loadout: string[] }>('select loadout from boxes where id = $1', [box.id])).rows[0]!
      .loadout;

  it('has no slots on BASIC: taking one is refused and nothing is saved', async () => {
    const { user, box } = await owner('BASIC');
    expect((await list(user, box)).body).to.deep.equal({ snapshots: [], slots: 0 });
    const res = await take(user, box, 'hardened');
    expect(res.status).to.equal(403);
    expect(res.body.message).to.equal(SNAPSHOT_MESSAGES.notInTier);
    expect(await rows(box)).to.deep.equal([]);
    expect([...t.orchestrator.snapshots.values()].filter((s) => s.boxId === box.id)).to.deep.equal([]);
  });

  it('saves the running box’s disk in a slot of the tier, and refuses one more than the tier has', async () => {
    const { user, box } = await owner('HACKER');
    const res = await take(user, box, '  hardened ssh  ');
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.include({ name: 'hardened ssh', sizeBytes: 4096 });
    expect(t.orchestrator.snapshots.get(res.body.id)).to.deep.equal({
      boxId: box.id,
      disk: t.orchestrator.diskOf(box.id),
    });
    expect((await list(user, box)).body).to.deep.equal({ snapshots: [res.body], slots: 1 });
    const second = await take(user, box, 'another');
    expect(second.status).to.equal(409);
    expect(second.body.message).to.equal(SNAPSHOT_MESSAGES.slotsFull);
    expect(await rows(box)).to.have.length(1);
  });

  it('gives exactly one of two snapshots taken at once the last slot', async () => {
    const { user, box } = await owner('HACKER');
    const answers = await Promise.all([take(user, box, 'one'), take(user, box, 'two')]);
    expect(answers.map((a) => a.status).sort()).to.deep.equal([201, 409]);
    expect(await rows(box)).to.have.length(1);
  });

  it('refuses bad names, a taken name and a box that never ran; a failed snapshot frees its slot', async () => {
    const { user, box } = await owner('ELITE', { started: false });
    const none = await take(user, box, 'first');
    expect(none.status).to.equal(409);
    expect(none.body.message).to.equal(SNAPSHOT_MESSAGES.noDisk);
    expect(await rows(box)).to.deep.equal([]);
    await t.call('POST', `/boxes/${box.hostname}/power`, { token: user.token, body: { on: true } });
    await waitFor(
      () => t.call<Box>('GET', '/boxes/my', { token: user.token }).then((r) => r.body),
      (b) => b.status === 'RUNNING',
      { what: 'a running box' },
    );
    for (const name of [
      '',
      '   ',
      'two\nlines',
      'nul\u0000byte',
      'line\u2028separator',
      'bidi \u202Eevil',
      'x'.repeat(SNAPSHOT_NAME_MAX + 1),
    ]) {
      const res = await take(user, box, name);
      expect(res.status, JSON.stringify(name)).to.equal(400);
    }
    const extra = await t.call('POST', `/boxes/${box.hostname}/snapshots`, {
      token: user.token,
      body: { name: 'ok', privileged: true },
    });
    expect(extra.status).to.equal(400);
    t.orchestrator.failNextSnapshot = new Error('tar: write error');
    const failed = await take(user, box, 'first');
    expect(failed.status).to.equal(503);
    expect(failed.body.message).to.equal(SNAPSHOT_MESSAGES.failed);
    expect(await rows(box)).to.deep.equal([]);
    expect((await take(user, box, 'first')).status).to.equal(201);
    const taken = await take(user, box, 'first');
    expect(taken.status).to.equal(409);
    expect(taken.body.message).to.equal(SNAPSHOT_MESSAGES.nameTaken);
    expect(await rows(box)).to.have.length(1);
  });

  it('restores a snapshot after a reset: its disk and its services back, the box powered off', async () => {
    const { user, box } = await owner('HACKER');
    const saved = t.orchestrator.diskOf(box.id);
    const before = await loadout(box);
    const snapshot = (await take(user, box, 'hardened')).body;
    const reset = await t.call<Box>('POST', `/boxes/${box.hostname}/reset`, { token: user.token });
    expect(reset.status).to.equal(200);
    expect(await loadout(box)).to.not.deep.equal(before);
    expect(t.orchestrator.diskOf(box.id)).to.equal(null);
    // A reset keeps the snapshots.
    expect((await list(user, box)).body.snapshots).to.deep.equal([snapshot]);

    const res = await restore(user, box, snapshot.id);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.statusReason).to.equal(SNAPSHOT_MESSAGES.restored);
    expect(await loadout(box)).to.deep.equal(before);
    expect(t.orchestrator.diskOf(box.id)).to.equal(saved);
    expect(
      (await t.db.query('select desired_power from boxes where id = $1', [box.id])).rows[0],
    ).to.deep.equal({
      desired_power: false,
    });
    // Started again, the runtime boots it with the snapshot's services (none installed again: the disk has them).
    await t.call('POST', `/boxes/${box.hostname}/power`, { token: user.token, body: { on: true } });
    const spec = await waitFor(
      () => t.orchestrator.appliedTo(box.id).at(-1),
      (s) => s?.power === true,
      { what: 'the restarted box' },
    );
    expect(spec!.loadout).to.deep.equal(before);
    expect(t.orchestrator.diskOf(box.id)).to.equal(saved);
    // The snapshot stays for another restore.
    expect((await list(user, box)).body.snapshots).to.have.length(1);
  });

  it('lets the box loop go on while a restore waits for its runtime: other boxes converge meanwhile', async () => {
    const { user, box } = await owner('HACKER');
    const snapshot = (await take(user, box, 'slow')).body;
    const other = await owner('HACKER', { started: false });
    let release!: () => void;
    t.orchestrator.holdRestore = new Promise((resolve) => (release = resolve));
    try {
      const restoring = restore(user, box, snapshot.id);
      await waitFor(
        async () => (await t.db.query('select status_reason from boxes where id = $1', [box.id])).rows[0],
        (row) => row?.status_reason === SNAPSHOT_MESSAGES.restored,
        { what: 'the restore under way' },
      );
      // Another player's power-on converges through a pass of the loop while the restore still waits.
      await t.db.query('update boxes set desired_power = true where id = $1', [other.box.id]);
      await t.platform.boxes.tick();
      expect(t.orchestrator.appliedTo(other.box.id).at(-1)?.power).to.equal(true);
      release();
      expect((await restoring).status).to.equal(200);
    } finally {
      t.orchestrator.holdRestore = null;
      release();
    }
  });

  it('refuses a restore or a snapshot under attack, and a restore whose image is gone; the box keeps what it has', async () => {
    const { user, box } = await owner('HACKER');
    const snapshot = (await take(user, box, 'safe')).body;
    const now = t.orchestrator.writeDisk(box.id);
    const before = await loadout(box);
    t.orchestrator.imageGone.add(snapshot.id);
    const gone = await restore(user, box, snapshot.id);
    expect(gone.status).to.equal(409);
    expect(gone.body.message).to.equal(SNAPSHOT_MESSAGES.imageGone);
    expect(await loadout(box)).to.deep.equal(before);
    expect(t.orchestrator.diskOf(box.id)).to.equal(now);
    // Nor its power: a running box stays on (a stop would also end the attack below as a forfeit).
    const power = await t.db.query<{ desired_power: boolean }>(
      'select desired_power from boxes where id = $1',
      [box.id],
    );
    expect(power.rows[0]!.desired_power, 'the box’s power').to.equal(true);
    t.orchestrator.imageGone.delete(snapshot.id);

    const attacker = await t.account();
    await t.db.query(
      `insert into attacks (attacker_id, target_id, box_id, cost_cents, ends_at) values ($1, $2, $3, 0, now() + interval '30 minutes')`,
      [attacker.id, user.id, box.id],
    );
    const refused = await restore(user, box, snapshot.id);
    expect(refused.status).to.equal(409);
    expect(refused.body.message).to.equal(ATTACK_MESSAGES.underAttack);
    expect(t.orchestrator.diskOf(box.id)).to.equal(now);
    // Nor is one taken mid-fight (reading a running disk freezes it a moment).
    await t.db.query('delete from box_snapshots where box_id = $1', [box.id]);
    const frozen = await take(user, box, 'mid-fight');
    expect(frozen.status).to.equal(409);
    expect(frozen.body.message).to.equal(ATTACK_MESSAGES.underAttack);
    expect(await rows(box)).to.deep.equal([]);
    await t.db.query('delete from attacks where box_id = $1', [box.id]);
  });

  it('keeps every snapshot to its owner: another player’s box or snapshot answers 404', async () => {
    const a = await owner('HACKER');
    const b = await owner('HACKER');
    const mine = (await take(a.user, a.box, 'mine')).body;
    for (const [method, path] of [
      ['GET', `/boxes/${a.box.hostname}/snapshots`],
      ['POST', `/boxes/${a.box.hostname}/snapshots/${mine.id}/restore`],
      ['DELETE', `/boxes/${a.box.hostname}/snapshots/${mine.id}`],
      // Their own box with another's snapshot.
      ['POST', `/boxes/${b.box.hostname}/snapshots/${mine.id}/restore`],
      ['DELETE', `/boxes/${b.box.hostname}/snapshots/${mine.id}`],
      ['DELETE', `/boxes/${b.box.hostname}/snapshots/not-a-uuid`],
    ] as const) {
      const res = await t.call(method, path, { token: b.user.token });
      expect(res.status, `${method} ${path}`).to.equal(404);
    }
    expect(await rows(a.box)).to.have.length(1);
    expect(t.orchestrator.snapshots.has(mine.id)).to.equal(true);
  });

  it('deletes a snapshot (its slot free again), and a deleted box takes its snapshots with it', async () => {
    const { user, box } = await owner('HACKER');
    const first = (await take(user, box, 'first')).body;
    const gone = await t.call('DELETE', `/boxes/${box.hostname}/snapshots/${first.id}`, {
      token: user.token,
    });
    expect(gone.status).to.equal(200);
    expect(t.orchestrator.snapshots.has(first.id)).to.equal(false);
    const second = await take(user, box, 'second');
    expect(second.status).to.equal(201);
    expect((await t.call('DELETE', `/boxes/${box.id}`, { token: user.token })).status).to.equal(200);
    await waitFor(
      async () => t.orchestrator.snapshots.has(second.body.id),
      (held) => !held,
      { what: 'the deleted box’s snapshot removed' },
    );
    expect(await rows(box)).to.deep.equal([]);
  });
});
