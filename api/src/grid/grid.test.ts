import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Socket } from 'socket.io-client';
import {
  GRID_MESSAGES,
  type Box,
  type EngageResponse,
  type GridNotification,
  type GridPlayer,
  type MatchExpiredPayload,
  type MatchProposal,
  type QueueInfo,
  type StartAttackResponse,
  type TargetInfo,
} from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { joinGrid } from '../testing/grid-client.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';
import { Geo } from './geo.ts';
import { pairPlayers, type Candidate } from './matchmaking.ts';

describe('grid: geolocation', () => {
  const geo = new Geo();
  it('finds the country of a public address, offline', () => {
    expect(geo.countryOf('8.8.8.8')).to.equal('US');
    expect(geo.countryOf('::ffff:8.8.8.8')).to.equal('US');
  });
  it('places private, loopback and malformed addresses nowhere', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '192.168.0.7', '::1', 'fd00::1', 'not an ip', ''])
      expect(geo.countryOf(address), address).to.equal(null);
    expect(geo.locate(null, '127.0.0.1')).to.deep.equal({
      country: null,
      countryCode: null,
      latitude: null,
      longitude: null,
    });
  });
  it("shows the country's centroid, and the profile's country wins over the address", () => {
    const us = geo.locate(null, '8.8.8.8');
    expect(us.country).to.equal('United States');
    expect(us.latitude).to.be.a('number');
    const de = geo.locate('DE', '8.8.8.8');
    expect(de).to.include({ country: 'Germany', countryCode: 'DE' });
    expect(geo.locate('germany', null).countryCode).to.equal('DE');
    expect(geo.locate('Atlantis', null).country).to.equal(null);
  });
});

describe('grid: pairing', () => {
  const window = { base: 100, perSecond: 25, cap: 800 };
  const c = (
    userId: string,
    mmr: number,
    waitedSeconds = 0,
    lastOpponentId: string | null = null,
    canDefend = true,
  ): Candidate => ({
    userId,
    mmr,
    waitedSeconds,
    lastOpponentId,
    canDefend,
  });
  const none = () => false;
  const asPairs = (pairs: ReturnType<typeof pairPlayers>) =>
    pairs.map((p) => [p.attacker.userId, p.defender.userId].sort().join('+')).sort();

  it('pairs the closest MMR within the window; the one who waited longer attacks', () => {
    const pairs = pairPlayers(
      [c('a', 1000, 10), c('b', 1500, 5), c('c', 1050, 2), c('d', 1480, 1)],
      window,
      none,
    );
    expect(asPairs(pairs)).to.deep.equal(['a+c', 'b+d']);
    expect(
      pairs.find((p) => p.attacker.userId === 'a' || p.defender.userId === 'a')!.attacker.userId,
    ).to.equal('a');
  });
  it('widens the window with waiting time, up to its cap', () => {
    expect(pairPlayers([c('a', 1000, 0), c('b', 1300, 0)], window, none)).to.have.length(0);
    expect(pairPlayers([c('a', 1000, 8), c('b', 1300, 0)], window, none)).to.have.length(1); // 100 + 200
    expect(pairPlayers([c('a', 1000, 1000), c('b', 1900, 0)], window, none)).to.have.length(0); // cap 800
  });
  it('never pairs a blocked pair nor last opponents again in a row', () => {
    const blocked = (x: string, y: string) => [x, y].sort().join() === 'a,b';
    expect(asPairs(pairPlayers([c('a', 1000), c('b', 1000), c('c', 1090)], window, blocked))).to.deep.equal([
      'a+c',
    ]);
    expect(
      asPairs(pairPlayers([c('a', 1000, 0, 'b'), c('b', 1000), c('c', 1090)], window, none)),
    ).to.deep.equal(['a+c']);
  });
  it('never makes a player whose box cannot pay for an attack a defender, nor pairs two of them', () => {
    // b waited longer but cannot defend: b attacks, a defends.
    const [pair] = pairPlayers([c('b', 1000, 30, null, false), c('a', 1000, 1)], window, none);
    expect([pair!.attacker.userId, pair!.defender.userId]).to.deep.equal(['b', 'a']);
    // Two who cannot defend are no pair; each finds one who can.
    expect(
      pairPlayers([c('x', 1000, 5, null, false), c('y', 1000, 5, null, false)], window, none),
    ).to.deep.equal([]);
    const pairs = pairPlayers(
      [c('x', 1000, 9, null, false), c('y', 1001, 8, null, false), c('p', 1002, 1), c('q', 1003, 1)],
      window,
      none,
    );
    expect(pairs).to.have.length(2);
    for (const p of pairs) expect(p.defender.canDefend).to.equal(true);
  });
  it('pairs everyone it can among many, each once', () => {
    const many = Array.from({ length: 5000 }, (_, i) => c(`u${i}`, 800 + ((i * 7919) % 1200), i % 60));
    const pairs = pairPlayers(many, window, none);
    const ids = pairs.flatMap((p) => [p.attacker.userId, p.defender.userId]);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(pairs.length).to.be.greaterThan(2400);
    for (const p of pairs) expect(Math.abs(p.attacker.mmr - p.defender.mmr)).to.be.at.most(800);
  });
});

