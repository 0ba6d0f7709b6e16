import { expect } from 'chai';
import type {
  AgentReport,
  Attack,
  AttackEvent,
  Box,
  CommandLog,
  StartAttackResponse,
} from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';

describe('attacks: what box agents report', function () {
  let t: BoxTestPlatform;
  let seq = 0;

  before(async () => {
    t = await startBoxPlatform({ orchestrator: { boot: 'instant' } });
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
      body: (await r.json()) as { lastSeq: number; stored: number },
    }));

  const exec = (
    peer: string | null,
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
    peer,
  });
  const events = async (who: TestAccount, attack: Attack) =>
    (await t.call<AttackEvent[]>('GET', `/attack/${attack.id}/attack-logs`, { token: who.token })).body;
  const logs = async (who: TestAccount, attack: Attack) =>
    (await t.call<CommandLog[]>('GET', `/attack/${attack.id}/logs`, { token: who.token })).body;

  it('refuses an unknown secret and malformed batches, storing nothing', async () => {
    const { target, attack } = await fight();
    expect((await report(null, { events: [exec(null, 0, 'id')] })).status).to.equal(401);
    expect((await report('not-a-secret', { events: [exec(null, 0, 'id')] })).status).to.equal(401);
    expect((await report(target.secret, { events: [] })).status).to.equal(400);
    expect((await report(target.secret, { events: [{ kind: 'exec', seq: 1 }] })).status).to.equal(400);
    expect(
      (await report(target.secret, { events: [{ ...exec('10.8.0.999', 1000, 'id') }] })).status,
    ).to.equal(400);
    const many = Array.from({ length: 501 }, () => ({
      kind: 'heartbeat',
      seq: ++seq,
      time: new Date().toISOString(),
      sessions: [],
    }));
    expect((await report(target.secret, { events: many })).status).to.equal(400);
    expect((await report(target.secret, { events: [exec(null, 0, 'x'.repeat(9000))] })).status).to.equal(400);
    expect(await events(target, attack)).to.deep.equal([]);
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it("turns the attacker's user shell into a FOOTHOLD and the kill chain, and root into OWNED", async () => {
    const { attacker, target, attack } = await fight();
    const first = await report(target.secret, {
      events: [exec(attacker.vpn, 33, 'bash -i'), exec(attacker.vpn, 33, 'id; uname -a')],
    });
    expect(first.status).to.equal(200);
    expect(first.body.stored).to.equal(2);
    let seen = await events(attacker, attack);
    expect(seen.map((e) => e.type)).to.deep.equal(['COMMAND', 'FOOTHOLD', 'COMMAND']);
    expect((await t.platform.attacks.get(attack.id))!.outcome).to.equal('PENDING');

    await report(target.secret, { events: [exec(attacker.vpn, 0, 'cat /etc/shadow')] });
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

  it('counts a set-user-ID root shell (effective uid 0) as OWNED', async () => {
    const { attacker, target, attack } = await fight();
    const suid = { ...exec(attacker.vpn, 1000, 'bash -p'), euid: 0, source: 'scan' as const };
    expect((await report(target.secret, { events: [suid] })).status).to.equal(200);
    expect((await t.platform.attacks.get(attack.id))!.outcome).to.equal('OWNED');
  });

  it('is not served on the public port, and holds each box to a report rate', async () => {
    const { target, attack } = await fight();
    const pub = await fetch(`${t.platform.baseUrl}/internal/agent/report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${target.secret}` },
      body: JSON.stringify({ events: [exec(null, 0, 'id')] }),
    });
    expect(pub.status).to.equal(404);
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        report(target.secret, {
          events: [{ kind: 'heartbeat', seq: ++seq, time: new Date().toISOString(), sessions: [] }],
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200).length).to.be.within(1, 20);
    expect(statuses).to.include(429);
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it("never makes the owner's own activity an attack event", async () => {
    const { attacker, target, attack } = await fight();
    const answer = await report(target.secret, {
      events: [
        exec(target.vpn, 0, 'apt-get upgrade'),
        exec(null, 0, 'cron job'),
        exec('10.9.9.9', 0, 'stranger'),
      ],
    });
    expect(answer.body.stored).to.equal(0);
    expect(await events(attacker, attack)).to.deep.equal([]);
    expect((await t.platform.attacks.get(attack.id))!.outcome).to.equal('PENDING');
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it('stores a delivered-again batch once', async () => {
    const { attacker, target, attack } = await fight();
    const batch = { events: [exec(attacker.vpn, 1000, 'whoami'), exec(attacker.vpn, 1000, 'ls -la')] };
    const a = await report(target.secret, batch);
    const b = await report(target.secret, batch);
    expect(a.body).to.deep.equal({ lastSeq: seq, stored: 2 });
    expect(b.body).to.deep.equal({ lastSeq: seq, stored: 0 });
    expect(await logs(attacker, attack)).to.have.length(2);
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it("cannot write to another box's attack", async () => {
    const { attacker, attack } = await fight();
    const bystander = await player();
    await report(bystander.secret, { events: [exec(attacker.vpn, 0, 'forged root shell')] });
    expect(await events(attacker, attack)).to.deep.equal([]);
    expect((await t.platform.attacks.get(attack.id))!.outcome).to.equal('PENDING');
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });

  it('hears from heartbeats that the attacker was evicted (DEFENDED at the limit)', async () => {
    const { attacker, target, attack } = await fight();
    await report(target.secret, { events: [exec(attacker.vpn, 1000, 'sh')] });
    const beat = (sessions: { peer: string; uid: number }[]) => ({
      kind: 'heartbeat' as const,
      seq: ++seq,
      time: new Date().toISOString(),
      sessions,
    });
    await report(target.secret, { events: [beat([{ peer: attacker.vpn, uid: 1000 }])] });
    await report(target.secret, { events: [beat([{ peer: target.vpn, uid: 0 }])] });
    expect((await events(attacker, attack)).map((e) => e.type)).to.deep.equal([
      'COMMAND',
      'FOOTHOLD',
      'EVICTED',
    ]);
    await t.db.query('update attacks set ends_at = now() where id = $1', [attack.id]);
    await t.platform.attacks.settleDue();
    expect((await t.platform.attacks.get(attack.id))!.outcome).to.equal('DEFENDED');
  });

  it('records a silent agent during an attack once, and its return', async () => {
    const { attacker, target, attack } = await fight();
    await t.db.query(`update boxes set agent_seen_at = now() - interval '1 hour' where id = $1`, [
      target.box.id,
    ]);
    // The platform's own watch runs too; both together must record the silence once.
    await Promise.all([t.platform.ingest.checkSilence(), t.platform.ingest.checkSilence()]);
    await t.platform.ingest.checkSilence();
    expect((await events(attacker, attack)).map((e) => e.type)).to.deep.equal(['AGENT_SILENT']);
    await report(target.secret, {
      events: [{ kind: 'heartbeat', seq: ++seq, time: new Date().toISOString(), sessions: [] }],
    });
    expect((await events(attacker, attack)).map((e) => e.type)).to.deep.equal(['AGENT_SILENT', 'AGENT_BACK']);
    await t.platform.attacks.settle(attack.id, 'CANCELLED');
  });
});
