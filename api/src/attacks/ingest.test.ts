import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type {
  AgentReport,
  Attack,
  AttackEvent,
  Box,
  CommandLog,
  Onboarding,
  StartAttackResponse,
} from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';
import type { RouterFlow } from '../testing/orchestrator.ts';

describe('attacks: what box agents report, backed by what the routers saw', function () {
  let t: BoxTestPlatform;
  let seq = 0;

  before(async () => {
    // Silence is a test of its own below (it needs another platform's clock).
    t = await startBoxPlatform({ orchestrator: { boot: 'instant' }, env: { AGENT_SILENCE_SECONDS: '3600' } });
  });
  after(async () => {
    await t?.close();
  });

  interface Player extends TestAccount {
    box: Box;
    vpn: string;
    /** The box agent's secret, as the runtime was given it. */
    secret: string;
  }

  async function player(): Promise<Player> {
    const user = await t.account();
    const created = await t.call<Box>('POST', '/boxes', { token: user.token, body: {} });
    await t.call('POST', `/boxes/${created.body.hostname}/power`, { token: user.token, body: { on: true } });
    const box = await waitFor(
      async () => (await t.call<Box>('GET', '/boxes/my', { token: user.token })).body,
      (b) => b.status === 'RUNNING',
    );
    const session = await t.orchestrator.connectVpn(user.id);
    const secret = t.orchestrator.applied.find((s) => s.id === box.id && s.agentToken)!.agentToken!;
    return { ...user, box, vpn: session!.vpnAddress, secret };
  }

  async function fight(): Promise<{ attacker: Player; target: Player; attack: Attack }> {
    const attacker = await player();
    const target = await player();
    t.platform.attacks.consent(attacker.id, target.id);
    const started = await t.call<StartAttackResponse>('POST', `/attack/${target.box.id}`, {
      token: attacker.token,
    });
    expect(started.status).to.equal(201);
    return { attacker, target, attack: started.body.attack };
  }

  const report = (secret: string | null, body: unknown) =>
    fetch(`${t.orchestrator.agentUrl}/internal/agent/report`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret ? { authorization: `Bearer ${secret}` } : {}),
      },
      body: JSON.stringify(body),
    }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { lastSeq: number; stored: number; watch: string[] },
    }));

  let port = 40000;
  /** A flow from the attacker's VPN address to the target box, as the router sees it. */
  const flow = (attacker: Player, target: Player, over: Partial<RouterFlow> = {}): RouterFlow => {
    const seen: RouterFlow = {
      client: attacker.vpn,
      clientPort: ++port,
      box: target.box.ip!,
      boxPort: 22,
      ...over,
    };
    t.orchestrator.routerSees(seen);
    return seen;
  };
  const exec = (
    on: { client: string; clientPort: number },
    uid: number,
    command: string,
    s = ++seq,
  ): AgentReport['events'][number] => ({
    kind: 'exec',
    seq: s,
    time: new Date().toISOString(),
    pid: 1000 + s,
    ppid: 1,
    uid,
    user: uid === 0 ? 'root' : 'www-data',
    cwd: uid === 0 ? '/root' : '/var/www',
    command,
    chain: [{ pid: 1, uid: 0, command: '/sbin/init' }],
    peer: on.client,
    peerPort: on.clientPort,
  });
  const beat = (
    sessions: { peer: string; peerPort: number; uid: number }[],
    connections: { peer: string; peerPort: number; localPort: number }[] = [],
    time = new Date(),
  ) => ({ kind: 'heartbeat' as const, seq: ++seq, time: time.toISOString(), sessions, connections });
  const events = async (who: TestAccount, attack: Attack) =>
    (await t.call<AttackEvent[]>('GET', `/attack/${attack.id}/attack-logs`, { token: who.token })).body;
  const logs = async (who: TestAccount, attack: Attack) =>
    (await t.call<CommandLog[]>('GET', `/attack/${attack.id}/logs`, { token: who.token })).body;
  const outcome = async (attack: Attack) => (await t.platform.attacks.get(attack.id))!.outcome;

  it('refuses an unknown secret and malformed batches, storing nothing', async () => {
    const { attacker, target, attack } = await fight();
    const on = flow(attacker, target);
    expect((await report(null, { events: [exec(on, 0, 'id')] })).status).to.equal(401);
    expect((await report('not-a-secret', { events: [exec(on, 0, 'id')] })).status).to.equal(401);
    expect((await report(target.secret, { events: [] })).status).to.equal(400);
    expect((await report(target.secret, { events: [{ kind: 'exec', seq: 1 }] })).status).to.equal(400);
    expect(
      (await report(target.secret, { events: [exec({ client: '10.8.0.999', clientPort: 1 }, 1000, 'id')] }))
        .status,
    ).to.equal(400);
    expect(
      (await report(target.secret, { events: [{ ...exec(on, 0, 'id'), peerPort: 70000 }] })).status,
    ).to.equal(400);
    const many = Array.from({ length: 501 }, () => beat([]));
    expect((await report(target.secret, { events: many })).status).to.equal(400);
    expect((await report(target.secret, { events: [exec(on, 0, 'x'.repeat(9000))] })).status).to.equal(400);
    // No NUL character reaches the database (a command line's or a user name's).
    expect((await report(target.secret, { events: [exec(on, 0, 'id\0-a')] })).status).to.equal(400);
    expect(
      (await report(target.secret, { events: [{ ...exec(on, 0, 'id'), user: 'ro\0ot' }] })).status,
    ).to.equal(400);
    // A heartbeat of every connection a router lets a player hold fits in a report; more do not.
    const connections = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        peer: '10.201.0.2',
        peerPort: (i % 60_000) + 1,
        localPort: 22,
      }));
    expect(
      (await report(target.secret, { events: [{ ...beat([]), connections: connections(8193) }] })).status,
    ).to.equal(400);
    expect(await events(target, attack)).to.deep.equal([]);
    const full = await report(target.secret, { events: [{ ...beat([]), connections: connections(8192) }] });
    expect(full.status, 'a heartbeat of 8,192 connections').to.equal(200);
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it("turns the attacker's user shell on a flow the router carried into a FOOTHOLD and the kill chain, and root into OWNED", async () => {
    const { attacker, target, attack } = await fight();
    const on = flow(attacker, target);
    const first = await report(target.secret, {
      events: [exec(on, 33, 'bash -i'), exec(on, 33, 'id; uname -a')],
    });
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ stored: 2 });
    expect(first.body.watch).to.deep.equal([attacker.vpn]);
    let seen = await events(attacker, attack);
    expect(seen.map((e) => e.type)).to.deep.equal(['COMMAND', 'FOOTHOLD', 'COMMAND']);
    expect(await outcome(attack)).to.equal('PENDING');

    await report(target.secret, { events: [exec(on, 0, 'cat /etc/shadow')] });
    const settled = (await t.platform.attacks.get(attack.id))!;
    expect(settled).to.include({ outcome: 'OWNED', winnerId: attacker.id, loserId: target.id });
    seen = await events(target, attack);
    expect(seen.map((e) => e.type)).to.deep.equal(['COMMAND', 'FOOTHOLD', 'COMMAND', 'COMMAND', 'OWN']);
    const chain = await logs(target, attack);
    expect(chain.map((l) => [l.user, l.cwd, l.command])).to.deep.equal([
      ['www-data', '/var/www', 'bash -i'],
      ['www-data', '/var/www', 'id; uname -a'],
      ['root', '/root', 'cat /etc/shadow'],
    ]);
  });

  it('waits for the router to tell of a new flow, and counts the program then', async () => {
    const { attacker, target, attack } = await fight();
    const on = { client: attacker.vpn, clientPort: ++port };
    await report(target.secret, { events: [exec(on, 1000, 'bash -i')] });
    expect(await events(attacker, attack)).to.deep.equal([]);
    t.orchestrator.routerSees({ ...on, box: target.box.ip!, boxPort: 8080 });
    await waitFor(
      async () => (await events(attacker, attack)).map((e) => e.type),
      (types) => types.includes('FOOTHOLD'),
    );
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it('counts nothing a box makes up: no flow, another port, a flow from before the attack, another box', async () => {
    const { attacker, target, attack } = await fight();
    const before = flow(attacker, target, { openedAt: Date.now() - 60_000 });
    const real = flow(attacker, target);
    const bystander = await player();
    flow(attacker, bystander);
    await report(target.secret, {
      events: [
        // The defender's second account's address, but no flow ever: a loss made up out of nothing.
        exec({ client: attacker.vpn, clientPort: 1 }, 0, 'made up root shell'),
        exec({ client: attacker.vpn, clientPort: real.clientPort + 1000 }, 0, 'another port'),
        exec(before, 0, 'the owner’s old session'),
      ],
    });
    // A box can only write to the attack on itself.
    await report(bystander.secret, { events: [exec(real, 0, 'forged root shell')] });
    // Their time to be told runs out (6 s); the routers report meanwhile.
    await sleep(6500);
    t.orchestrator.routerReports();
    await sleep(300);
    expect(await events(attacker, attack)).to.deep.equal([]);
    expect(await outcome(attack)).to.equal('PENDING');
    // Made-up programs held up nothing: a real one counts at once.
    await report(target.secret, { events: [exec(real, 1000, 'id')] });
    expect((await events(attacker, attack)).map((e) => e.type)).to.deep.equal(['COMMAND', 'FOOTHOLD']);
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it('takes root from the real uid: a set-user-ID program at its prompt is a FOOTHOLD', async () => {
    const { attacker, target, attack } = await fight();
    const on = flow(attacker, target);
    const su = { ...exec(on, 1000, 'su root'), euid: 0, source: 'hook' as const };
    expect((await report(target.secret, { events: [su] })).status).to.equal(200);
    expect((await events(attacker, attack)).map((e) => e.type)).to.deep.equal(['COMMAND', 'FOOTHOLD']);
    expect(await outcome(attack)).to.equal('PENDING');
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it('is not served on the public port, and holds each box to a report rate', async () => {
    const { target, attack } = await fight();
    const pub = await fetch(`${t.platform.baseUrl}/internal/agent/report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${target.secret}` },
      body: JSON.stringify({ events: [beat([])] }),
    });
    expect(pub.status).to.equal(404);
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => report(target.secret, { events: [beat([])] })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200).length).to.be.within(1, 20);
    expect(statuses).to.include(429);
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it("never makes the owner's own activity an attack event, and watches only the owner outside an attack", async () => {
    const { attacker, target, attack } = await fight();
    const owner = { client: target.vpn, clientPort: ++port };
    t.orchestrator.routerSees({ ...owner, box: target.box.ip!, boxPort: 22 });
    const answer = await report(target.secret, {
      events: [exec(owner, 0, 'apt-get upgrade'), exec({ client: '10.9.9.9', clientPort: 5 }, 0, 'stranger')],
    });
    expect(answer.body.stored).to.equal(0);
    expect(answer.body.watch).to.deep.equal([attacker.vpn]);
    expect(await events(attacker, attack)).to.deep.equal([]);
    expect(await outcome(attack)).to.equal('PENDING');
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
    // Outside the attack, only the owner (their first ssh login is not seen yet: the next test).
    expect((await report(target.secret, { events: [beat([])] })).body.watch).to.deep.equal([target.vpn]);
  });

  it("sees the owner's first ssh login from the heartbeats outside attacks, and nothing else as one", async () => {
    const owner = await player();
    const other = await player();
    const firstSsh = async (who: Player) =>
      (await t.call<Onboarding>('GET', '/users/me/onboarding', { token: who.token })).body.steps.find(
        (s) => s.step === 'FIRST_SSH',
      )?.done;
    // The step is listed: the box agents can see it.
    expect(await firstSsh(owner)).to.equal(false);
    // Not a login: another player's address on port 22, the owner on another port, a heartbeat from long ago.
    const notYet = await report(owner.secret, {
      events: [
        beat([], [{ peer: other.vpn, peerPort: 50001, localPort: 22 }]),
        beat([], [{ peer: owner.vpn, peerPort: 50002, localPort: 8080 }]),
        beat([], [{ peer: owner.vpn, peerPort: 50003, localPort: 22 }], new Date(Date.now() - 3_600_000)),
      ],
    });
    expect(notYet.body.watch).to.deep.equal([owner.vpn]);
    // Nor the owner seen on another player's box: each box speaks for its own owner only.
    await report(other.secret, { events: [beat([], [{ peer: owner.vpn, peerPort: 50004, localPort: 22 }])] });
    expect(await firstSsh(owner)).to.equal(false);
    expect(await firstSsh(other)).to.equal(false);
    // The owner's connection to their box's port 22: ticked, and nobody is watched any more.
    const seen = await report(owner.secret, {
      events: [beat([], [{ peer: owner.vpn, peerPort: 50005, localPort: 22 }])],
    });
    expect(seen.body.watch).to.deep.equal([]);
    expect(await firstSsh(owner)).to.equal(true);
  });

  it('stores a delivered-again batch once', async () => {
    const { attacker, target, attack } = await fight();
    const on = flow(attacker, target);
    const batch = { events: [exec(on, 1000, 'whoami'), exec(on, 1000, 'ls -la')] };
    const a = await report(target.secret, batch);
    const b = await report(target.secret, batch);
    expect(a.body).to.include({ lastSeq: seq, stored: 2 });
    expect(b.body).to.include({ lastSeq: seq, stored: 0 });
    expect(await logs(attacker, attack)).to.have.length(2);
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it('hears from heartbeats that the attacker was evicted (DEFENDED at the limit), or became root without a program start', async () => {
    const { attacker, target, attack } = await fight();
    const on = flow(attacker, target, { active: false });
    await report(target.secret, { events: [exec(on, 1000, 'sh')] });
    await report(target.secret, {
      events: [beat([{ peer: attacker.vpn, peerPort: on.clientPort, uid: 1000 }])],
    });
    // The owner's own root session is not the attacker's.
    await report(target.secret, { events: [beat([{ peer: target.vpn, peerPort: 50000, uid: 0 }])] });
    expect((await events(attacker, attack)).map((e) => e.type)).to.deep.equal([
      'COMMAND',
      'FOOTHOLD',
      'EVICTED',
    ]);
    await t.db.query('update attacks set ends_at = now() where id = $1', [attack.id]);
    await t.platform.attacks.settleDue();
    expect(await outcome(attack)).to.equal('DEFENDED');

    const second = await fight();
    const shell = flow(second.attacker, second.target, { active: false });
    await report(second.target.secret, { events: [exec(shell, 1000, 'python3 exploit.py')] });
    // Root on a connection no router saw opening in this window (what an earlier holder of the
    // address left running) is nobody's; on the attacker's own flow it is OWNED.
    await report(second.target.secret, {
      events: [beat([{ peer: second.attacker.vpn, peerPort: shell.clientPort + 1000, uid: 0 }])],
    });
    expect(await outcome(second.attack)).to.equal('PENDING');
    await report(second.target.secret, {
      events: [beat([{ peer: second.attacker.vpn, peerPort: shell.clientPort, uid: 0 }])],
    });
    expect(await outcome(second.attack)).to.equal('OWNED');
  });

  it('forfeits the defense of a box whose agent leaves out, heartbeat after heartbeat, a connection the router sees it use', async () => {
    const { attacker, target, attack } = await fight();
    // The attack began a minute ago and the flow opened 10 s ago (a flow just opened may not be
    // in the agent's look yet).
    await t.db.query(`update attacks set created_at = created_at - interval '1 minute' where id = $1`, [
      attack.id,
    ]);
    const shell = flow(attacker, target, { openedAt: Date.now() - 10_000, boxPort: 4444 });
    const listed = { peer: attacker.vpn, peerPort: shell.clientPort, localPort: 4444 };
    // Listing it, heartbeat after heartbeat: nothing to say.
    for (let i = 0; i < 4; i++) await report(target.secret, { events: [beat([], [listed])] });
    // Two that leave it out, then one that lists it again: the count starts over.
    for (let i = 0; i < 2; i++) await report(target.secret, { events: [beat([])] });
    await report(target.secret, { events: [beat([], [listed])] });
    // A heartbeat from the agent's spool (written long ago) proves nothing either way.
    for (let i = 0; i < 3; i++)
      await report(target.secret, { events: [beat([], [], new Date(Date.now() - 60_000))] });
    expect(await outcome(attack)).to.equal('PENDING');
    // A connection the box does not talk on (the router saw nothing from it lately) need not be listed.
    t.orchestrator.routerSees({ ...shell, active: false });
    for (let i = 0; i < 3; i++) await report(target.secret, { events: [beat([])] });
    expect(await outcome(attack)).to.equal('PENDING');
    // It talks again and three heartbeats in a row hide it.
    t.orchestrator.routerSees({ ...shell, active: true });
    for (let i = 0; i < 3; i++) await report(target.secret, { events: [beat([])] });
    expect(await t.platform.attacks.get(attack.id)).to.include({ outcome: 'OWNED', winnerId: attacker.id });
    const forfeits = (await events(attacker, attack)).filter((e) => e.type === 'FORFEIT');
    expect(forfeits.map((e) => e.details.message)).to.deep.equal([
      `The box agent's reports leave out a connection from the attacker (port ${shell.clientPort} to 4444) that the router sees the box use: the defender forfeits.`,
    ]);
  });
});

describe('attacks: a box agent that goes silent during an attack', function () {
  let t: BoxTestPlatform;
  let seq = 0;

  before(async () => {
    t = await startBoxPlatform({ orchestrator: { boot: 'instant' }, env: { AGENT_SILENCE_SECONDS: '5' } });
  });
  after(async () => {
    await t?.close();
  });

  async function player(): Promise<TestAccount & { box: Box; secret: string }> {
    const user = await t.account();
    const created = await t.call<Box>('POST', '/boxes', { token: user.token, body: {} });
    await t.call('POST', `/boxes/${created.body.hostname}/power`, { token: user.token, body: { on: true } });
    const box = await waitFor(
      async () => (await t.call<Box>('GET', '/boxes/my', { token: user.token })).body,
      (b) => b.status === 'RUNNING',
    );
    await t.orchestrator.connectVpn(user.id);
    const secret = t.orchestrator.applied.find((s) => s.id === box.id && s.agentToken)!.agentToken!;
    return { ...user, box, secret };
  }
  const heartbeat = (secret: string, time = new Date()) =>
    fetch(`${t.orchestrator.agentUrl}/internal/agent/report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({
        events: [{ kind: 'heartbeat', seq: ++seq, time: time.toISOString(), sessions: [], connections: [] }],
      }),
    }).then((r) => expect(r.status).to.equal(200));

  it('forfeits once the agents’ path is shown to work, not while no agent gets through, nor for spooled heartbeats', async function () {
    this.timeout(60_000);
    const attacker = await player();
    const target = await player();
    t.platform.attacks.consent(attacker.id, target.id);
    const started = await t.call<StartAttackResponse>('POST', `/attack/${target.box.id}`, {
      token: attacker.token,
    });
    expect(started.status).to.equal(201);
    const attack = started.body.attack;
    await heartbeat(target.secret);
    // Past the silence limit, but no agent of any box got through: the path, not the agent, failed.
    await sleep(6000);
    await t.platform.ingest.checkSilence();
    expect((await t.platform.attacks.get(attack.id))!.outcome).to.equal('PENDING');
    // The target's agent sends only heartbeats written long ago (its clock, or its spool): still silent.
    await heartbeat(target.secret, new Date(Date.now() - 60_000));
    // The attacker's box's agent gets through: the target's silence is the target's.
    await heartbeat(attacker.secret);
    await Promise.all([t.platform.ingest.checkSilence(), t.platform.ingest.checkSilence()]);
    const settled = (await t.platform.attacks.get(attack.id))!;
    expect(settled).to.include({ outcome: 'OWNED', winnerId: attacker.id });
    const timeline = (
      await t.call<AttackEvent[]>('GET', `/attack/${attack.id}/attack-logs`, { token: attacker.token })
    ).body;
    expect(timeline.map((e) => [e.type, e.details.message])).to.deep.equal([
      ['FORFEIT', 'The box agent stopped reporting during the attack (5 s): the defender forfeits.'],
    ]);
  });
});
