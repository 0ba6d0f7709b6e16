import { expect } from 'chai';
import type { CatalogueEntry } from '@exploit-grid/operator/catalogue';
import type { Attack, AttackEvent, Box, ServiceState, StartAttackResponse } from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { testLogger } from '../testing/logger.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';
import { SERVICE_CHECK_MESSAGES, ServiceChecks } from './service-checks.ts';

/** A way in whose service answers on `port` as the test orchestrator's services do. */
const entry = (id: string, port: number, type: 'http' | 'tcp'): CatalogueEntry => ({
  id,
  title: `Service ${id}`,
  kind: 'in',
  category: type === 'http' ? 'web' : 'network',
  difficulty: 1,
  weakness: 'a weakness for the tests',
  packages: [],
  units: [],
  services: [{ name: `Svc-${id}`, port, keeps: 'answers its clients as it did' }],
  check:
    type === 'http'
      ? { type, port, path: '/', method: 'GET', status: 200, contains: 'ok' }
      : { type, port, send: 'PING\r\n', contains: 'ok' },
  gives: 'www-data',
});
const catalogue = [entry('web-a', 8080, 'http'), entry('store-b', 6379, 'tcp')];
const LOADOUT = ['web-a', 'store-b'];

describe('attacks: the target’s services checked during the attack', function () {
  let t: BoxTestPlatform;
  let checks: ServiceChecks;
  const graceMs = 400;

  before(async () => {
    t = await startBoxPlatform({ orchestrator: { boot: 'instant' } });
    checks = new ServiceChecks({
      orm: t.platform.orm,
      orchestrator: t.orchestrator,
      attacks: t.platform.attacks,
      logger: testLogger,
      intervalMs: 60_000,
      graceMs,
      staggerMs: 0,
      catalogue,
    });
  });
  after(async () => {
    await checks?.stop();
    await t?.close();
  });

  async function player(): Promise<TestAccount & { box: Box }> {
    const user = await t.account();
    const created = await t.call<Box>('POST', '/boxes', { token: user.token, body: {} });
    await t.db.query('update boxes set loadout = $1 where id = $2', [LOADOUT, created.body.id]);
    await t.call('POST', `/boxes/${created.body.hostname}/power`, { token: user.token, body: { on: true } });
    const box = await waitFor(
      async () => (await t.call<Box>('GET', '/boxes/my', { token: user.token })).body,
      (b) => b.status === 'RUNNING',
      { what: 'a running box' },
    );
    await t.orchestrator.connectVpn(user.id);
    return { ...user, box };
  }

  async function fight(): Promise<{
    attacker: TestAccount;
    target: TestAccount & { box: Box };
    attack: Attack;
  }> {
    const attacker = await player();
    const target = await player();
    t.platform.attacks.consent(attacker.id, target.id);
    const started = await t.call<StartAttackResponse>('POST', `/attack/${target.box.id}`, {
      token: attacker.token,
    });
    expect(started.status).to.equal(201);
    return { attacker, target, attack: started.body.attack };
  }

  const attackRow = async (id: string) =>
    (
      await t.db.query<{
        status: string;
        services: ServiceState[];
        service_checks: number;
        service_checks_failed: number;
        services_up: boolean;
      }>(
        'select status, services, service_checks, service_checks_failed, services_up from attacks where id = $1',
        [id],
      )
    ).rows[0]!;
  const events = (user: TestAccount, id: string) =>
    t.call<AttackEvent[]>('GET', `/attack/${id}/attack-logs`, { token: user.token }).then((r) => r.body);
  const answer = (boxId: string, port: number, up: boolean | 'not-run') => {
    const ports = t.orchestrator.serviceAnswers.get(boxId) ?? new Map<number, boolean | 'not-run'>();
    ports.set(port, up);
    t.orchestrator.serviceAnswers.set(boxId, ports);
  };

  it('checks every published service from the attacker’s VPN address and keeps the results on the attack', async () => {
    const { attacker, target, attack } = await fight();
    const vpn = t.orchestrator.vpnSessions().find((s) => s.userId === attacker.id)!;
    const told: { attackId: string; attackerId: string; targetId: string; services: ServiceState[] }[] = [];
    const listener = (e: (typeof told)[number]) => told.push(e);
    t.platform.attacks.events.on('attackServices', listener);
    try {
      await checks.round();
    } finally {
      t.platform.attacks.events.off('attackServices', listener);
    }
    expect(t.orchestrator.probes.filter((p) => p.boxId === target.box.id)).to.deep.equal([
      { boxId: target.box.id, speakingAs: vpn.vpnAddress },
    ]);
    const row = await attackRow(attack.id);
    expect(row.services.map((s) => [s.name, s.port, s.up, s.downSince])).to.deep.equal([
      ['SSH', 22, true, null],
      ['Svc-store-b', 6379, true, null],
      ['Svc-web-a', 8080, true, null],
    ]);
    expect([row.service_checks, row.service_checks_failed, row.services_up]).to.deep.equal([3, 0, true]);
    const mine = told.filter((e) => e.attackId === attack.id);
    expect(mine).to.have.length(1);
    expect(mine[0]).to.include({ attackerId: attacker.id, targetId: target.id });
    // The attack as both players get it carries them.
    expect((await t.platform.attacks.get(attack.id))!.services).to.deep.equal(row.services);
    expect(mine[0]!.services).to.deep.equal(row.services);
    expect(await events(attacker, attack.id)).to.deep.equal([]);
    await t.platform.attacks.cancel(attacker.id, attack.id);
  });

  it('writes SERVICE_DOWN once while a service fails and SERVICE_UP when it answers again', async () => {
    const { attacker, target, attack } = await fight();
    answer(target.box.id, 8080, false);
    await checks.round();
    await checks.round();
    let row = await attackRow(attack.id);
    const web = row.services.find((s) => s.port === 8080)!;
    expect(web.up).to.equal(false);
    expect(web.detail).to.match(/^port 8080: no answer \(connect ECONNREFUSED/);
    expect([row.service_checks, row.service_checks_failed]).to.deep.equal([6, 2]);
    answer(target.box.id, 8080, true);
    await checks.round();
    row = await attackRow(attack.id);
    expect(row.services.every((s) => s.up)).to.equal(true);
    const timeline = await events(target, attack.id);
    expect(timeline.map((e) => [e.type, e.details.message])).to.deep.equal([
      ['SERVICE_DOWN', SERVICE_CHECK_MESSAGES.down({ name: 'Svc-web-a', port: 8080 }, web.detail!)],
      ['SERVICE_UP', SERVICE_CHECK_MESSAGES.up({ name: 'Svc-web-a', port: 8080 })],
    ]);
    expect(timeline[0]!.details).to.include({ service: 'Svc-web-a', port: 8080 });
    // A short outage forfeits nothing; with 2 of 9 checks failed the services did not stay up.
    expect([row.status, row.services_up]).to.deep.equal(['PENDING', false]);
    await t.platform.attacks.cancel(attacker.id, attack.id);
  });

  it('forfeits the defence when a service stays down past the grace period, and names it', async () => {
    const { attacker, target, attack } = await fight();
    answer(target.box.id, 6379, false);
    await checks.round();
    await checks.round();
    expect((await attackRow(attack.id)).status).to.equal('PENDING');
    await new Promise((resolve) => setTimeout(resolve, graceMs + 50));
    await checks.round();
    const row = await attackRow(attack.id);
    expect(row.status).to.equal('OWNED');
    expect((await t.platform.attacks.get(attack.id))!.winnerId).to.equal(attacker.id);
    const timeline = await events(target, attack.id);
    expect(timeline.map((e) => e.type)).to.deep.equal(['SERVICE_DOWN', 'FORFEIT']);
    expect(timeline[1]!.details.message).to.equal(
      SERVICE_CHECK_MESSAGES.forfeit([{ name: 'Svc-store-b', port: 6379 }], 0),
    );
    // Settled: no more rounds write to it.
    await checks.round();
    expect((await attackRow(attack.id)).service_checks).to.equal(row.service_checks);
  });

  it('blames nobody for a check it could not make, and judges the others of the round all the same', async () => {
    const { target, attack } = await fight();
    answer(target.box.id, 8080, 'not-run');
    answer(target.box.id, 6379, false);
    await checks.round();
    let row = await attackRow(attack.id);
    expect(row.services.map((s) => [s.port, s.up])).to.deep.equal([
      [22, true],
      [6379, false],
      [8080, null],
    ]);
    expect([row.service_checks, row.service_checks_failed]).to.deep.equal([2, 1]);
    // The service that could not be checked keeps what it was; the one down goes on to the forfeit.
    answer(target.box.id, 8080, true);
    await checks.round();
    answer(target.box.id, 8080, 'not-run');
    await new Promise((resolve) => setTimeout(resolve, graceMs + 50));
    await checks.round();
    row = await attackRow(attack.id);
    expect(row.services.find((s) => s.port === 8080)!.up).to.equal(true);
    expect(row.status).to.equal('OWNED');
    expect((await events(target, attack.id)).map((e) => e.type)).to.deep.equal(['SERVICE_DOWN', 'FORFEIT']);
  });

  it('checks nothing in a round where no check could be made', async () => {
    const { attacker, target, attack } = await fight();
    for (const port of [22, 6379, 8080]) answer(target.box.id, port, 'not-run');
    await checks.round();
    const row = await attackRow(attack.id);
    expect([row.service_checks, row.service_checks_failed, row.status]).to.deep.equal([0, 0, 'PENDING']);
    await t.platform.attacks.cancel(attacker.id, attack.id);
  });

  it('does not count time it saw nothing of (an API stopped for a while) towards the grace period', async () => {
    const { attacker, target, attack } = await fight();
    const longAgo = new Date(Date.now() - 3_600_000).toISOString();
    const stale = ['SSH', 'Svc-store-b', 'Svc-web-a'].map((name, i) => ({
      name,
      port: [22, 6379, 8080][i]!,
      up: name !== 'Svc-web-a',
      downSince: name === 'Svc-web-a' ? longAgo : null,
      detail: null,
      checkedAt: longAgo,
    }));
    await t.db.query('update attacks set services = $1 where id = $2', [JSON.stringify(stale), attack.id]);
    answer(target.box.id, 8080, false);
    await checks.round();
    const row = await attackRow(attack.id);
    expect(row.status).to.equal('PENDING');
    const web = row.services.find((s) => s.port === 8080)!;
    expect(Date.now() - Date.parse(web.downSince!)).to.be.below(60_000);
    await t.platform.attacks.cancel(attacker.id, attack.id);
  });

  it('checks a target the runtime shows PROVISIONING: its services decide, not what its init looks like', async () => {
    const { attacker, target, attack } = await fight();
    // The loop would put it back: as a box root's disguised init keeps it.
    await t.db.query(`update boxes set status = 'PROVISIONING' where id = $1`, [target.box.id]);
    answer(target.box.id, 8080, false);
    await checks.round();
    const row = await attackRow(attack.id);
    expect([row.service_checks, row.service_checks_failed]).to.deep.equal([3, 1]);
    await t.platform.attacks.cancel(attacker.id, attack.id);
  });

  it('checks nothing while the attacker has no VPN address (nowhere the box must serve)', async () => {
    const { attacker, target, attack } = await fight();
    t.orchestrator.disconnectVpn(attacker.id);
    answer(target.box.id, 8080, false);
    await checks.round();
    expect(await attackRow(attack.id)).to.include({ service_checks: 0, status: 'PENDING' });
    await t.platform.attacks.cancel(attacker.id, attack.id);
  });

  it('counts a defence as survived only where the services stayed up; the outcome and MMR stay the referee’s', async () => {
    const counters = async (user: TestAccount) =>
      (
        await t.db.query<{ defenses_won: number; total_defenses: number; mmr: number }>(
          'select defenses_won, total_defenses, mmr from users where id = $1',
          [user.id],
        )
      ).rows[0]!;
    const defence = async (user: TestAccount) =>
      (
        await t.call<{ defense: number; defensesSurvived: number; defensesTotal: number }>(
          'GET',
          `/attack/target-info/${user.id}`,
          { token: user.token },
        )
      ).body;

    // Up throughout: a survived defence.
    const kept = await fight();
    await checks.round();
    await t.platform.attacks.settle(kept.attack.id, 'TIMEOUT');
    expect(await counters(kept.target)).to.include({ defenses_won: 1, total_defenses: 1, mmr: 1016 });
    expect(await defence(kept.target)).to.include({ defense: 100, defensesSurvived: 1, defensesTotal: 1 });

    // Down in most rounds (never past the grace period in one go): won, but not a defence that counts.
    const unplugged = await fight();
    answer(unplugged.target.box.id, 8080, false);
    answer(unplugged.target.box.id, 6379, false);
    await checks.round();
    answer(unplugged.target.box.id, 8080, true);
    answer(unplugged.target.box.id, 6379, true);
    await checks.round();
    expect((await attackRow(unplugged.attack.id)).services_up).to.equal(false);
    await t.platform.attacks.settle(unplugged.attack.id, 'TIMEOUT');
    const after = await counters(unplugged.target);
    expect(after).to.include({ defenses_won: 0, total_defenses: 1 });
    // The referee's outcome stands: the defender won the fight and its MMR.
    expect(after.mmr).to.equal(1016);
    expect(await defence(unplugged.target)).to.include({ defense: 0, defensesSurvived: 0, defensesTotal: 1 });
  });
});
