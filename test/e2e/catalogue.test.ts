import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import {
  CATALOGUE_DIR,
  installFiles,
  loadCatalogue,
  runCheck,
  type CatalogueEntry,
} from '../../operator/src/catalogue/index.ts';
import { Arena, until, type ArenaPlayer, type AttackRef } from '../support/arena.ts';
import { ClientNamespace, requireBoxHost, type ShellListener } from '../support/netns.ts';
import {
  freePort,
  localRuntimeEnv,
  logPlatformOnFailure,
  startPlatform,
  takeDownBoxes,
  type RunningPlatform,
} from '../support/platform.ts';

const run = promisify(execFile);

/**
 * Every entry of the catalogue of vulnerable services (operator/catalogue, docs/catalogue.md) on
 * a real box of the local runtime, as `make run` starts it: installed by its own install script,
 * its service checked as a client would, exploited by its own exploit from the attacker's
 * computer over the VPN (ways in) or from the shell a way in gave (ways up) until the referee
 * scores FOOTHOLD or OWNED, then fixed by its documented fix: the exploit fails and the check
 * still passes. Unplugging a service fails its check.
 */
describe('the catalogue on real boxes: installed, checked, exploited, fixed', function () {
  this.timeout(240_000);
  const tag = randomBytes(2).toString('hex');
  const prefix = `egc${tag.slice(0, 3)}`;
  const octet = 100 + (parseInt(tag, 16) % 100);
  const catalogue = loadCatalogue();
  const waysIn = catalogue.filter((e) => e.kind === 'in');
  const waysUp = catalogue.filter((e) => e.kind === 'up');
  /** The way in that the ways up start from: a reverse shell the test can type into. */
  const door = waysIn.find((e) => e.id === 'ping-tool')!;
  let env: Record<string, string>;
  let platform: RunningPlatform;
  let dataDir: string | undefined;
  const computers = ['alice', 'bob'].map(
    (name, i) => new ClientNamespace(`${prefix}-${name}`, `${prefix}-c${i}`, `172.31.${octet}`, 4 * (i + 1)),
  );
  let arena: Arena;
  /** The attacker. */
  let alice: ArenaPlayer;
  /** The defender, whose box gets every entry. */
  let bob: ArenaPlayer;
  let listenPort = 4400;
  /** What the last exploit that failed printed (its error and stderr), for the failure message. */
  let lastExploitError = '';
  /** The attack a test started, cancelled after it whatever happened (one attack at a time per player). */
  let current: AttackRef | null = null;

  const asRoot = (player: ArenaPlayer, script: string, params: string[] = []) =>
    player.computer.ssh(player.box.ip, script, { password: player.box.password }, params);

  /** Installs an entry as a loadout does: its files only (root's), its install script as root, then nothing left behind. */
  async function install(player: ArenaPlayer, id: string): Promise<void> {
    const params = [id];
    for (const [name, content] of installFiles(id)) params.push(name, content.toString('base64'));
    await asRoot(
      player,
      [
        'set -e',
        'd="/var/lib/exploit-grid/loadout/$1"; shift',
        'rm -rf "$d"; mkdir -p "$d"',
        'while [ $# -gt 0 ]; do mkdir -p "$d/$(dirname "$1")"; printf %s "$2" | base64 -d > "$d/$1"; chmod 600 "$d/$1"; shift 2; done',
        'cd "$d" && sh ./install.sh',
        'cd / && rm -rf "$d"',
      ].join('\n'),
      params,
    );
  }

  /** The entry's check, made from `from` (the attacker's computer during a window, else the owner's). */
  const check = (entry: CatalogueEntry, from: ClientNamespace, target: ArenaPlayer) =>
    runCheck(entry.check!, target.box.ip, {
      http: (url, init) => from.request(url, init),
      tcp: (address, port, init) => from.tcpExchange(address, port, init),
    });

  /** A way in's exploit, run on the attacker's computer; the shell it gives, or null when none came within 5 s of it ending. */
  async function exploitIn(
    entry: CatalogueEntry,
    attacker: ArenaPlayer,
    target: ArenaPlayer,
  ): Promise<ShellListener | null> {
    const port = listenPort++;
    const shell = await attacker.computer.listenForShell(port);
    await run('ip', [
      'netns',
      'exec',
      attacker.computer.name,
      'env',
      `TARGET=${target.box.ip}`,
      `LHOST=${attacker.vpnAddress}`,
      `LPORT=${port}`,
      'sh',
      path.join(CATALOGUE_DIR, entry.id, 'exploit.sh'),
    ]).catch((err: Error & { stderr?: string }) => {
      lastExploitError = `${err.message}\n${err.stderr ?? ''}`;
    });
    const came = await Promise.race([shell.connected.then(() => true), sleep(5000).then(() => false)]);
    if (came) return shell;
    shell.close();
    return null;
  }

  /** A way up's exploit typed into a user shell (it runs CMD as root when it works). */
  async function typeExploitUp(entry: CatalogueEntry, shell: ShellListener, cmd: string): Promise<void> {
    const script = (await readFile(path.join(CATALOGUE_DIR, entry.id, 'exploit.sh'))).toString('base64');
    await shell.run(`echo ${script} | base64 -d > /tmp/up-${entry.id}.sh`);
    shell.send(`CMD='${cmd}' sh /tmp/up-${entry.id}.sh; echo "exit=$?"`);
  }

  const events = async (attack: AttackRef) => (await arena.events(bob, attack)).map((e) => e.type);
  const cancel = (attack: AttackRef) => arena.call(alice.token, 'POST', `/attack/${attack.id}/cancel`, {});
  const startAttack = async () => (current = await arena.startAttack(alice, bob));

  before(async function () {
    this.timeout(300_000);
    await requireBoxHost(this, 'the catalogue end to end');
    env = {
      ...localRuntimeEnv({ prefix, net3: `172.31.${octet}`, octet, vpnPort: await freePort() }),
      ATTACK_TIME_LIMIT_MINUTES: '2',
      // Both players' boxes come from the warm pool, with the loadouts drawn for its spares.
      BOX_WARM_POOL: '2',
    };
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-catalogue-'));
    platform = await startPlatform({ env, dataDir, timeoutMs: 120_000 });
    arena = new Arena(platform, dataDir);
    for (const computer of computers) await computer.create();
    await until(
      'the warm pool full',
      async () => [0, 1].every((slot) => existsSync(path.join(dataDir!, `boxes/.spare-${slot}/ready`))),
      180_000,
    );
    [alice, bob] = await Promise.all([
      arena.join(`alice_${tag}`, computers[0]!),
      arena.join(`bob_${tag}`, computers[1]!),
    ]);
  });

  afterEach(async function () {
    if (current) await cancel(current);
    current = null;
    logPlatformOnFailure(this.currentTest, platform);
  });

  after(async function () {
    this.timeout(120_000);
    arena?.closeShells();
    for (const computer of computers) await computer.destroy().catch(() => undefined);
    await platform?.stop();
    if (dataDir) await takeDownBoxes(env, dataDir);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('gives a new box its loadout at first boot: every service its owner is told of passes its check', async () => {
    // Taken over from the warm pool: running as the box, with the spare's loadout installed at its boot.
    expect(platform.output().match(/Box started from a spare/g), 'boxes started from a spare').to.have.length(
      2,
    );
    const mine = await arena.call<{ hostname: string; services: { name: string; port: number }[] }>(
      bob.token,
      'GET',
      '/boxes/my',
    );
    expect(await asRoot(bob, 'hostname; cat /etc/hostname')).to.equal(`${mine.body.hostname}\n`.repeat(2));
    const services = mine.body.services;
    // The default loadout: 3 ways in, each a published service, and the box's sshd (listed whatever the loadout).
    expect(services.map((s) => s.port)).to.include(22);
    expect(services.length).to.be.within(3, 4);
    for (const service of services) {
      const entry = catalogue.find(
        (e) => e.check?.port === service.port && e.services[0]?.name === service.name,
      );
      expect(entry, `${service.name} on ${service.port}`).to.not.equal(undefined);
      await until(`${service.name}'s check`, async () => (await check(entry!, bob.computer, bob)).ok);
    }
    // The installer ran once, installed all five entries and took its directory with it.
    const journal = await until('the installer done', async () => {
      const out = await asRoot(bob, 'journalctl -b -u exploit-grid-loadout.service -o cat --no-pager');
      return (out.match(/^installed \d+$/gm) ?? []).length === 5 || out.includes('could not install')
        ? out
        : null;
    });
    expect(journal.match(/^installed \d+$/gm), journal).to.have.length(5);
    expect(journal).to.not.include('could not install');
    const left = await asRoot(bob, 'test -e /var/lib/exploit-grid/loadout && echo left || echo gone');
    expect(left.trim()).to.equal('gone');
  });

  it('installs every entry into a fresh box, leaves none of its files there, and each service passes its check', async () => {
    for (const entry of catalogue) await install(bob, entry.id);
    expect(await asRoot(bob, 'ls -A /var/lib/exploit-grid/loadout'), 'left behind').to.equal('');
    for (const entry of catalogue.filter((e) => e.check)) {
      const result = await until(`${entry.id}'s check`, async () => {
        const r = await check(entry, bob.computer, bob);
        return r.ok ? r : null;
      });
      expect(result.detail, entry.id).to.include(`port ${entry.check!.port}`);
    }
  });

  for (const entry of waysIn)
    it(`${entry.id}: the exploit gives the attacker a shell as ${entry.gives}, scored FOOTHOLD; the check passes from their side`, async () => {
      const attack = await startAttack();
      if (entry.check) expect((await check(entry, alice.computer, bob)).ok).to.equal(true);
      const shell = await exploitIn(entry, alice, bob);
      expect(shell, `a shell; the exploit said: ${lastExploitError}`).to.not.equal(null);
      await until('the FOOTHOLD', async () => (await events(attack)).includes('FOOTHOLD'));
      expect(await shell!.run('id')).to.include(`(${entry.gives})`);
      expect(await events(attack)).to.not.include('OWN');
      shell!.close();
    });

  for (const entry of waysUp)
    it(`${entry.id}: from a user shell the exploit gives root, scored OWNED`, async () => {
      const attack = await startAttack();
      const shell = (await exploitIn(door, alice, bob))!;
      expect(shell, 'a shell through the door').to.not.equal(null);
      await until('the FOOTHOLD', async () => (await events(attack)).includes('FOOTHOLD'));
      await typeExploitUp(entry, shell, 'id');
      await until(
        'the attack OWNED',
        async () => (await arena.attack(bob, attack)).outcome === 'OWNED',
        40_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; the shell said: ${shell.output.slice(-1500)}`);
      });
      expect((await arena.events(bob, attack)).find((e) => e.type === 'OWN')).to.not.equal(undefined);
      shell.close();
    });

  it('after the documented fixes no exploit works, and every service still passes its check', async () => {
    for (const entry of waysUp)
      await asRoot(bob, (await readFile(path.join(CATALOGUE_DIR, entry.id, 'fix.sh'), 'utf8')).toString());
    const attack = await startAttack();
    const shell = (await exploitIn(door, alice, bob))!;
    expect(shell, 'the door is still open').to.not.equal(null);
    await until('the FOOTHOLD', async () => (await events(attack)).includes('FOOTHOLD'));
    for (const entry of waysUp) {
      await typeExploitUp(entry, shell, 'id');
      // The exploit's last word: root refused (an error, or the program run as the user it was).
      const out = await shell.run('true', 40_000);
      expect(out, `${entry.id}: ${out}`)
        .to.match(/exit=\d/)
        .and.not.include('uid=0(root)');
    }
    await sleep(1500);
    expect(await events(attack), 'no way up after the fixes').to.not.include('OWN');
    shell.close();

    for (const entry of waysIn)
      await asRoot(bob, (await readFile(path.join(CATALOGUE_DIR, entry.id, 'fix.sh'), 'utf8')).toString());
    for (const entry of waysIn) {
      expect(await exploitIn(entry, alice, bob), `${entry.id} after its fix`).to.equal(null);
      if (entry.check) expect((await check(entry, alice.computer, bob)).ok, entry.id).to.equal(true);
    }
  });

  it('a “fix” that stops a service fails its check, until the service runs again', async () => {
    // Entries whose service is the box's own sshd (no units of their own) are left out: stopping it would
    // lock the test out of the box too.
    for (const entry of catalogue.filter((e) => e.check && e.units.length > 0)) {
      await asRoot(bob, 'systemctl stop "$@"', entry.units);
      const down = await check(entry, bob.computer, bob);
      expect(down.ok, entry.id).to.equal(false);
      expect(down.detail).to.match(/no answer/);
      await asRoot(bob, 'systemctl start "$@"', entry.units);
      await until(`${entry.id} back`, async () => (await check(entry, bob.computer, bob)).ok);
    }
  });
  it('a reset wipes the box and installs a new loadout at its next boot', async () => {
    const my = async () =>
      (
        await arena.call<{
          status: string;
          openPorts: Record<string, string>;
          services: { name: string; port: number }[];
        }>(bob.token, 'GET', '/boxes/my')
      ).body;
    const before = await my();
    await asRoot(bob, 'touch /root/hardened-by-bob');
    const hostname = (await asRoot(bob, 'hostname')).trim();
    const reset = await arena.call<{ status: string }>(bob.token, 'POST', `/boxes/${hostname}/reset`);
    expect(reset.status, JSON.stringify(reset.body)).to.equal(200);
    await until('the reset box stopped', async () => (await my()).status === 'STOPPED', 60_000);
    await until(
      'the reset box powered on',
      async () =>
        (await arena.call(bob.token, 'POST', `/boxes/${hostname}/power`, { on: true })).status < 300,
      30_000,
      500,
    );
    const after = await until(
      'the new box running with sshd',
      async () => {
        const box = await my();
        return box.status === 'RUNNING' && box.openPorts['22'] ? box : null;
      },
      150_000,
    );
    // A fresh disk: what the owner did is gone; the new services answer their checks.
    const left = await until('ssh into the new system', () =>
      asRoot(bob, 'test -e /root/hardened-by-bob && echo left || echo gone').catch(() => null),
    );
    expect(left.trim()).to.equal('gone');
    expect(after.services.length).to.be.within(3, 4);
    expect(before.services.length).to.be.within(3, 4);
    for (const service of after.services) {
      const entry = catalogue.find(
        (e) => e.check?.port === service.port && e.services[0]?.name === service.name,
      )!;
      await until(
        `${service.name}'s check after the reset`,
        async () => (await check(entry, bob.computer, bob)).ok,
      );
    }
  });
});
