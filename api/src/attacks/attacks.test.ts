import { expect } from 'chai';
import {
  ATTACK_MESSAGES,
  type Attack,
  type AttackHistoryItem,
  type Box,
  type StartAttackResponse,
} from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';
import { attackerScore, mmrChange, winnerOf } from './rating.ts';

describe('attacks: rating', () => {
  it('moves equal ratings by half of K on a win or a loss, and not at all on a foothold', () => {
    expect(mmrChange(1000, 1000, 1, 32)).to.equal(16);
    expect(mmrChange(1000, 1000, 0, 32)).to.equal(-16);
    expect(mmrChange(1000, 1000, 0.5, 32)).to.equal(0);
  });
  it('pays more for beating a stronger defender than a weaker one', () => {
    expect(mmrChange(1000, 1400, 1, 32)).to.equal(29);
    expect(mmrChange(1400, 1000, 1, 32)).to.equal(3);
    expect(mmrChange(1400, 1000, 0, 32)).to.equal(-29);
  });
  it('scores outcomes for the attacker and names the winner', () => {
    expect(attackerScore('OWNED', 0.5)).to.equal(1);
    expect(attackerScore('FOOTHOLD', 0.6)).to.equal(0.6);
    expect(attackerScore('DEFENDED', 0.5)).to.equal(0);
    expect(attackerScore('TIMEOUT', 0.5)).to.equal(0);
    expect(attackerScore('CANCELLED', 0.5)).to.equal(null);
    expect(winnerOf('FOOTHOLD')).to.equal('attacker');
    expect(winnerOf('TIMEOUT')).to.equal('target');
    expect(winnerOf('CANCELLED')).to.equal(null);
  });
});

