import { expect } from 'chai';
import { io as connect } from 'socket.io-client';
import {
  VPN_STATUS_NAMESPACE,
  onboardingSchema,
  type Box,
  type Onboarding,
  type OnboardingStep,
  type StartAttackResponse,
} from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';

/**
 * The first-hour checklist ticks from what the platform itself sees happen (the box's creation, the config's
 * issue, the VPN server's connect hook, the runtime's view of the box's ssh port, an attack), never from
 * anything the player's client says.
 */
describe('the first-hour checklist (GET /users/me/onboarding)', function () {
  let t: BoxTestPlatform;

  before(async () => {
    t = await startBoxPlatform({ orchestrator: { boot: 'instant' } });
  });
  afterEach(() => {
    for (const session of t.orchestrator.vpnSessions()) t.orchestrator.disconnectVpn(session.userId);
    t.orchestrator.seesSshClients = true;
    t.orchestrator.agentsSeeSsh = true;
  });
  after(() => t?.close());

  const checklist = async (user: TestAccount): Promise<Onboarding> => {
    const answer = await t.call<Onboarding>('GET', '/users/me/onboarding', { token: user.token });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return onboardingSchema.strict().parse(answer.body);
  };
  /** Which steps are done, in order. */
  const done = async (user: TestAccount): Promise<Record<string, boolean>> =>
    Object.fromEntries((await checklist(user)).steps.map((s) => [s.step, s.done]));
  const until = (user: TestAccount, step: OnboardingStep, what: string) =>
    waitFor(
      () => done(user),
      (steps) => steps[step] === true,
      { what },
    );

  const createBox = async (user: TestAccount): Promise<Box> => {
    const created = await t.call<Box>('POST', '/boxes', { token: user.token, body: {} });
    expect(created.status).to.equal(201);
    return created.body;
  };
  const runBox = async (user: TestAccount, box: Box): Promise<Box> => {
    await t.call('POST', `/boxes/${box.hostname}/power`, { token: user.token, body: { on: true } });
    return waitFor(
      async () => (await t.call<Box>('GET', '/boxes/my', { token: user.token })).body,
      (b) => b?.status === 'RUNNING',
      { what: 'a running box' },
    );
  };
  const downloadConfig = (user: TestAccount) =>
    t.call('GET', `/user-vpn/${user.id}/UDP`, { token: user.token });

  it('starts with every step open, in order, and the checklist not complete', async () => {
    const user = await t.account();
    expect(await checklist(user)).to.deep.equal({
      steps: ['BOX_DEPLOYED', 'VPN_CONFIG_DOWNLOADED', 'TUNNEL_UP', 'FIRST_SSH', 'FIRST_MATCH'].map(
        (step) => ({
          step,
          done: false,
          doneAt: null,
        }),
      ),
      complete: false,
      completedAt: null,
    });
  });

  it('is only for the signed-in player, and takes nothing a client could claim a step with', async () => {
    expect((await t.call('GET', '/users/me/onboarding')).status).to.equal(401);
    const user = await t.account();
    const claimed = await t.call('GET', '/users/me/onboarding?TUNNEL_UP=true', { token: user.token });
    expect(claimed.status).to.equal(400);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const answer = await t.call(method, '/users/me/onboarding', {
        token: user.token,
        body: { steps: [{ step: 'TUNNEL_UP', done: true }] },
      });
      expect(answer.status, method).to.equal(405);
    }
    expect((await done(user)).TUNNEL_UP).to.equal(false);
  });

  it('ticks BOX_DEPLOYED when the player creates a box, dated by it, and opens it again when the box is deleted', async () => {
    const user = await t.account();
    const box = await createBox(user);
    const step = (await checklist(user)).steps.find((s) => s.step === 'BOX_DEPLOYED')!;
    expect(step.done).to.equal(true);
    const created = (await t.db.query('select created_at from boxes where id = $1', [box.id])).rows[0]!
      .created_at as Date;
    expect(step.doneAt).to.equal(created.toISOString());
    // Another player's box is not theirs.
    expect((await done(await t.account())).BOX_DEPLOYED).to.equal(false);
    expect((await t.call('DELETE', `/boxes/${box.id}`, { token: user.token })).status).to.equal(200);
    expect((await done(user)).BOX_DEPLOYED).to.equal(false);
  });

  it('ticks VPN_CONFIG_DOWNLOADED when a config is issued to the player, and not for a revoked certificate', async () => {
    const user = await t.account();
    expect((await done(user)).VPN_CONFIG_DOWNLOADED).to.equal(false);
    expect((await downloadConfig(user)).status).to.equal(200);
    expect((await done(user)).VPN_CONFIG_DOWNLOADED).to.equal(true);
    // Another player downloading theirs does not tick anyone else's.
    const other = await t.account();
    expect((await t.call('GET', `/user-vpn/${user.id}/UDP`, { token: other.token })).status).to.equal(403);
    expect((await done(other)).VPN_CONFIG_DOWNLOADED).to.equal(false);
    // A revoked certificate is a file that no longer works (as after a ban; an unban deletes the identity).
    await t.platform.vpn.revoke(user.id);
    expect((await done(user)).VPN_CONFIG_DOWNLOADED).to.equal(false);
  });

  it('ticks TUNNEL_UP when the VPN server admits the player’s client, keeps it after the tunnel goes down, never for a refused client', async () => {
    const user = await t.account();
    await downloadConfig(user);
    expect((await done(user)).TUNNEL_UP).to.equal(false);
    const session = await t.orchestrator.connectVpn(user.id);
    expect(session).to.not.equal(null);
    await until(user, 'TUNNEL_UP', 'the tunnel to tick');
    const step = (await checklist(user)).steps.find((s) => s.step === 'TUNNEL_UP')!;
    expect(step.doneAt).to.equal(session!.connectedAt.toISOString());
    t.orchestrator.disconnectVpn(user.id);
    await t.orchestrator.connectVpn(user.id);
    // The first tunnel stays the one recorded.
    expect((await checklist(user)).steps.find((s) => s.step === 'TUNNEL_UP')!.doneAt).to.equal(step.doneAt);

    const refused = await t.account();
    await downloadConfig(refused);
    await t.platform.vpn.revoke(refused.id);
    expect(await t.orchestrator.connectVpn(refused.id)).to.equal(null);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await done(refused)).TUNNEL_UP).to.equal(false);
  });

  it('has the tunnel recorded before the player’s pages hear that it is up', async () => {
    const user = await t.account();
    const socket = connect(`${t.platform.baseUrl}${VPN_STATUS_NAMESPACE}`, {
      transports: ['websocket'],
      auth: { token: user.token },
      query: { userId: user.id },
    });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
      const up = new Promise<void>((resolve) =>
        socket.on('status', ({ status }: { status: boolean }) => {
          if (status) resolve();
        }),
      );
      await t.orchestrator.connectVpn(user.id);
      await up;
      expect((await done(user)).TUNNEL_UP).to.equal(true);
    } finally {
      socket.disconnect();
    }
  });

  it('ticks FIRST_SSH when the runtime sees the owner’s VPN address on their box’s ssh port, not an attacker’s', async () => {
    const owner = await t.account();
    const box = await runBox(owner, await createBox(owner));
    await t.orchestrator.connectVpn(owner.id);
    const attacker = await t.account();
    await t.orchestrator.connectVpn(attacker.id);
    // Another player let in by an attack window logs in to the box: neither of them gets the tick.
    await t.orchestrator.openAttackWindow(attacker.id, box.id, new Date(Date.now() + 60_000));
    expect(t.orchestrator.holdSsh(attacker.id, box.id)).to.equal(true);
    await new Promise((resolve) => setTimeout(resolve, 600)); // three loop passes
    expect((await done(owner)).FIRST_SSH).to.equal(false);
    expect((await done(attacker)).FIRST_SSH).to.equal(false);
    await t.orchestrator.closeAttackWindow(attacker.id, box.id);
    t.orchestrator.releaseSsh(attacker.id, box.id);

    expect(t.orchestrator.holdSsh(owner.id, box.id)).to.equal(true);
    await until(owner, 'FIRST_SSH', 'the owner’s ssh login to tick');
    const at = (await checklist(owner)).steps.find((s) => s.step === 'FIRST_SSH')!.doneAt;
    t.orchestrator.releaseSsh(owner.id, box.id);
    // Recorded once: a later session leaves the first one's time.
    expect(t.orchestrator.holdSsh(owner.id, box.id)).to.equal(true);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await checklist(owner)).steps.find((s) => s.step === 'FIRST_SSH')!.doneAt).to.equal(at);
    t.orchestrator.releaseSsh(owner.id, box.id);
  });

  it('leaves FIRST_SSH out where nothing sees who connects to a box: no socket tables, no box agents', async () => {
    const user = await t.account();
    // Virtual machines: their agents see it.
    t.orchestrator.seesSshClients = false;
    expect((await checklist(user)).steps.map((s) => s.step)).to.include('FIRST_SSH');
    t.orchestrator.agentsSeeSsh = false;
    expect((await checklist(user)).steps.map((s) => s.step)).to.deep.equal([
      'BOX_DEPLOYED',
      'VPN_CONFIG_DOWNLOADED',
      'TUNNEL_UP',
      'FIRST_MATCH',
    ]);
  });

  /** A player with a running box and a live VPN client: ready for a match. */
  async function ready(): Promise<TestAccount & { box: Box }> {
    const user = await t.account();
    const box = await runBox(user, await createBox(user));
    await downloadConfig(user);
    await t.orchestrator.connectVpn(user.id);
    return { ...user, box };
  }

  it('ticks FIRST_MATCH for both players once an attack between them starts', async () => {
    const attacker = await ready();
    const target = await ready();
    const bystander = await ready();
    expect((await done(attacker)).FIRST_MATCH).to.equal(false);
    t.platform.attacks.consent(attacker.id, target.id);
    const started = await t.call<StartAttackResponse>('POST', `/attack/${target.box.id}`, {
      token: attacker.token,
    });
    expect(started.status).to.equal(201);
    for (const player of [attacker, target]) {
      const step = (await checklist(player)).steps.find((s) => s.step === 'FIRST_MATCH')!;
      expect(step).to.deep.include({ done: true, doneAt: started.body.attack.createdAt });
    }
    expect((await done(bystander)).FIRST_MATCH).to.equal(false);
    await t.call('POST', `/attack/${started.body.attack.id}/cancel`, { token: attacker.token });
  });

  it('completes once every step is done, and stays complete when the box goes later', async () => {
    const player = await ready();
    const opponent = await ready();
    expect(t.orchestrator.holdSsh(player.id, player.box.id)).to.equal(true);
    await until(player, 'FIRST_SSH', 'the ssh login');
    t.orchestrator.releaseSsh(player.id, player.box.id);
    expect((await checklist(player)).complete).to.equal(false);
    t.platform.attacks.consent(player.id, opponent.id);
    const started = await t.call<StartAttackResponse>('POST', `/attack/${opponent.box.id}`, {
      token: player.token,
    });
    expect(started.status).to.equal(201);
    await t.call('POST', `/attack/${started.body.attack.id}/cancel`, { token: player.token });

    const complete = await checklist(player);
    expect(complete.steps.every((s) => s.done)).to.equal(true);
    expect(complete.complete).to.equal(true);
    expect(complete.completedAt).to.be.a('string');
    // The opponent never logged in to their box: theirs is not complete.
    expect((await checklist(opponent)).complete).to.equal(false);

    expect((await t.call('DELETE', `/boxes/${player.box.id}`, { token: player.token })).status).to.equal(200);
    const after = await checklist(player);
    expect(after.steps.find((s) => s.step === 'BOX_DEPLOYED')!.done).to.equal(false);
    expect(after).to.deep.include({ complete: true, completedAt: complete.completedAt });
  });
});
