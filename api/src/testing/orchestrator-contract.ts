import { once } from 'node:events';
import { isIP } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { BoxObservation, BoxOrchestrator, BoxSpec, VpnSession } from '../boxes/orchestrator.ts';

/**
 * The BoxOrchestrator contract: what the platform relies on from a box runtime, kept by the
 * real local runtime (api/src/boxes/local/runtime.test.ts runs it with real boxes, OpenVPN
 * clients and network namespaces) and by the test double the API's tests run on
 * (api/src/testing/orchestrator.test.ts), so that those tests test what production does.
 */
export interface ContractWorld {
  orchestrator: BoxOrchestrator;
  /** The box's owner, another player, and one the platform's authorizer refuses. */
  owner: string;
  other: string;
  refused: string;
  /** A box of the owner's that exists nowhere yet (a slot of its own). */
  box: BoxSpec;
  /** Connects the player's VPN client: its session, or null when the runtime refused it. */
  connect(userId: string): Promise<VpnSession | null>;
  /** Stops the player's VPN client (if it runs) and waits until the runtime has let go of its session. */
  disconnect(userId: string): Promise<void>;
  /** Whether the player's VPN client opens a TCP connection to the box's sshd now. */
  reaches(userId: string): Promise<boolean>;
  /** Whether the box opens a TCP connection to the player's computer (its VPN address) now. */
  reachedFromBox(userId: string): Promise<boolean>;
  /**
   * Opens a TCP connection from the player's VPN client to the box's sshd and holds it until the returned
   * function is called (which closes it).
   */
  holdSsh(userId: string): Promise<() => Promise<void>>;
  /** The serial number of the certificate the player's client uses. */
  serialOf(userId: string): string;
  /** The box's root powers it off from inside. */
  powerOffInside(): Promise<void>;
  /** The box dies (its init killed). */
  crash(): Promise<void>;
  /** How long a boot may take. */
  bootMs: number;
}