describe('grid: the /grid socket, matchmaking, PvP and notifications', function () {
  this.timeout(60_000);
  let t: BoxTestPlatform;
  const sockets: Socket[] = [];

  before(async () => {
    t = await startBoxPlatform({
      orchestrator: { boot: 'instant' },
      env: {
        GRID_PRESENCE_GRACE_SECONDS: '0.4',
        MATCH_TICK_MS: '100',
        MATCH_PROPOSAL_SECONDS: '1.5',
        MATCH_NO_MATCH_SECONDS: '0.5',
        MATCH_WINDOW_BASE: '100',
        MATCH_WINDOW_PER_SECOND: '200',
        MATCH_WINDOW_CAP: '500',
      },
    });
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  after(async () => {
    await t?.close();
  });

  const join = (user: TestAccount) => joinGrid(t.platform.baseUrl, user, sockets);

  async function player(options: { vpn?: boolean; box?: boolean; mmr?: number } = {}) {
    const user = await t.account();
    let box: Box | null = null;
    if (options.mmr !== undefined)
      await t.db.query('update users set mmr = $1 where id = $2', [options.mmr, user.id]);
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
    return { ...user, box };
  }

  const queue = (user: TestAccount) =>
    t.call<QueueInfo & { message: string }>('POST', '/attack/queue/join', { token: user.token });
  const estimate = async (user: TestAccount) =>
    (await t.call<{ estimateSeconds: number }>('GET', '/attack/queue/estimate', { token: user.token })).body
      .estimateSeconds;
  const engage = (user: TestAccount, proposalId: string) =>
    t.call<EngageResponse & { message: string }>('POST', '/attack/queue/engage', {
      token: user.token,
      body: { proposalId },
    });
  const endAll = async () => {
    const running = await t.db.query<{ id: string }>(`select id from attacks where status = 'PENDING'`);
    for (const { id } of running.rows) await t.platform.attacks.settle(id, 'CANCELLED');
    await t.db.query(`delete from match_queue`);
    await t.db.query(`update match_proposals set state = 'EXPIRED', ended_at = now() where state = 'OPEN'`);
  };
  afterEach(endAll);

  describe('presence', () => {
    it('shows who is online in the initial state and to everyone as they come and go (after the grace period)', async () => {
      const alice = await player({ box: false, vpn: false });
      const bob = await player({ box: false, vpn: false });
      const a = await join(alice);
      const initial = await a.state();
      expect(initial.players.map((p) => p.id)).to.include(alice.id);
      expect(initial).to.include.keys('attacks', 'globalChatMessages', 'blockedUsers');
      const me = initial.players.find((p) => p.id === alice.id)!;
      expect(me).to.deep.include({ handle: alice.handle, mmr: 1000, country: null, latitude: null });

      const b1 = await join(bob);
      expect((await a.next<GridPlayer>('playerUpdated', (p) => p.id === bob.id)).handle).to.equal(bob.handle);
      // A second socket, then the first one closes: still online.
      const b2 = await join(bob);
      b1.socket.close();
      await a.none('playerOffline', 700);
      // The last one closes and comes back within the grace period: still online, no news.
      b2.socket.close();
      await sleep(100);
      const b3 = await join(bob);
      await a.none('playerOffline', 700);
      b3.socket.close();
      expect(await a.next<string>('playerOffline', (id) => id === bob.id)).to.equal(bob.id);
      expect((await a.state()).players.map((p) => p.id)).not.to.include(bob.id);
    });

    it('takes a player who logs out off the globe at once', async () => {
      const alice = await player({ box: false, vpn: false });
      const bob = await player({ box: false, vpn: false });
      const a = await join(alice);
      const b = await join(bob);
      // The logout reaches presence (which takes a logged-out player off at once: presence.test.ts) ...
      const presence = t.platform.grid.presence;
      const loggedOut: string[] = [];
      const original = presence.loggedOut.bind(presence);
      presence.loggedOut = (userId: string) => {
        loggedOut.push(userId);
        original(userId);
      };
      try {
        b.socket.emit('logout');
        for (let i = 0; i < 200 && !loggedOut.includes(bob.id); i++) await sleep(10);
        expect(loggedOut).to.include(bob.id);
      } finally {
        presence.loggedOut = original;
      }
      // ... and the closed socket takes them off the globe.
      b.socket.close();
      await a.next<string>('playerOffline', (id) => id === bob.id);
    });

    it("places a player at their profile country's centroid", async () => {
      const alice = await player({ box: false, vpn: false });
      await t.db.query(`update users set country = 'FR' where id = $1`, [alice.id]);
      const a = await join(alice);
      const me = (await a.state()).players.find((p) => p.id === alice.id)!;
      expect(me).to.deep.include({ country: 'France', countryCode: 'FR' });
      expect(me.latitude).to.be.closeTo(46, 1);
    });
  });

  describe('attacks on the grid', () => {
    it('broadcasts attacks to everyone, the target box only to the two players; notifies the defender once', async () => {
      const attacker = await player();
      const target = await player();
      const watcher = await player({ box: false, vpn: false });
      const [a, d, w] = [await join(attacker), await join(target), await join(watcher)];
      t.platform.attacks.consent(attacker.id, target.id);
      const started = await t.call<StartAttackResponse>('POST', `/attack/${target.box!.id}`, {
        token: attacker.token,
      });
      expect(started.status).to.equal(201);
      const id = started.body.attack.id;
      expect(
        (await a.next<{ id: string; box: unknown }>('attackStarted', (x) => x.id === id)).box,
      ).to.not.equal(null);
      expect(
        (await d.next<{ id: string; box: unknown }>('attackStarted', (x) => x.id === id)).box,
      ).to.not.equal(null);
      expect((await w.next<{ id: string; box: unknown }>('attackStarted', (x) => x.id === id)).box).to.equal(
        null,
      );
      const inbound = await d.next<GridNotification>('notification', (n) => n.attackId === id);
      expect(inbound).to.deep.include({ type: 'ATTACK_INBOUND', title: 'Incoming attack' });
      expect(inbound.initiator).to.deep.equal({ id: attacker.id, handle: attacker.handle });
      await a.none('notification', 200);
      // The initial state carries it too, without the box for the watcher.
      const watcherState = await w.state();
      expect(watcherState.attacks.find((x) => x.id === id)?.box).to.equal(null);
      expect((await a.state()).attacks.find((x) => x.id === id)?.box).to.not.equal(null);

      await t.platform.attacks.recordOwn(id, 'root shell');
      for (const c of [a, d, w])
        expect(
          await c.next<{ attackId: string; result: string }>('attackEnded', (x) => x.attackId === id),
        ).to.include({
          result: 'OWNED',
        });
      const owned = await d.next<GridNotification>('notification', (n) => n.attackId === id);
      expect(owned.type).to.equal('ATTACK_OWNED');
      expect((await a.next<GridNotification>('notification', (n) => n.attackId === id)).type).to.equal(
        'ATTACK_OWNED',
      );
      // The new MMR reaches the globe.
      expect((await w.next<GridPlayer>('playerUpdated', (p) => p.id === attacker.id)).mmr).to.be.above(1000);
      // Settling again (racing paths) notifies nobody twice.
      await t.platform.grid.notifications.attackEnded(
        {
          id,
          attacker: { id: attacker.id, handle: attacker.handle },
          target: { id: target.id, handle: target.handle },
        },
        'OWNED',
      );
      await d.none('notification', 200);
    });

    it('keeps notifications of an absent player until a client acknowledges them', async () => {
      const attacker = await player();
      const target = await player();
      t.platform.attacks.consent(attacker.id, target.id);
      const started = await t.call<StartAttackResponse>('POST', `/attack/${target.box!.id}`, {
        token: attacker.token,
      });
      const id = started.body.attack.id;
      let d = await join(target);
      d.socket.emit('getInitialState');
      const first = await d.next<GridNotification>('notification', (n) => n.attackId === id);
      expect(first.type).to.equal('ATTACK_INBOUND');
      // Not acknowledged: sent again with the next initial state.
      d.socket.close();
      d = await join(target);
      d.socket.emit('getInitialState');
      const again = await d.next<GridNotification>('notification', (n) => n.attackId === id);
      expect(again.id).to.equal(first.id);
      d.socket.emit('notifications:ack', { ids: [first.id] });
      await sleep(200);
      d.socket.close();
      d = await join(target);
      await d.state();
      await d.none('notification', 300);
      // Someone else's acknowledgement changes nothing of hers.
      const other = await join(attacker);
      other.socket.emit('notifications:ack', { ids: [first.id] });
      other.socket.emit('notifications:ack', { ids: ['not-a-uuid'] });
      expect((await other.next<{ message: string }>('error')).message).to.be.a('string');
    });
  });

  describe('matchmaking', () => {
    it('refuses to queue without a running box or without the VPN, and answers -1 when not queued', async () => {
      const noBox = await player({ box: false });
      const noVpn = await player({ vpn: false });
      expect((await queue(noBox)).body.message).to.equal(GRID_MESSAGES.needBox);
      expect((await queue(noVpn)).status).to.equal(409);
      expect((await queue(noVpn)).body.message).to.equal(GRID_MESSAGES.needVpn);
      expect(await estimate(noVpn)).to.equal(-1);
      expect(
        (await t.db.query('select * from match_queue where user_id in ($1, $2)', [noBox.id, noVpn.id]))
          .rowCount,
      ).to.equal(0);
    });

    it('pairs two queued players, both engage, and the attack starts once', async () => {
      const alice = await player();
      const bob = await player();
      const [a, b] = [await join(alice), await join(bob)];
      const joined = await queue(alice);
      expect(joined.status).to.equal(200);
      expect(joined.body).to.include({ queued: true, position: 1 });
      expect(joined.body.estimateSeconds).to.be.at.least(1);
      await sleep(50);
      await queue(bob);
      const found = await a.next<MatchProposal>('match:found');
      expect(await b.next<MatchProposal>('match:found')).to.deep.equal(found);
      expect(found.attacker.id).to.equal(alice.id); // waited longer
      expect(found.defender).to.deep.equal({ id: bob.id, handle: bob.handle });
      // Open for MATCH_PROPOSAL_SECONDS from when it was made (the database's clock, both in one statement).
      const made = await t.db.query<{ seconds: string; expires_at: Date }>(
        'select extract(epoch from expires_at - created_at) as seconds, expires_at from match_proposals where id = $1',
        [found.proposalId],
      );
      expect(Number(made.rows[0]!.seconds)).to.equal(1.5);
      expect(Date.parse(found.expiresAt)).to.be.closeTo(made.rows[0]!.expires_at.getTime(), 1);
      expect(await estimate(alice)).to.equal(-1); // out of the queue while the proposal is open

      // A stranger cannot engage it.
      const stranger = await player({ box: false, vpn: false });
      expect((await engage(stranger, found.proposalId)).status).to.equal(404);
      // Both at once: exactly one attack.
      const answers = await Promise.all([engage(alice, found.proposalId), engage(bob, found.proposalId)]);
      const starts = await Promise.all([engage(alice, found.proposalId), engage(bob, found.proposalId)]);
      const all = [...answers, ...starts].filter((x) => x.status === 200 && x.body.started);
      expect(all).to.have.length(1);
      expect(all[0]!.body.attack!.attacker.id).to.equal(alice.id);
      const rows = await t.db.query(`select source from attacks where attacker_id = $1`, [alice.id]);
      expect(rows.rows).to.deep.equal([{ source: 'MATCH' }]);
      await a.next('attackStarted');
    });

    it('never proposes a defender whose box cannot pay for the attack: the one who can defends, and Engage starts it', async () => {
      const alice = await player();
      const bob = await player();
      // Bob has 10 credits: enough for an attack (5), not for 30 minutes of his box (20).
      await t.db.query('update users set credits_cents = 0, free_credits_cents = 1000 where id = $1', [
        bob.id,
      ]);
      const [a, b] = [await join(alice), await join(bob)];
      await queue(alice);
      await sleep(50);
      await queue(bob);
      // Alice waited longer, yet she defends: Bob's box could not last the attack.
      const found = await a.next<MatchProposal>('match:found');
      expect(await b.next<MatchProposal>('match:found')).to.deep.equal(found);
      expect([found.attacker.id, found.defender.id]).to.deep.equal([bob.id, alice.id]);
      await engage(alice, found.proposalId);
      const started = await engage(bob, found.proposalId);
      expect(started.status).to.equal(200);
      expect(started.body.started).to.equal(true);
      await a.next('attackStarted');
    });

    it('the first to engage waits for the other', async () => {
      const alice = await player();
      const bob = await player();
      const a = await join(alice);
      await join(bob);
      await queue(alice);
      await queue(bob);
      const found = await a.next<MatchProposal>('match:found');
      expect((await engage(bob, found.proposalId)).body).to.deep.equal({
        started: false,
        attack: null,
        box: null,
      });
      const second = await engage(alice, found.proposalId);
      expect(second.body.started).to.equal(true);
      expect(second.body.box!.id).to.equal(bob.box!.id);
    });

    it('sends an open proposal again with the initial state: a reload does not lose the match', async () => {
      const alice = await player();
      const bob = await player();
      const a = await join(alice);
      const first = await join(bob);
      await queue(alice);
      await queue(bob);
      const found = await a.next<MatchProposal>('match:found');
      await first.next('match:found');
      // Bob reloads the page (back within the grace period): the new page learns of the match.
      first.socket.close();
      const b = await join(bob);
      await b.state();
      // Sent before the state: a page that kept the proposal knows by then whether it still stands.
      expect(b.events.map(([event]) => event)).to.include('match:found');
      expect(await b.next<MatchProposal>('match:found')).to.deep.equal(found);
      // Once it ended, nobody gets it again.
      await t.call('POST', '/attack/queue/dismiss', {
        token: bob.token,
        body: { proposalId: found.proposalId },
      });
      await b.state();
      await b.none('match:found', 300);
    });

    it('expires a proposal nobody engaged in time (EXPIRED to both, neither stays queued)', async () => {
      const alice = await player();
      const bob = await player();
      const [a, b] = [await join(alice), await join(bob)];
      await queue(alice);
      await queue(bob);
      const found = await a.next<MatchProposal>('match:found');
      await engage(alice, found.proposalId);
      for (const c of [a, b])
        expect(await c.next<MatchExpiredPayload>('match:expired', undefined, 4000)).to.deep.equal({
          proposalId: found.proposalId,
          reason: 'EXPIRED',
        });
      expect(await estimate(alice)).to.equal(-1);
      expect((await engage(bob, found.proposalId)).status).to.equal(404);
    });

    it('a dismissal ends it for both: DISMISSED and OPPONENT_DISMISSED', async () => {
      const alice = await player();
      const bob = await player();
      const [a, b] = [await join(alice), await join(bob)];
      await queue(alice);
      await queue(bob);
      const found = await a.next<MatchProposal>('match:found');
      const dismissed = await t.call('POST', '/attack/queue/dismiss', {
        token: bob.token,
        body: { proposalId: found.proposalId },
      });
      expect(dismissed.status).to.equal(204);
      expect((await b.next<MatchExpiredPayload>('match:expired')).reason).to.equal('DISMISSED');
      expect((await a.next<MatchExpiredPayload>('match:expired')).reason).to.equal('OPPONENT_DISMISSED');
      const again = await t.call<{ message: string }>('POST', '/attack/queue/dismiss', {
        token: bob.token,
        body: { proposalId: found.proposalId },
      });
      expect(again.status).to.equal(404);
      expect(again.body.message).to.equal(GRID_MESSAGES.proposalNotFound);
      const bad = await t.call<{ message: string }>('POST', '/attack/queue/dismiss', {
        token: bob.token,
        body: { proposalId: 'x' },
      });
      expect(bad.status).to.equal(400);
    });

    it('when one leaves (the queue or the grid), the other stays queued: OPPONENT_LEFT', async () => {
      const alice = await player();
      const bob = await player();
      const [a, b] = [await join(alice), await join(bob)];
      await queue(alice);
      await queue(bob);
      const found = await a.next<MatchProposal>('match:found');
      expect((await t.call('POST', '/attack/queue/leave', { token: bob.token })).status).to.equal(204);
      expect(await a.next<MatchExpiredPayload>('match:expired')).to.deep.equal({
        proposalId: found.proposalId,
        reason: 'OPPONENT_LEFT',
      });
      expect(await estimate(alice)).to.not.equal(-1);
      expect(await estimate(bob)).to.equal(-1);
      await b.none('match:expired', 100);

      // The same pair is not matched again in a row; a third player is.
      await queue(bob);
      await a.none('match:found', 400);
      const carol = await player();
      const c = await join(carol);
      await queue(carol);
      const next = await c.next<MatchProposal>('match:found');
      expect([next.attacker.id, next.defender.id]).to.include(carol.id);
      // Carol's opponent closes the grid: after the grace period, Carol is back in the queue. The third
      // player leaves the queue first, or the tick could pair Carol with them at once (a new proposal).
      const opponent = next.attacker.id === carol.id ? next.defender.id : next.attacker.id;
      const bystander = opponent === alice.id ? bob : alice;
      expect((await t.call('POST', '/attack/queue/leave', { token: bystander.token })).status).to.equal(204);
      (opponent === alice.id ? a : b).socket.close();
      expect((await c.next<MatchExpiredPayload>('match:expired', undefined, 3000)).reason).to.equal(
        'OPPONENT_LEFT',
      );
      expect(await estimate(carol)).to.not.equal(-1);
    });

    it('never pairs a blocked pair; pairs far MMRs only once the window has widened', async () => {
      const alice = await player({ mmr: 1000 });
      const bob = await player({ mmr: 1000 });
      const [a, b] = [await join(alice), await join(bob)];
      a.socket.emit('chat:block', { blockUserId: bob.id });
      expect(await a.next<{ id: string; handle: string }>('userBlocked')).to.deep.equal({
        id: bob.id,
        handle: bob.handle,
      });
      expect((await a.state()).blockedUsers).to.deep.equal([{ id: bob.id, handle: bob.handle }]);
      await queue(alice);
      await queue(bob);
      await a.none('match:found', 500);
      a.socket.emit('chat:unblock', { unblockUserId: bob.id });
      expect(await a.next('userUnblocked')).to.deep.equal({ id: bob.id });
      await b.next('match:found');
      await endAll();

      const far = await player({ mmr: 1400 });
      const f = await join(far);
      const carol = await player({ mmr: 1000 });
      const c = await join(carol);
      await queue(carol);
      await queue(far);
      // 400 apart: the window (100 + 200/s) reaches it after 1.5 s of waiting.
      await c.none('match:found', 900);
      await f.next('match:found', undefined, 3000);
    });

    it('lets a player who waited at the widest window in vain go with queue:noMatch', async () => {
      const lonely = await player({ mmr: 3000 });
      const l = await join(lonely);
      await queue(lonely);
      const { message } = await l.next<{ message: string }>('queue:noMatch', undefined, 5000);
      expect(message).to.equal(GRID_MESSAGES.noMatch);
      expect(await estimate(lonely)).to.equal(-1);
    });
  });

  describe('PvP and target info', () => {
    it('challenge, accept: the attack starts with the requester attacking; decline tells the requester', async () => {
      const alice = await player();
      const bob = await player();
      const [a, b] = [await join(alice), await join(bob)];
      a.socket.emit('pvp:request', { targetId: bob.id });
      const incoming = await b.next<{ requester: { id: string; handle: string; mmr: number } }>(
        'pvp:request:incoming',
      );
      expect(incoming.requester).to.deep.equal({ id: alice.id, handle: alice.handle, mmr: 1000 });
      a.socket.emit('pvp:request', { targetId: bob.id });
      expect((await a.next<{ message: string }>('error')).message).to.equal(GRID_MESSAGES.pvpPending);
      b.socket.emit('pvp:decline', { requesterId: alice.id });
      expect((await a.next<{ decliner: unknown }>('pvp:request:declined')).decliner).to.deep.equal({
        id: bob.id,
        handle: bob.handle,
      });
      b.socket.emit('pvp:accept', { requesterId: alice.id });
      expect((await b.next<{ message: string }>('error')).message).to.equal(GRID_MESSAGES.pvpNotFound);

      a.socket.emit('pvp:request', { targetId: bob.id });
      await b.next('pvp:request:incoming');
      b.socket.emit('pvp:accept', { requesterId: alice.id });
      for (const c of [a, b]) {
        const { attack } = await c.next<{ attack: { attacker: { id: string }; target: { id: string } } }>(
          'pvp:request:accepted',
        );
        expect(attack.attacker.id).to.equal(alice.id);
        expect(attack.target.id).to.equal(bob.id);
      }
      expect(
        (await t.db.query(`select source from attacks where attacker_id = $1`, [alice.id])).rows,
      ).to.deep.equal([{ source: 'PVP' }]);
    });

    it('takes a queued player out of the queue when an attack of theirs starts (here a challenge they accepted)', async () => {
      const alice = await player();
      const bob = await player();
      const [a, b] = [await join(alice), await join(bob)];
      expect((await queue(bob)).status).to.equal(200);
      a.socket.emit('pvp:request', { targetId: bob.id });
      await b.next('pvp:request:incoming');
      b.socket.emit('pvp:accept', { requesterId: alice.id });
      await b.next('pvp:request:accepted');
      await waitFor(
        () => estimate(bob),
        (seconds) => seconds === -1,
        { what: 'bob out of the queue' },
      );
      await b.none('queue:noMatch', 1500); // nor told later that nobody was found
    });

    it('refuses challenges to blocked, offline or invalid targets with a clear error', async () => {
      const alice = await player();
      const bob = await player();
      const offline = await player({ box: false, vpn: false });
      const [a, b] = [await join(alice), await join(bob)];
      b.socket.emit('chat:block', { blockUserId: alice.id });
      await b.next('userBlocked');
      a.socket.emit('pvp:request', { targetId: bob.id });
      expect((await a.next<{ message: string }>('error')).message).to.equal(GRID_MESSAGES.pvpBlocked);
      a.socket.emit('pvp:request', { targetId: offline.id });
      expect((await a.next<{ message: string }>('error')).message).to.equal(GRID_MESSAGES.pvpOffline);
      a.socket.emit('pvp:request', { targetId: alice.id });
      expect((await a.next<{ message: string }>('error')).message).to.equal(GRID_MESSAGES.pvpSelf);
      a.socket.emit('pvp:request', { targetId: '<script>' });
      expect((await a.next<{ message: string }>('error')).message).to.equal('targetId must be a user id');
      await b.none('pvp:request:incoming', 200);
    });

    it('answers Defense % from finished defenses; 400 and 404 for bad ids', async () => {
      const attacker = await player();
      const target = await player();
      t.platform.attacks.consent(attacker.id, target.id);
      const first = await t.call<StartAttackResponse>('POST', `/attack/${target.box!.id}`, {
        token: attacker.token,
      });
      expect(
        (await t.call<TargetInfo>('GET', `/attack/target-info/${target.id}`, { token: attacker.token })).body,
      ).to.deep.include({
        defense: 0,
        defensesTotal: 0,
      });
      await t.platform.attacks.settle(first.body.attack.id, 'TIMEOUT');
      t.platform.attacks.consent(attacker.id, target.id);
      const second = await t.call<StartAttackResponse>('POST', `/attack/${target.box!.id}`, {
        token: attacker.token,
      });
      await t.platform.attacks.settle(second.body.attack.id, 'OWNED');
      t.platform.attacks.consent(attacker.id, target.id);
      const third = await t.call<StartAttackResponse>('POST', `/attack/${target.box!.id}`, {
        token: attacker.token,
      });
      await t.platform.attacks.settle(third.body.attack.id, 'CANCELLED');
      const info = await t.call<TargetInfo>('GET', `/attack/target-info/${target.id}`, {
        token: attacker.token,
      });
      expect(info.body).to.deep.include({
        userId: target.id,
        handle: target.handle,
        defense: 50,
        defensesSurvived: 1,
        defensesTotal: 2,
      });
      // What a scan of the target's box would find: its loadout's services, by port; nothing of their weaknesses.
      const mine = (await t.call<Box>('GET', '/boxes/my', { token: target.token })).body;
      expect(info.body.ports).to.deep.equal(mine.services.map(({ port, name }) => ({ port, name })));
      expect(info.body.ports.length).to.be.greaterThan(0);
      const boxless = await player({ box: false, vpn: false });
      expect(
        (await t.call<TargetInfo>('GET', `/attack/target-info/${boxless.id}`, { token: attacker.token })).body
          .ports,
      ).to.deep.equal([]);
      expect((await t.call('GET', '/attack/target-info/nope', { token: attacker.token })).status).to.equal(
        400,
      );
      expect(
        (
          await t.call('GET', '/attack/target-info/00000000-0000-4000-8000-000000000000', {
            token: attacker.token,
          })
        ).status,
      ).to.equal(404);
      expect((await t.call('GET', `/attack/target-info/${target.id}`)).status).to.equal(401);

      // A boxless player who makes one, or resets it, shows the new box's ports at once (not the cached ones).
      const created = await t.call<Box>('POST', '/boxes', { token: boxless.token, body: {} });
      const ports = async () =>
        (await t.call<TargetInfo>('GET', `/attack/target-info/${boxless.id}`, { token: attacker.token })).body
          .ports;
      expect(await ports()).to.deep.equal(created.body.services.map(({ port, name }) => ({ port, name })));
      const reset = await t.call<Box>('POST', `/boxes/${created.body.hostname}/reset`, {
        token: boxless.token,
      });
      expect(reset.status).to.equal(200);
      expect(await ports()).to.deep.equal(reset.body.services.map(({ port, name }) => ({ port, name })));
    });

    it('rate-limits a flood of client events with a clear error', async () => {
      const alice = await player({ box: false, vpn: false });
      const a = await join(alice);
      for (let i = 0; i < 60; i++) a.socket.emit('getInitialState');
      expect(
        (await a.next<{ message: string }>('error', (e) => e.message === GRID_MESSAGES.rateLimited)).message,
      ).to.equal(GRID_MESSAGES.rateLimited);
    });
  });
});
