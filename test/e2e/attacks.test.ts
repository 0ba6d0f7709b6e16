import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { Arena, PLANTED_PORT, until, type ArenaPlayer, type AttackRef } from '../support/arena.ts';
import { ClientNamespace, requireBoxHost } from '../support/netns.ts';
import {
  freePort,
  localRuntimeEnv,
  logPlatformOnFailure,
  startPlatform,
  takeDownBoxes,
  type RunningPlatform,
} from '../support/platform.ts';

/**
 * Attacks for real, without flags, on the local runtime as `make run` starts it: four players
 * with real boxes and stock OpenVPN clients on their own "computers" (network namespaces).
 * A defender runs a service with a command injection as www-data (and, for one of them, a
 * careless sudo rule); the attacker exploits it for a reverse shell to a listener on their
 * computer, as they would with `nc -lvnp`. The box's agent (snoopy + /proc) must tell the
 * platform, which classifies and settles the attack.
 */
describe('attacks on real boxes: reverse shells, root, kill chains, settlement', function () {
  this.timeout(240_000);
  const tag = randomBytes(2).toString('hex');
  const prefix = `ega${tag.slice(0, 3)}`;
  const octet = 100 + (parseInt(tag, 16) % 100);
  /** Short enough to see the time limit settle attacks in a test; long enough to act. */
  const LIMIT_SECONDS = 36;
  const GRACE_SECONDS = 10;
  type Checked = { services: { port: number; up: boolean | null }[]; servicesUp: boolean };
  /** The attack's events but the checks of the target's services (asserted on their own below). */
  const fightEvents = async (who: ArenaPlayer, attack: AttackRef) =>
    (await arena.events(who, attack)).filter((e) => !e.type.startsWith('SERVICE_'));
  let env: Record<string, string>;
  let platform: RunningPlatform;
  let dataDir: string | undefined;
  const computers = ['alice', 'bob', 'carol', 'dave'].map(
    (name, i) => new ClientNamespace(`${prefix}-${name}`, `${prefix}-c${i}`, `172.30.${octet}`, 4 * (i + 1)),
  );
  let arena: Arena;
  let alice: ArenaPlayer;
  let bob: ArenaPlayer;
  let carol: ArenaPlayer;
  let dave: ArenaPlayer;

  before(async function () {
    this.timeout(300_000);
    await requireBoxHost(this, 'attacks end to end');
    env = {
      ...localRuntimeEnv({ prefix, net3: `172.30.${octet}`, octet, vpnPort: await freePort() }),
      // The same address after the API restarts (the players' tokens name it); the VPN port is
      // fixed for the same reason.
      PORT: String(await freePort()),
      ATTACK_TIME_LIMIT_MINUTES: String(LIMIT_SECONDS / 60),
      // Services checked often enough to see a defender forfeit within the time limit.
      SERVICE_CHECK_INTERVAL_SECONDS: '2',
      SERVICE_GRACE_SECONDS: String(GRACE_SECONDS),
    };
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-attacks-'));
    platform = await startPlatform({ env, dataDir, timeoutMs: 120_000 });
    arena = new Arena(platform, dataDir);
    for (const computer of computers) await computer.create();
    const join = (name: string, i: number) => arena.join(`${name}_${tag}`, computers[i]!);
    [alice, bob, carol, dave] = await Promise.all([
      join('alice', 0),
      join('bob', 1),
      join('carol', 2),
      join('dave', 3),
    ]);
  });

  afterEach(function () {
    logPlatformOnFailure(this.currentTest, platform);
  });

  after(async function () {
    this.timeout(120_000);
    arena?.closeShells();
    for (const computer of computers) await computer.destroy().catch(() => undefined);
    await platform?.stop();
    // Boxes outlive the API by design: take this test's runtime down as `make boxes-down --purge` does.
    if (dataDir) await takeDownBoxes(env, dataDir);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a user reverse shell is a FOOTHOLD, root through sudo is OWNED; the kill chain is logged; the owner’s own shell is no event', async () => {
    await arena.plantVulnerableService(bob, { sudo: true });
    // No attack, no way in.
    expect(await alice.computer.canConnect(bob.box.ip, PLANTED_PORT)).to.equal(false);
    const [aliceBefore, bobBefore] = [await arena.mmr(alice), await arena.mmr(bob)];

    const attack = await arena.startAttack(alice, bob);
    const shell = await arena.reverseShell(alice, bob, 4444);
    await until('the FOOTHOLD', async () =>
      (await arena.events(alice, attack)).some((e) => e.type === 'FOOTHOLD'),
    );
    expect((await arena.attack(alice, attack)).outcome).to.equal('PENDING');

    // The defender looks around in their own box meanwhile: never an attack event.
    await bob.computer.ssh(bob.box.ip, 'cd /root && ls >/dev/null && whoami >/dev/null', {
      password: bob.box.password,
    });

    expect(await shell.run('id; pwd'))
      .to.include('uid=33(www-data)')
      .and.include('/tmp');
    await shell.run('id; uname -a; cat /etc/shadow 2>/dev/null');
    const chain = await until('the commands in the kill chain', async () => {
      const logs = await arena.commands(alice, attack);
      return ['id', 'uname -a', 'cat /etc/shadow'].every((c) => logs.some((l) => l.command === c))
        ? logs
        : null;
    });
    const shadow = chain.find((l) => l.command === 'cat /etc/shadow')!;
    expect(shadow).to.include({ user: 'www-data', cwd: '/tmp' });
    expect(chain.filter((l) => ['whoami', 'ls'].includes(l.command))).to.deep.equal([]);

    // Root. The referee settles it the moment `id` runs as root: the window (and with it the
    // shell) may close before the answer comes back.
    shell.send('sudo -n id');
    await until('the attack OWNED', async () => (await arena.attack(bob, attack)).outcome === 'OWNED');
    const events = await arena.events(bob, attack);
    expect(events.filter((e) => e.type === 'FOOTHOLD')).to.have.length(1);
    expect(events.filter((e) => e.type === 'OWN')).to.have.length(1);
    const commands = events.filter((e) => e.type === 'COMMAND');
    expect(commands.every((e) => e.details.peer === alice.vpnAddress)).to.equal(true);
    // MMR moved once: the winner gained what the loser lost.
    const change = (await arena.mmr(alice)) - aliceBefore;
    expect(change).to.be.greaterThan(0);
    expect(await arena.mmr(bob)).to.equal(bobBefore - change);
    // Settled once: MMR stays where it is.
    await sleep(1500);
    expect(await arena.mmr(alice)).to.equal(aliceBefore + change);
    // The two players only.
    expect((await arena.call(carol.token, 'GET', `/attack/${attack.id}/logs`)).status).to.equal(404);
    expect((await arena.call(carol.token, 'GET', `/attack/${attack.id}/attack-logs`)).status).to.equal(404);
    // The attack is over: the window is shut, the open shell included.
    await until(
      'the window closed',
      async () => !(await alice.computer.canConnect(bob.box.ip, PLANTED_PORT)),
    );
    const cut = await shell.run('id', 3000).then(
      () => false,
      () => true,
    );
    expect(cut, 'the reverse shell still answers after the attack ended').to.equal(true);
    shell.close();
  });

  it('loses no event while the API is down, and settles a held shell as FOOTHOLD at the time limit', async () => {
    await arena.plantVulnerableService(dave);
    const attack = await arena.startAttack(carol, dave);
    const shell = await arena.reverseShell(carol, dave, 4445);
    await until('the FOOTHOLD', async () =>
      (await arena.events(carol, attack)).some((e) => e.type === 'FOOTHOLD'),
    );

    // Commands that run on the box while the API is down (the VPN stays up: it is in the kernel): the line is
    // on the box (its `sleep` is in the kill chain) before the API stops, and the rest runs later.
    shell.send('sleep 4; whoami; hostname; echo typed-while-down');
    await until(
      'the sleep on the box',
      async () => (await arena.commands(carol, attack)).some((l) => l.command === 'sleep 4'),
      10_000,
      50,
    );
    const stoppedAt = Date.now();
    await platform.stop();
    await sleep(5000);
    platform = await startPlatform({ env, dataDir, timeoutMs: 120_000 });
    arena.platform = platform;
    const logs = await until(
      'the commands run while the API was down',
      async () => {
        const all = await arena.commands(carol, attack);
        return ['whoami', 'hostname'].every((c) => all.some((l) => l.command === c)) ? all : null;
      },
      30_000,
    );
    const whoami = logs.find((l) => l.command === 'whoami')!;
    expect(new Date(whoami.timestamp).getTime()).to.be.within(stoppedAt, stoppedAt + 5000 + 10_000);
    expect(logs.filter((l) => l.command === 'whoami')).to.have.length(1);

    // The shell is still held at the limit.
    const settled = await until(
      'the time limit',
      async () => {
        const now = await arena.attack(carol, attack);
        return now.outcome !== 'PENDING' ? now : null;
      },
      (LIMIT_SECONDS + 20) * 1000,
    );
    expect(settled.outcome).to.equal('FOOTHOLD');
    shell.close();
  });

  it('settles DEFENDED when the defender kills the shell, TIMEOUT when the attacker never got in', async () => {
    await arena.plantVulnerableService(alice);
    const evicted = await arena.startAttack(bob, alice);
    const idle = await arena.startAttack(dave, carol);
    const shell = await arena.reverseShell(bob, alice, 4446);
    await until('the FOOTHOLD', async () =>
      (await arena.events(bob, evicted)).some((e) => e.type === 'FOOTHOLD'),
    );
    // The defender finds it and kills everything www-data runs.
    await alice.computer.ssh(alice.box.ip, 'pkill -KILL -u www-data; true', { password: alice.box.password });
    await shell.closed;
    await until(
      'the eviction',
      async () => (await arena.events(alice, evicted)).some((e) => e.type === 'EVICTED'),
      20_000,
    );
    const before = {
      alice: await arena.mmr(alice),
      bob: await arena.mmr(bob),
      carol: await arena.mmr(carol),
      dave: await arena.mmr(dave),
    };
    const settled = (who: ArenaPlayer, attack: AttackRef) =>
      until(
        'the time limit',
        async () => {
          const now = await arena.attack(who, attack);
          return now.outcome !== 'PENDING' ? now : null;
        },
        (LIMIT_SECONDS + 20) * 1000,
      );
    const [defended, timedOut] = await Promise.all([settled(bob, evicted), settled(dave, idle)]);
    expect(defended.outcome).to.equal('DEFENDED');
    expect(timedOut.outcome).to.equal('TIMEOUT');
    // The defenders won.
    expect(await arena.mmr(alice)).to.be.greaterThan(before.alice);
    expect(await arena.mmr(bob)).to.be.lessThan(before.bob);
    expect(await arena.mmr(carol)).to.be.greaterThan(before.carol);
    expect(await arena.mmr(dave)).to.be.lessThan(before.dave);
    expect(await fightEvents(carol, idle)).to.deep.equal([]);
  });

  it('keeps a defender from walking away: power-off is refused, a shutdown from inside forfeits', async () => {
    const attack = await arena.startAttack(carol, alice);
    const before = { carol: await arena.mmr(carol), alice: await arena.mmr(alice) };
    const hostname = (await arena.call<{ hostname: string }>(alice.token, 'GET', '/boxes/my')).body.hostname;
    const off = await arena.call<{ message: string }>(alice.token, 'POST', `/boxes/${hostname}/power`, {
      on: false,
    });
    expect(off.status).to.equal(409);
    expect(off.body.message).to.equal(
      'Your box is under attack: it cannot be powered off or deleted until the attack ends.',
    );
    await alice.computer
      .ssh(alice.box.ip, 'systemctl poweroff', { password: alice.box.password })
      .catch(() => undefined /* the connection ends with the box */);
    const ended = await until('the forfeit', async () => {
      const now = await arena.attack(carol, attack);
      return now.outcome !== 'PENDING' ? now : null;
    });
    expect(ended.outcome).to.equal('OWNED');
    const events = await fightEvents(carol, attack);
    expect(events.map((e) => e.type)).to.deep.equal(['FORFEIT']);
    expect(await arena.mmr(carol)).to.be.greaterThan(before.carol);
    expect(await arena.mmr(alice)).to.be.lessThan(before.alice);
  });

  it('forfeits a defender who firewalls everything: the checks come from the attacker’s side and fail past the grace period', async () => {
    const attack = await arena.startAttack(bob, dave);
    const started = Date.now();
    const before = { bob: await arena.mmr(bob), dave: await arena.mmr(dave) };
    const checked = async () => (await arena.attack(dave, attack)) as AttackRef & Checked;
    await until('a round of checks with every service up', async () => {
      const now = await checked();
      return now.services.length > 0 && now.services.every((s) => s.up === true);
    });
    // Dave lets in his own address alone: his attacker, and with them the platform's checks, are refused.
    const wall = [
      'nft add table inet wall',
      `nft add chain inet wall in '{ type filter hook input priority 0; policy drop; }'`,
      'nft add rule inet wall in iif lo accept',
      'nft add rule inet wall in ip saddr "${SSH_CONNECTION%% *}" accept',
    ].join(' && ');
    await dave.computer.ssh(dave.box.ip, wall, { password: dave.box.password });
    try {
      const ended = await until(
        'the forfeit',
        async () => {
          const now = await checked();
          return now.outcome !== 'PENDING' ? now : null;
        },
        (GRACE_SECONDS + 15) * 1000,
      );
      expect(ended.outcome).to.equal('OWNED');
      expect(await arena.mmr(bob)).to.be.greaterThan(before.bob);
      expect(await arena.mmr(dave)).to.be.lessThan(before.dave);
      expect(Date.now() - started, 'settled before the time limit').to.be.below(LIMIT_SECONDS * 1000);
      expect(ended.services.every((s) => s.up === false)).to.equal(true);
      expect(ended.servicesUp).to.equal(false);
      const events = await arena.events(dave, attack);
      const types = events.map((e) => e.type);
      expect(types.filter((t) => t === 'SERVICE_DOWN')).to.have.length(ended.services.length);
      expect(types.at(-1)).to.equal('FORFEIT');
      expect(events.at(-1)!.details.message).to.match(
        new RegExp(
          `^The defender's services failed their checks for ${GRACE_SECONDS} s \\(.*SSH, port 22.*\\): the defender forfeits\\.$`,
        ),
      );
    } finally {
      await dave.computer.ssh(dave.box.ip, 'nft delete table inet wall', { password: dave.box.password });
    }
  });
});