/** Declares the contract's tests; `world` is called once its `before` hooks have run. */
export function orchestratorContract(world: () => ContractWorld): void {
  /** applyBox until `phase`; every other phase seen on the way must be in `passing`. */
  async function reach(
    spec: BoxSpec,
    phase: BoxObservation['phase'],
    passing: BoxObservation['phase'][],
    timeoutMs = world().bootMs,
  ): Promise<BoxObservation> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const observed = await world().orchestrator.applyBox(spec);
      if (observed.phase === phase) return observed;
      expect(passing, `${observed.phase} on the way to ${phase} (${observed.reason})`).to.include(
        observed.phase,
      );
      if (Date.now() > deadline) expect.fail(`the box never reached ${phase}`);
      await sleep(200);
    }
  }
  const eventually = async (what: string, check: () => Promise<boolean>, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) expect.fail(`timed out waiting for ${what}`);
      await sleep(200);
    }
  };

  it('contract: boots a powered-on box through PROVISIONING to RUNNING (booted) at a stable address, then ssh opens', async () => {
    const { orchestrator, box } = world();
    const first = await orchestrator.applyBox(box);
    expect(first.phase).to.be.oneOf(['PROVISIONING', 'RUNNING']);
    const running = await reach(box, 'RUNNING', ['PROVISIONING']);
    expect(running.ip).to.match(/^\d+\.\d+\.\d+\.\d+$/);
    expect(running.reason).to.equal(null);
    // RUNNING means booted (and billed), whatever listens: sshd follows shortly.
    await eventually(
      'sshd to listen',
      async () => {
        const observed = await orchestrator.applyBox(box);
        expect(observed.phase).to.equal('RUNNING');
        return observed.openPorts['22'] === 'ssh';
      },
      world().bootMs,
    );
    // The same desired state again changes nothing.
    expect(await orchestrator.applyBox(box)).to.deep.include({ phase: 'RUNNING', ip: running.ip });
    expect(await orchestrator.boxIds()).to.include(box.id);
  });

  it('contract: admits the players the authorizer allows with an address of their own, announces them, refuses the others', async () => {
    const { orchestrator, owner, other, refused } = world();
    await world().disconnect(owner);
    expect(orchestrator.vpnSessions().map((s) => s.userId)).to.not.include(owner);
    const announced = once(orchestrator.events, 'vpnConnected');
    const ownerSession = await world().connect(owner);
    expect(ownerSession).to.deep.include({ userId: owner });
    expect(ownerSession!.vpnAddress).to.match(/^\d+\.\d+\.\d+\.\d+$/);
    expect(((await announced) as [VpnSession])[0]).to.deep.include({ userId: owner });
    const otherSession = await world().connect(other);
    expect(otherSession!.vpnAddress).to.not.equal(ownerSession!.vpnAddress);
    expect(await world().connect(refused)).to.equal(null);
    const sessions = orchestrator.vpnSessions();
    expect(sessions.map((s) => s.userId)).to.include.members([owner, other]);
    // Where the client connects from, when the server tells it: an address, kept with the session.
    const from = ownerSession!.realAddress ?? null;
    if (from !== null) expect(isIP(from), `${from} is an address`).to.be.greaterThan(0);
    expect(sessions.find((s) => s.userId === owner)?.realAddress ?? null).to.equal(from);
    expect(sessions.map((s) => s.userId)).to.not.include(refused);
    const usage = orchestrator.poolUsage();
    expect(usage.UDP.clients + usage.TCP.clients).to.be.at.least(2);
    expect(usage.UDP.maxClients).to.be.greaterThan(0);
  });

  it('contract: lets the owner reach their box, another player only inside an attack window', async () => {
    const { orchestrator, owner, other, box } = world();
    expect(await world().reaches(owner), 'the owner').to.equal(true);
    expect(await world().reaches(other), 'another player without a window').to.equal(false);
    await orchestrator.openAttackWindow(other, box.id, new Date(Date.now() + 60_000));
    await eventually('the window to open', () => world().reaches(other));
    await orchestrator.closeAttackWindow(other, box.id);
    await eventually('the window to close', async () => !(await world().reaches(other)));
    // Closing twice is fine.
    await orchestrator.closeAttackWindow(other, box.id);
    expect(await world().reaches(owner), 'the owner after the window').to.equal(true);
  });

  it('contract: names the VPN address holding a connection to the box’s ssh port, where it sees them', async () => {
    const { orchestrator, owner, box } = world();
    if (!orchestrator.seesSshClients) return;
    const address = orchestrator.vpnSessions().find((s) => s.userId === owner)?.vpnAddress;
    expect(address, 'the owner’s VPN address').to.be.a('string');
    const release = await world().holdSsh(owner);
    try {
      await eventually('the owner’s connection to show', async () =>
        ((await orchestrator.applyBox(box)).sshClients ?? []).includes(address!),
      );
    } finally {
      await release();
    }
  });

  it('contract: lets a box open connections to its attacker inside the window only, to its owner never', async () => {
    const { orchestrator, owner, other, box } = world();
    expect(await world().reachedFromBox(owner), 'the owner’s computer').to.equal(false);
    expect(await world().reachedFromBox(other), 'another player’s without a window').to.equal(false);
    await orchestrator.openAttackWindow(other, box.id, new Date(Date.now() + 60_000));
    await eventually('the window to open', () => world().reachedFromBox(other));
    expect(await world().reachedFromBox(owner), 'the owner’s computer inside the window').to.equal(false);
    await orchestrator.closeAttackWindow(other, box.id);
    await eventually('the window to close', async () => !(await world().reachedFromBox(other)));
    expect(await world().reaches(owner), 'the owner still reaches the box').to.equal(true);
  });

  it('contract: cuts a revoked player’s live session at once and announces it', async () => {
    const { orchestrator, other } = world();
    const gone = once(orchestrator.events, 'vpnDisconnected');
    await orchestrator.setRevoked([
      { userId: other, serialNumber: world().serialOf(other), revokedAt: new Date() },
    ]);
    expect(((await gone) as [VpnSession])[0]).to.deep.include({ userId: other });
    expect(orchestrator.vpnSessions().map((s) => s.userId)).to.not.include(other);
    await orchestrator.setRevoked([]);
  });

  it('contract: reports a poweroff from inside as STOPPED, powered off inside, then a plain STOPPED once the power is off', async () => {
    const { orchestrator, box } = world();
    await world().powerOffInside();
    // While it shuts down it may show PROVISIONING (its sshd is gone).
    const stopped = await reach(box, 'STOPPED', ['RUNNING', 'PROVISIONING']);
    expect(stopped.poweredOffInside).to.equal(true);
    expect(stopped.reason).to.match(/powered off from inside/);
    const off = await orchestrator.applyBox({ ...box, power: false });
    expect(off.phase).to.equal('STOPPED');
    expect(off.poweredOffInside).to.not.equal(true);
    expect(off.reason).to.equal(null);
  });

  it('contract: reports a crash as CRASHED while the power stays on, and boots again after a power off', async () => {
    const { orchestrator, box } = world();
    await orchestrator.applyBox({ ...box, power: false });
    await reach(box, 'RUNNING', ['PROVISIONING']);
    await world().crash();
    const crashed = await reach(box, 'CRASHED', ['RUNNING', 'PROVISIONING'], 15_000);
    expect(crashed.reason).to.match(/stopped unexpectedly/);
    // The runtime does not restart it by itself.
    expect((await orchestrator.applyBox(box)).phase).to.equal('CRASHED');
    expect((await orchestrator.applyBox({ ...box, power: false })).phase).to.equal('STOPPED');
    await reach(box, 'RUNNING', ['PROVISIONING']);
  });

  it('contract: forgets a deleted box; deleting it again is fine', async () => {
    const { orchestrator, box } = world();
    await orchestrator.deleteBox(box.id);
    expect(await orchestrator.boxIds()).to.not.include(box.id);
    await orchestrator.deleteBox(box.id);
  });
}