describe('attacks: lifecycle through the API', function () {
  let t: BoxTestPlatform;

  before(async () => {
    t = await startBoxPlatform({ orchestrator: { boot: 'instant' } });
  });
  after(async () => {
    await t?.close();
  });

  /** A player with a running box and, unless told otherwise, a live VPN client. */
  async function player(
    options: { vpn?: boolean; box?: boolean } = {},
  ): Promise<TestAccount & { box: Box | null }> {
    const user = await t.account();
    let box: Box | null = null;
    if (options.box !== false) {
      const created = await t.call<Box>('POST', '/boxes', { token: user.token, body: {} });
      await t.call('POST', `/boxes/${created.body.hostname}/power`, {
        token: user.token,
        body: { on: true },
      });
      box = await waitFor(
        async () => (await t.call<Box>('GET', '/boxes/my', { token: user.token })).body,
        (b) => b.status === 'RUNNING',
        { what: 'a running box' },
      );
    }
    if (options.vpn !== false) await t.orchestrator.connectVpn(user.id);
    if (box) owners.set(box.id, user.id);
    return { ...user, box };
  }

  /** Box id → its owner, for the consent below. */
  const owners = new Map<string, string>();
  /** POST /attack/{boxId} with the target's consent (an accepted challenge gives it). */
  const attack = (attacker: TestAccount, boxId: string, options: { consent?: boolean } = {}) => {
    const owner = owners.get(boxId);
    if (options.consent !== false && owner) t.platform.attacks.consent(attacker.id, owner);
    return t.call<StartAttackResponse & { message: string }>('POST', `/attack/${boxId}`, {
      token: attacker.token,
    });
  };
  const mmr = async (user: TestAccount) =>
    (await t.db.query<{ mmr: number }>('select mmr from users where id = $1', [user.id])).rows[0]!.mmr;
  const attacksOf = async (user: TestAccount) =>
    Number(
      (await t.db.query('select count(*) from attacks where attacker_id = $1', [user.id])).rows[0].count,
    );

  it('starts a direct attack: the target box without its secrets, the cost charged, the window opened', async () => {
    const attacker = await player();
    const target = await player();
    const answer = await attack(attacker, target.box!.id);
    expect(answer.status).to.equal(201);
    const { attack: started, box } = answer.body;
    expect(started.outcome).to.equal('PENDING');
    expect(started.attacker).to.deep.equal({ id: attacker.id, handle: attacker.handle });
    expect(started.target).to.deep.equal({ id: target.id, handle: target.handle });
    expect(box).to.include({ id: target.box!.id, hostname: target.box!.hostname, status: 'RUNNING' });
    expect(box).not.to.have.property('ssh_password');
    const ledger = await t.db.query(
      `select credits_delta_cents + free_credits_delta_cents as delta from credit_ledger
        where user_id = $1 and reason = 'ATTACK'`,
      [attacker.id],
    );
    expect(ledger.rows.map((r) => Number(r.delta))).to.deep.equal([-500]); // BASIC: 5 credits
    const windows = t.orchestrator.attackWindows();
    expect(
      windows.some((w) => w.attackerUserId === attacker.id && w.targetBoxId === target.box!.id),
    ).to.equal(true);
    await t.call('POST', `/attack/${started.id}/cancel`, { token: attacker.token });
  });

  it('publishes changes of the target box while the attack runs, once each, and none after it', async () => {
    const attacker = await player();
    const target = await player();
    const seen: { attackId: string; box: { openPorts: Record<string, string>; status: string } }[] = [];
    const listener = (e: (typeof seen)[number]) => seen.push(e);
    t.platform.attacks.events.on('attackBoxUpdated', listener);
    try {
      const { attack: started } = (await attack(attacker, target.box!.id)).body;
      t.orchestrator.setOpenPorts(target.box!.id, { '22': 'ssh', '8080': 'http-alt' });
      await waitFor(
        () => seen.filter((e) => e.box.openPorts['8080'] === 'http-alt'),
        (found) => found.length > 0,
        { what: 'the new port published' },
      );
      // The loop's next passes (same box) publish nothing new.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const published = seen.filter((e) => e.attackId === started.id);
      expect(published.filter((e) => e.box.openPorts['8080'])).to.have.length(1);
      expect(published.every((e) => e.box.status === 'RUNNING')).to.equal(true);

      await t.call('POST', `/attack/${started.id}/cancel`, { token: attacker.token });
      const count = seen.length;
      t.orchestrator.setOpenPorts(target.box!.id, { '22': 'ssh' });
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(seen.length, 'published after the attack ended').to.equal(count);
    } finally {
      t.platform.attacks.events.off('attackBoxUpdated', listener);
    }
  });

  it('refuses what the rules forbid, with a message, and starts nothing', async () => {
    const attacker = await player();
    const offVpn = await player({ vpn: false });
    const boxless = await player({ box: false });
    const stopped = await player();
    await t.call('POST', `/boxes/${stopped.box!.hostname}/power`, {
      token: stopped.token,
      body: { on: false },
    });
    await waitFor(
      async () => (await t.call<Box>('GET', '/boxes/my', { token: stopped.token })).body.status,
      (s) => s === 'STOPPED',
    );
    const target = await player();

    expect((await attack(attacker, attacker.box!.id)).body).to.include({
      statusCode: 403,
      message: ATTACK_MESSAGES.ownBox,
    });
    expect((await attack(attacker, offVpn.box!.id)).body).to.include({
      statusCode: 409,
      message: ATTACK_MESSAGES.targetOffline,
    });
    expect((await attack(attacker, stopped.box!.id)).body).to.include({
      statusCode: 409,
      message: ATTACK_MESSAGES.targetNotRunning,
    });
    expect((await attack(boxless, target.box!.id)).body).to.include({
      statusCode: 409,
      message: ATTACK_MESSAGES.attackerNoBox,
    });
    expect((await attack(offVpn, target.box!.id)).body).to.include({
      statusCode: 409,
      message: ATTACK_MESSAGES.attackerNoVpn,
    });
    expect((await attack(attacker, '00000000-0000-4000-8000-000000000000')).body).to.include({
      statusCode: 404,
      message: ATTACK_MESSAGES.targetNotFound,
    });
    expect((await attack(attacker, 'not-a-box')).status).to.equal(400);
    expect((await t.call('POST', `/attack/${target.box!.id}`)).status).to.equal(401);

    // No money: 402 and nothing is left behind.
    await t.db.query('update users set credits_cents = 0, free_credits_cents = 0 where id = $1', [
      attacker.id,
    ]);
    expect((await attack(attacker, target.box!.id)).body).to.include({
      statusCode: 402,
      message: ATTACK_MESSAGES.cannotPay,
    });
    expect(await attacksOf(attacker)).to.equal(0);
  });

  it('starts no attack without the target’s consent, and none across a block either way', async () => {
    const attacker = await player();
    const target = await player();
    expect((await attack(attacker, target.box!.id, { consent: false })).body).to.include({
      statusCode: 403,
      message: ATTACK_MESSAGES.noConsent,
    });
    // A consent is for one attack: used once, it is gone.
    const first = await attack(attacker, target.box!.id);
    expect(first.status).to.equal(201);
    await t.call('POST', `/attack/${first.body.attack.id}/cancel`, { token: attacker.token });
    expect((await attack(attacker, target.box!.id, { consent: false })).body).to.include({
      statusCode: 403,
      message: ATTACK_MESSAGES.noConsent,
    });
    // Blocks, whoever blocked whom: even with a consent.
    for (const [blocker, blocked] of [
      [target, attacker],
      [attacker, target],
    ] as const) {
      await t.db.query('insert into user_blocks (blocker_id, blocked_id) values ($1, $2)', [
        blocker.id,
        blocked.id,
      ]);
      expect((await attack(attacker, target.box!.id)).body).to.include({
        statusCode: 409,
        message: ATTACK_MESSAGES.blocked,
      });
      await t.db.query('delete from user_blocks');
    }
    expect(await attacksOf(attacker)).to.equal(1);
  });

  it('refuses a target whose box cannot pay for the whole time limit, and never stops it for money in a fight', async () => {
    const attacker = await player();
    const poor = await player();
    // One credit: a few minutes of a BASIC box, not the attack's time limit.
    await t.db.query('update users set credits_cents = 0, free_credits_cents = 100 where id = $1', [poor.id]);
    expect((await attack(attacker, poor.box!.id)).body).to.include({
      statusCode: 409,
      message: ATTACK_MESSAGES.targetCannotPay,
    });
    const target = await player();
    const started = (await attack(attacker, target.box!.id)).body.attack;
    // Broke in the middle of the fight (a tier change, a refund): the box stays up until the end.
    await t.db.query('update users set credits_cents = 0, free_credits_cents = 0 where id = $1', [target.id]);
    await t.db.query(
      `update boxes set session_started_at = now() - interval '10 minutes', usage_counted_until = now() - interval '10 minutes',
              session_charged_minutes = 0 where id = $1`,
      [target.box!.id],
    );
    await t.platform.boxes.tick();
    const box = (await t.call<Box>('GET', '/boxes/my', { token: target.token })).body;
    expect(box.status).to.equal('RUNNING');
    expect(
      (await t.db.query('select desired_power from boxes where id = $1', [target.box!.id])).rows[0],
    ).to.deep.equal({
      desired_power: true,
    });
    await t.call('POST', `/attack/${started.id}/cancel`, { token: attacker.token });
  });

  it('refuses power-off, reset and delete of a box under attack with 409, and allows them once it ended', async () => {
    const attacker = await player();
    const target = await player();
    const started = (await attack(attacker, target.box!.id)).body.attack;
    const off = await t.call<{ message: string }>('POST', `/boxes/${target.box!.hostname}/power`, {
      token: target.token,
      body: { on: false },
    });
    expect(off.body).to.include({ statusCode: 409, message: ATTACK_MESSAGES.underAttack });
    const removed = await t.call<{ message: string }>('DELETE', `/boxes/${target.box!.id}`, {
      token: target.token,
    });
    expect(removed.body).to.include({ statusCode: 409, message: ATTACK_MESSAGES.underAttack });
    // Nor a reset to a fresh disk mid-fight: the loadout and the disk stay.
    const loadout = (await t.db.query('select loadout from boxes where id = $1', [target.box!.id])).rows[0];
    const reset = await t.call<{ message: string }>('POST', `/boxes/${target.box!.hostname}/reset`, {
      token: target.token,
    });
    expect(reset.body).to.include({ statusCode: 409, message: ATTACK_MESSAGES.underAttack });
    expect(
      (await t.db.query('select loadout from boxes where id = $1', [target.box!.id])).rows[0],
    ).to.deep.equal(loadout);
    expect((await t.call<Box>('GET', '/boxes/my', { token: target.token })).body.status).to.equal('RUNNING');
    await t.call('POST', `/attack/${started.id}/cancel`, { token: attacker.token });
    expect(
      (
        await t.call('POST', `/boxes/${target.box!.hostname}/power`, {
          token: target.token,
          body: { on: false },
        })
      ).status,
    ).to.equal(200);
  });

  it('ends the attack as a win for the attacker when the defender’s box goes down, with the reason', async () => {
    const attacker = await player();
    const target = await player();
    const [attackerBefore, targetBefore] = [await mmr(attacker), await mmr(target)];
    const started = (await attack(attacker, target.box!.id)).body.attack;
    t.orchestrator.powerOffInside(target.box!.id);
    const ended = await waitFor(
      async () =>
        (await t.call<AttackHistoryItem[]>('GET', '/attack/history/all', { token: target.token })).body.find(
          (a) => a.id === started.id,
        )!,
      (a) => a.outcome !== 'PENDING',
      { what: 'the forfeit' },
    );
    expect(ended.outcome).to.equal('OWNED');
    expect(await mmr(attacker)).to.equal(attackerBefore + 16);
    expect(await mmr(target)).to.equal(targetBefore - 16);
    const events = (
      await t.call<{ type: string; details: { message: string } }[]>(
        'GET',
        `/attack/${started.id}/attack-logs`,
        { token: attacker.token },
      )
    ).body;
    expect(events.map((e) => e.type)).to.deep.equal(['FORFEIT']);
    expect(events[0]!.details.message).to.match(/went down/);
  });

  it('moves no MMR for a bail in the first minute, and MMR as for a TIMEOUT for a later one', async () => {
    const attacker = await player();
    const target = await player();
    const before = [await mmr(attacker), await mmr(target)];
    const early = (await attack(attacker, target.box!.id)).body.attack;
    const cancelled = await t.call<{ attack: Attack }>('POST', `/attack/${early.id}/cancel`, {
      token: attacker.token,
    });
    expect(cancelled.body.attack).to.include({ outcome: 'CANCELLED', winnerId: null, mmrChange: null });
    expect([await mmr(attacker), await mmr(target)]).to.deep.equal(before);

    const late = (await attack(attacker, target.box!.id)).body.attack;
    await t.db.query(`update attacks set created_at = now() - interval '61 seconds' where id = $1`, [
      late.id,
    ]);
    const bailed = await t.call<{ attack: Attack }>('POST', `/attack/${late.id}/cancel`, {
      token: attacker.token,
    });
    expect(bailed.body.attack).to.include({ outcome: 'CANCELLED', winnerId: target.id, mmrChange: -16 });
    expect([await mmr(attacker), await mmr(target)]).to.deep.equal([before[0]! - 16, before[1]! + 16]);
    const events = (
      await t.call<{ type: string }[]>('GET', `/attack/${late.id}/attack-logs`, { token: target.token })
    ).body;
    expect(events.map((e) => e.type)).to.deep.equal(['BAILED']);
  });

  it('rates at most three results a day between the same two players; more fights run unrated and say so', async () => {
    const attacker = await player();
    const target = await player();
    const own = async () => {
      const started = (await attack(attacker, target.box!.id)).body.attack;
      await t.platform.attacks.recordOwn(started.id, 'Root shell: id');
      return started;
    };
    for (let i = 0; i < 3; i++) expect((await own()).rated).to.equal(true);
    const before = [await mmr(attacker), await mmr(target)];
    // The other way round is the same pair.
    t.platform.attacks.consent(target.id, attacker.id);
    const reverse = await t.call<StartAttackResponse>('POST', `/attack/${attacker.box!.id}`, {
      token: target.token,
    });
    expect(reverse.body.attack.rated).to.equal(false);
    await t.call('POST', `/attack/${reverse.body.attack.id}/cancel`, { token: target.token });
    const fourth = await own();
    expect(fourth.rated).to.equal(false);
    const settled = (await t.platform.attacks.get(fourth.id))!;
    expect(settled).to.include({ outcome: 'OWNED', winnerId: attacker.id, mmrChange: null });
    expect([await mmr(attacker), await mmr(target)]).to.deep.equal(before);
    const events = (
      await t.call<{ type: string; details: { message: string } }[]>(
        'GET',
        `/attack/${fourth.id}/attack-logs`,
        { token: attacker.token },
      )
    ).body;
    expect(events[0]).to.deep.include({ type: 'UNRATED' });
    expect(events[0]!.details.message).to.equal(
      'Unrated: you two have had 3 rated fights in the last 24 hours.',
    );
    // Kill Chains says which of the pair's fights were rated.
    const history = await t.call<{ id: string; rated: boolean }[]>('GET', '/attack/history/all?limit=5', {
      token: target.token,
    });
    // Newest first: the fourth, the reverse one, then the three rated.
    expect(history.body.map((h) => h.rated)).to.deep.equal([false, false, true, true, true]);
    expect(history.body[0]!.id).to.equal(fourth.id);
  });

  it('ends an attack it cannot open a window for at once, and gives the cost back as it was paid', async () => {
    const attacker = await player();
    const target = await player();
    const balances = async () =>
      (
        await t.db.query(
          'select credits_cents::int as c, free_credits_cents::int as f from users where id = $1',
          [attacker.id],
        )
      ).rows[0];
    const before = await balances();
    t.orchestrator.failWindows = new Error('nft refused');
    try {
      const answer = await attack(attacker, target.box!.id);
      expect(answer.status).to.equal(503);
    } finally {
      t.orchestrator.failWindows = null;
    }
    expect(await balances()).to.deep.equal(before);
    const row = (await t.db.query('select status from attacks where attacker_id = $1', [attacker.id]))
      .rows[0];
    expect(row.status).to.equal('CANCELLED');
    // And the players are free for the next one.
    expect((await attack(attacker, target.box!.id)).status).to.equal(201);
    await t.platform.attacks.settle((await t.platform.attacks.runningFor(attacker.id))!.id, 'CANCELLED');
  });

  it('lets a player take part in one running attack at a time, even when starts race', async () => {
    const [a, b, c, d] = [await player(), await player(), await player(), await player()];
    // One after the other, across roles: a target cannot attack, an attacker cannot be attacked.
    const first = (await attack(a, b.box!.id)).body.attack;
    expect((await attack(b, c.box!.id)).body).to.include({
      statusCode: 409,
      message: ATTACK_MESSAGES.attackerBusy,
    });
    expect((await attack(c, a.box!.id)).body).to.include({
      statusCode: 409,
      message: ATTACK_MESSAGES.targetBusy,
    });
    expect((await attack(a, c.box!.id)).body).to.include({
      statusCode: 409,
      message: ATTACK_MESSAGES.attackerBusy,
    });
    await t.platform.attacks.settle(first.id, 'CANCELLED');
    // At once:
    const answers = await Promise.all([
      attack(a, b.box!.id),
      attack(a, c.box!.id),
      attack(d, b.box!.id),
      attack(b, c.box!.id),
    ]);
    const started = answers.filter((r) => r.status === 201);
    const refused = answers.filter((r) => r.status === 409);
    expect(started.length + refused.length).to.equal(4);
    const busy = new Set<string>();
    for (const r of started) {
      for (const id of [r.body.attack.attacker.id, r.body.attack.target.id]) {
        expect(busy.has(id), 'a player in two running attacks').to.equal(false);
        busy.add(id);
      }
    }
    expect(started.length).to.be.within(1, 2);
    const running = await t.db.query(
      `select count(*) from attacks where status = 'PENDING' and (attacker_id = any($1) or target_id = any($1))`,
      [[a.id, b.id, c.id, d.id]],
    );
    expect(Number(running.rows[0].count)).to.equal(started.length);
    for (const r of started) await t.platform.attacks.settle(r.body.attack.id, 'CANCELLED');
  });

  it("cancels ('Too Hard For Me') for the attacker only: no MMR moves, the window closes", async () => {
    const attacker = await player();
    const target = await player();
    const stranger = await player();
    const { attack: started } = (await attack(attacker, target.box!.id)).body;
    const before = [await mmr(attacker), await mmr(target)];
    expect((await t.call('POST', `/attack/${started.id}/cancel`, { token: stranger.token })).status).to.equal(
      404,
    );
    expect(
      (await t.call<{ message: string }>('POST', `/attack/${started.id}/cancel`, { token: target.token }))
        .body.message,
    ).to.equal(ATTACK_MESSAGES.notAttacker);
    const cancelled = await t.call<{ attack: Attack }>('POST', `/attack/${started.id}/cancel`, {
      token: attacker.token,
    });
    expect(cancelled.status).to.equal(200);
    expect(cancelled.body.attack).to.include({
      outcome: 'CANCELLED',
      winnerId: null,
      loserId: null,
      mmrChange: null,
    });
    expect([await mmr(attacker), await mmr(target)]).to.deep.equal(before);
    expect(t.orchestrator.attackWindows().some((w) => w.attackerUserId === attacker.id)).to.equal(false);
    expect(
      (await t.call<{ message: string }>('POST', `/attack/${started.id}/cancel`, { token: attacker.token }))
        .body.message,
    ).to.equal(ATTACK_MESSAGES.alreadyEnded);
  });

  it('settles OWNED at once and exactly once, however many events race, and moves MMR once', async () => {
    const attacker = await player();
    const target = await player();
    const { attack: started } = (await attack(attacker, target.box!.id)).body;
    const before = [await mmr(attacker), await mmr(target)];
    const ended: string[] = [];
    const onEnded = (e: { attackId: string; result: string }) => {
      if (e.attackId === started.id) ended.push(e.result);
    };
    t.platform.attacks.events.on('attackEnded', onEnded);
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => t.platform.attacks.recordOwn(started.id, 'root shell')),
      t.platform.attacks.settle(started.id, 'TIMEOUT'),
      t.platform.attacks.settle(started.id, 'CANCELLED'),
    ]);
    t.platform.attacks.events.off('attackEnded', onEnded);
    expect(results.filter(Boolean)).to.have.length(1);
    expect(ended).to.have.length(1);
    const settled = (await t.platform.attacks.get(started.id))!;
    const change = settled.mmrChange ?? 0;
    expect([await mmr(attacker), await mmr(target)]).to.deep.equal([
      before[0]! + change,
      before[1]! - change,
    ]);
    if (settled.outcome === 'OWNED') {
      expect(change).to.be.greaterThan(0);
      expect(settled).to.include({ winnerId: attacker.id, loserId: target.id });
    }
    expect(t.orchestrator.attackWindows().some((w) => w.attackerUserId === attacker.id)).to.equal(false);
  });

  it('at the time limit settles FOOTHOLD if held, DEFENDED if the attacker was evicted, TIMEOUT if never in', async () => {
    const pairs = await Promise.all(
      Array.from({ length: 3 }, async () => [await player(), await player()] as const),
    );
    const ids: string[] = [];
    for (const [attacker, target] of pairs) ids.push((await attack(attacker, target.box!.id)).body.attack.id);
    await t.platform.attacks.recordFoothold(ids[0]!, 'user shell');
    await t.platform.attacks.recordFoothold(ids[1]!, 'user shell');
    await t.platform.attacks.recordEviction(ids[1]!, 'shell gone');
    await t.db.query('update attacks set ends_at = now() where id = any($1)', [ids]);
    await t.platform.attacks.settleDue();
    const outcomes = await Promise.all(ids.map(async (id) => (await t.platform.attacks.get(id))!.outcome));
    expect(outcomes).to.deep.equal(['FOOTHOLD', 'DEFENDED', 'TIMEOUT']);
    const events = await t.platform.attacks.attackEvents(pairs[1]![0].id, ids[1]!);
    expect(events.map((e) => e.type)).to.deep.equal(['FOOTHOLD', 'EVICTED']);
  });

  it('hears the referee out before settling at the time limit: a root shell in the last moment counts', async () => {
    const attacker = await player();
    const target = await player();
    const id = (await attack(attacker, target.box!.id)).body.attack.id;
    await t.db.query('update attacks set ends_at = now() where id = $1', [id]);
    // The referee is still judging the last second when the time is up.
    let asked = 0;
    t.platform.attacks.refereeSettled = async () => {
      asked++;
      await new Promise((resolve) => setTimeout(resolve, 100));
      await t.platform.attacks.recordOwn(id, 'Root shell: id');
    };
    try {
      await t.platform.attacks.settleDue();
    } finally {
      t.platform.attacks.refereeSettled = null;
    }
    expect(asked).to.equal(1);
    expect((await t.platform.attacks.get(id))!.outcome).to.equal('OWNED');
  });

  it('stores a batch of programs in order, each exec once (in the batch and across batches), none after the end', async () => {
    const attacker = await player();
    const target = await player();
    const started = (await attack(attacker, target.box!.id)).body.attack;
    const command = (key: string | null, text: string) => ({
      key,
      time: new Date(),
      user: 'www-data',
      uid: 33,
      cwd: '/tmp',
      command: text,
      pid: 4242,
      peer: '10.8.0.9',
    });
    const first = await t.platform.attacks.recordCommands(started.id, [
      command('1:10', 'id'),
      command('1:11', 'uname -a'),
      command('1:10', 'id'), // the same exec, read twice
      command(null, 'from an agent'),
    ]);
    expect(first).to.deep.equal([true, true, false, true]);
    expect(
      await t.platform.attacks.recordCommands(started.id, [
        command('1:11', 'uname -a'),
        command('1:12', 'ls'),
      ]),
    ).to.deep.equal([false, true]);
    const logs = await t.call<{ command: string }[]>('GET', `/attack/${started.id}/logs`, {
      token: attacker.token,
    });
    expect(logs.body.map((l) => l.command)).to.deep.equal(['id', 'uname -a', 'from an agent', 'ls']);
    const events = await t.call<{ type: string; details: { message: string } }[]>(
      'GET',
      `/attack/${started.id}/attack-logs`,
      { token: attacker.token },
    );
    expect(events.body.filter((e) => e.type === 'COMMAND').map((e) => e.details.message)).to.deep.equal([
      'id',
      'uname -a',
      'from an agent',
      'ls',
    ]);
    await t.call('POST', `/attack/${started.id}/cancel`, { token: attacker.token });
    expect(await t.platform.attacks.recordCommands(started.id, [command('1:13', 'too late')])).to.deep.equal([
      false,
    ]);
  });

  it('shows history and logs to the two players only', async () => {
    const attacker = await player();
    const target = await player();
    const stranger = await player();
    const { attack: started } = (await attack(attacker, target.box!.id)).body;
    await t.platform.attacks.recordFoothold(started.id, 'user shell');
    expect(target.box!.ip).to.be.a('string');
    for (const user of [attacker, target]) {
      const history = await t.call<AttackHistoryItem[]>('GET', '/attack/history/all?limit=3', {
        token: user.token,
      });
      expect(history.body[0]).to.include({ id: started.id, outcome: 'PENDING', targetIp: target.box!.ip });
      expect(
        (await t.call<unknown[]>('GET', `/attack/${started.id}/attack-logs`, { token: user.token })).body,
      ).to.have.length(1);
      expect((await t.call('GET', `/attack/${started.id}/logs`, { token: user.token })).status).to.equal(200);
    }
    expect(
      (await t.call('GET', `/attack/${started.id}/attack-logs`, { token: stranger.token })).status,
    ).to.equal(404);
    expect((await t.call('GET', `/attack/${started.id}/logs`, { token: stranger.token })).status).to.equal(
      404,
    );
    expect(
      (await t.call<unknown[]>('GET', '/attack/history/all', { token: stranger.token })).body,
    ).to.deep.equal([]);
    expect((await t.call('GET', '/attack/history/all?limit=0', { token: attacker.token })).status).to.equal(
      400,
    );
    await t.platform.attacks.settle(started.id, 'CANCELLED');
  });
});
