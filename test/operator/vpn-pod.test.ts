import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { clientConfig } from '../../api/src/vpn/client-config.ts';
import { parseSubnet } from '../../operator/src/box/addresses.ts';
import { VpnPki } from '../../operator/src/vpn/pki.ts';
import {
  CHECKER_FILE,
  SERVER_CAPABILITIES,
  pkiSecretFor,
  serverConfig,
  serverSlices,
  vpnServerName,
} from '../../operator/src/vpnpool/builders.ts';
import { SCRIPTS } from '../../operator/src/vpnpool/scripts.ts';
import type { VpnPool } from '../../operator/src/vpnpool/types.ts';
import { until } from '../support/until.ts';
import { needsRoot } from '../support/root.ts';

const run = promisify(execFile);
const sh = (command: string) => run('sh', ['-c', command]);

/**
 * A VPN server pod as the operator makes it, without Kubernetes: the pool's OpenVPN
 * configuration, PKI and scripts, the entrypoint run in a network namespace of its own (its
 * "pod"), with an arena link to a box, a link to a stand-in for the API's internal Service, and
 * stock OpenVPN clients in namespaces of their own. Needs root and OpenVPN.
 */
describe('A VPN server pod (entrypoint, OpenVPN, hooks, access) in network namespaces', function () {
  this.timeout(60_000);
  const tag = randomBytes(2).toString('hex');
  const ns = { pod: `egp${tag}`, box: `egb${tag}`, owner: `ego${tag}`, other: `egx${tag}` };
  const hostLink = `egh${tag}`;
  const ownerId = '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11';
  const otherId = '7c1c9b63-8b4f-4d4a-8a7d-1b5b4d2c3e22';
  const boxAddress = '172.30.1.1';
  const pool: VpnPool = {
    apiVersion: 'exploitgrid.io/v1alpha1',
    kind: 'VpnPool',
    metadata: { name: 'arena', namespace: 'eg', uid: 'u' },
    spec: {
      udp: { replicas: 1, port: 1194, clientSubnet: '10.8.0.0/16', maxClients: 10, serviceType: 'ClusterIP' },
      tcp: { replicas: 1, port: 443, clientSubnet: '10.9.0.0/16', maxClients: 10, serviceType: 'ClusterIP' },
      thresholds: { limitedPercent: 80, fullPercent: 100 },
    },
  };
  let dir: string;
  let api: http.Server;
  const calls: { path: string; body: string }[] = [];
  /** Service checks the stand-in API hands the pod's checker at its next poll. */
  const checkJobs: object[] = [];
  const children: ChildProcess[] = [];
  let pki: Record<string, string>;
  /** The players' VPN addresses once connected (by the first tests). */
  let ownerAddress = '';
  let otherAddress = '';

  const inNs = (name: string, command: string) => sh(`ip netns exec ${name} ${command}`);
  const ping = (from: string, to: string) =>
    inNs(from, `ping -c 1 -W 1 ${to}`).then(
      () => true,
      () => false,
    );
  const writeAccess = (access: object) =>
    writeFile(path.join(dir, 'etc/access/access.json'), JSON.stringify(access));

  before(async function () {
    needsRoot(this, 'the VPN pod test');
    dir = await mkdtemp(path.join(os.tmpdir(), 'eg-vpn-pod-'));
    for (const sub of ['etc/server', 'etc/pki', 'etc/access', 'run'])
      await mkdir(path.join(dir, sub), { recursive: true });

    // The API's internal Service, reached from the pod over a link of its own.
    api = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        calls.push({ path: request.url!, body });
        if (request.url === '/internal/vpn/connect')
          response.writeHead(200).end(JSON.stringify({ allow: true }));
        else if (request.url === '/internal/vpn/checks/next')
          // A short long poll: the jobs queued, or none after a moment.
          setTimeout(() => response.writeHead(200).end(JSON.stringify({ jobs: checkJobs.splice(0) })), 200);
        else response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '10.99.0.1', resolve).once('error', () => resolve()));

    await sh(`ip link add ${hostLink} type veth peer name eth0 netns ${await netns(ns.pod)}`);
    await sh(`ip addr add 10.99.0.1/30 dev ${hostLink} && ip link set ${hostLink} up`);
    await inNs(
      ns.pod,
      'sh -c "ip addr add 10.99.0.2/30 dev eth0 && ip link set eth0 up && ip link set lo up"',
    );
    if (!api.listening) await new Promise<void>((resolve) => api.listen(0, '10.99.0.1', resolve));
    const apiUrl = `http://10.99.0.1:${(api.address() as AddressInfo).port}`;

    // The arena: the pod's arena0 and one box.
    await sh(`ip link add arena0 netns ${ns.pod} type veth peer name eth0 netns ${await netns(ns.box)}`);
    await inNs(ns.pod, 'sh -c "ip addr add 172.30.0.10/16 dev arena0 && ip link set arena0 up"');
    await inNs(
      ns.box,
      `sh -c "ip addr add ${boxAddress}/16 dev eth0 && ip link set eth0 up && ip link set lo up && ip route add 10.8.0.0/16 via 172.30.0.10"`,
    );
    // Players' links to the server's public side.
    let index = 0;
    for (const player of [ns.owner, ns.other]) {
      const base = 4 * index++;
      await sh(
        `ip link add wan${index} netns ${ns.pod} type veth peer name eth0 netns ${await netns(player)}`,
      );
      await inNs(
        ns.pod,
        `sh -c "ip addr add 198.51.100.${base + 1}/30 dev wan${index} && ip link set wan${index} up"`,
      );
      await inNs(
        player,
        `sh -c "ip addr add 198.51.100.${base + 2}/30 dev eth0 && ip link set eth0 up && ip link set lo up"`,
      );
    }

    // What the operator puts in the pod: its configuration, scripts, PKI and access list.
    const arena = parseSubnet('172.30.0.0/16');
    const server = serverSlices(pool, arena)[0]!;
    const etc = path.join(dir, 'etc');
    for (const [name, content] of Object.entries(SCRIPTS))
      await writeFile(path.join(etc, 'server', name), content);
    // The service checker as the operator ships it (make build bundles it).
    await writeFile(
      path.join(etc, 'server', CHECKER_FILE),
      await readFile(path.resolve(import.meta.dirname, '../../operator/dist/vpn-checker.cjs')),
    );
    await writeFile(
      path.join(etc, 'server', `${server.name}.conf`),
      serverConfig(pool, server, arena, {
        apiInternalUrl: apiUrl,
        etcDir: etc,
        runDir: path.join(dir, 'run'),
      }),
    );
    pki = (await pkiSecretFor(pool)).stringData!;
    for (const [name, content] of Object.entries(pki))
      await writeFile(path.join(etc, 'pki', name), content, { mode: 0o600 });
    await writeAccess({ owners: { [ownerId]: [boxAddress] }, windows: [] });

    // Confined as the pod's container is: read-only root and /proc/sys (writable: the run
    // directory, the pod's emptyDir), only the Deployment's capabilities, no privilege escalation;
    // forwarding on in its network namespace as a Kubernetes node's is (a new one inherits it).
    await inNs(ns.pod, 'sysctl -qw net.ipv4.ip_forward=1');
    const run = path.join(dir, 'run');
    const capabilities = SERVER_CAPABILITIES.map((c) => `+${c.toLowerCase()}`).join(',');
    const confined = [
      `mount --bind ${run} ${run}`,
      'mount --bind /proc/sys /proc/sys',
      'mount -o remount,bind,ro /proc/sys',
      'mount -o remount,bind,ro /',
      `exec setpriv --no-new-privs --bounding-set -all,${capabilities} --inh-caps -all sh ${path.join(etc, 'server/entrypoint.sh')}`,
    ].join(' && ');
    const pod = spawn('ip', ['netns', 'exec', ns.pod, 'unshare', '--mount', 'sh', '-c', confined], {
      env: {
        ...process.env,
        EG_ETC: etc,
        EG_RUN: run,
        SERVER_NAME: server.name,
        PROTOCOL: 'udp',
        CLIENT_SUBNET: server.slice.cidr,
        ROUTER_ADDRESS: server.routerAddress,
        API_INTERNAL_URL: apiUrl,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(pod);
    let output = '';
    pod.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    pod.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await until('the server’s tun0', () => inNs(ns.pod, 'ip link show tun0'), 20_000).catch(
      (error: unknown) => {
        throw new Error(`the pod did not start:\n${output}`, { cause: error });
      },
    );
    // The readiness probe says ready.
    await inNs(ns.pod, `env EG_ETC=${etc} sh ${path.join(etc, 'server/ready.sh')}`);
  });

  after(async () => {
    for (const child of children) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // gone
      }
    }
    api?.close();
    for (const name of Object.values(ns)) await sh(`ip netns delete ${name}`).catch(() => {});
    await sh(`ip link delete ${hostLink}`).catch(() => {});
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function netns(name: string): Promise<string> {
    await sh(`ip netns add ${name}`).catch(() => {});
    return name;
  }

  async function connect(player: string, userId: string, remote: string): Promise<string> {
    const ca = await VpnPki.load({ certificatePem: pki['ca.crt']!, privateKeyPem: pki['ca.key']! });
    const identity = await ca.issueClient(userId);
    const file = path.join(dir, `${player}.ovpn`);
    await writeFile(
      file,
      clientConfig({
        protocol: 'UDP',
        remoteHost: remote,
        remotePort: 1194,
        serverName: vpnServerName(pool),
        caPem: pki['ca.crt']!,
        certificatePem: identity.certificatePem,
        privateKeyPem: identity.privateKeyPem,
        tlsCryptKey: pki['tls-crypt.key']!,
        label: player,
      }),
      { mode: 0o600 },
    );
    const client = spawn('ip', ['netns', 'exec', player, 'openvpn', '--config', file], {
      stdio: 'ignore',
      detached: true,
    });
    children.push(client);
    const session = path.join(dir, 'run/exploit-grid/sessions', userId);
    const address = await until('the session', () => readFile(session, 'utf8'), 30_000);
    await until('the client’s tunnel', () => inNs(player, 'ip -4 addr show tun0'), 10_000);
    return address.trim();
  }

  it('admits a player through the API’s hook and routes them to their box with their real VPN address', async () => {
    const address = (ownerAddress = await connect(ns.owner, ownerId, '198.51.100.1'));
    expect(address).to.match(/^10\.8\.\d+\.\d+$/);
    const connect_ = calls.find((c) => c.path === '/internal/vpn/connect')!;
    expect(JSON.parse(connect_.body)).to.deep.equal({
      protocol: 'udp',
      commonName: ownerId,
      vpnAddress: address,
      server: 'arena-udp-0',
      // Where the client connects from, as OpenVPN sees it: the player's namespace, across its /30 from the pod.
      realAddress: '198.51.100.2',
    });
    await until('the owner reaching the box', () => ping(ns.owner, boxAddress), 10_000);
    // No NAT: the box sees the player's VPN address.
    const seen = spawn(
      'ip',
      [
        'netns',
        'exec',
        ns.box,
        process.execPath,
        '-e',
        `require('net').createServer((s) => { console.log(s.remoteAddress); process.exit(0); }).listen(7777, '${boxAddress}')`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    children.push(seen);
    let remote = '';
    seen.stdout!.on('data', (c: Buffer) => (remote += c.toString()));
    await until(
      'a connection from the player',
      async () => {
        // The listener prints the address and exits: its output can arrive after the connect that made it
        // returned, and any later connect is refused, so look before connecting again.
        if (remote.trim()) return remote.trim();
        await inNs(
          ns.owner,
          `${process.execPath} -e "require('net').connect(7777, '${boxAddress}').on('connect', () => process.exit(0)).on('error', () => process.exit(1))"`,
        );
        return remote.trim();
      },
      10_000,
    );
    expect(remote.trim()).to.equal(address);
  });

  it('keeps another player out of the box until an attack window lets them in', async () => {
    const address = (otherAddress = await connect(ns.other, otherId, '198.51.100.5'));
    expect(await ping(ns.other, boxAddress)).to.equal(false);
    await writeAccess({
      owners: { [ownerId]: [boxAddress] },
      windows: [{ source: address, box: boxAddress, until: new Date(Date.now() + 60_000).toISOString() }],
    });
    await until('the attacker reaching the box', () => ping(ns.other, boxAddress), 10_000);
    await writeAccess({ owners: { [ownerId]: [boxAddress] }, windows: [] });
    await until('the window closed', async () => !(await ping(ns.other, boxAddress)), 10_000);
    expect(await ping(ns.owner, boxAddress)).to.equal(true);
  });

  it('witnesses an attacker’s flows in a window for the referee: when each opened, whether the box still talks on it; none of the owner’s', async () => {
    // Both players are connected by the tests before.
    const address = otherAddress;
    const owner = ownerAddress;
    await writeAccess({
      owners: { [ownerId]: [boxAddress] },
      windows: [{ source: address, box: boxAddress, until: new Date(Date.now() + 60_000).toISOString() }],
    });
    await until('the attacker reaching the box', () => ping(ns.other, boxAddress), 10_000);
    // An echo service on the box; the attacker keeps talking for a few seconds then hangs up, the
    // owner holds a connection of their own.
    const echo = spawn(
      'ip',
      [
        'netns',
        'exec',
        ns.box,
        process.execPath,
        '-e',
        `require('net').createServer((s) => s.pipe(s).on('error', () => {})).listen(7778, '${boxAddress}', () => console.log('listening'))`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'], detached: true },
    );
    children.push(echo);
    await new Promise((resolve) => echo.stdout!.once('data', resolve));
    const talk = (player: string, seconds: number) =>
      spawn(
        'ip',
        [
          'netns',
          'exec',
          player,
          process.execPath,
          '-e',
          `const s = require('net').connect(7778, '${boxAddress}', () => { console.log(s.localPort);
            const t = setInterval(() => s.write('x'), 200); setTimeout(() => { clearInterval(t); s.end(); }, ${seconds * 1000}); });
           s.resume(); s.on('error', () => process.exit(1));`,
        ],
        { stdio: ['ignore', 'pipe', 'ignore'], detached: true },
      );
    /** The player's port once connected (0 when it could not connect). */
    const port = (child: ChildProcess) =>
      new Promise<number>((resolve) => {
        child.stdout!.once('data', (c: Buffer) => resolve(Number(c.toString())));
        child.once('exit', () => resolve(0));
      });
    const attacker = talk(ns.other, 6);
    const ownerTalk = talk(ns.owner, 6);
    children.push(attacker, ownerTalk);
    const attackerPort = await port(attacker);
    const ownerPort = await port(ownerTalk);
    expect(attackerPort).to.be.greaterThan(0);
    expect(ownerPort).to.be.greaterThan(0);
    type Flow = {
      client: string;
      clientPort: number;
      box: string;
      boxPort: number;
      openedSecondsAgo: number;
      idleSeconds: number | null;
    };
    const reports = () =>
      calls
        .filter((c) => c.path === '/internal/vpn/flows')
        .map((c) => JSON.parse(c.body) as { server: string; router: string; flows: Flow[] });
    const ours = (report: { flows: Flow[] }) => report.flows.find((f) => f.clientPort === attackerPort);
    const from = reports().length;
    const active = await until(
      'the router’s report of the attacker’s flow',
      async () =>
        reports()
          .slice(from)
          .map(ours)
          .find((f) => f !== undefined && f.idleSeconds !== null),
      10_000,
    );
    expect(active).to.deep.include({ client: address, box: boxAddress, boxPort: 7778 });
    expect(active.openedSecondsAgo).to.be.within(0, 4);
    expect(active.idleSeconds).to.be.within(0, 2);
    expect(reports().at(-1)).to.include({ server: 'arena-udp-0', router: '172.30.0.10' });
    // The owner's own flow is nobody's business.
    expect(
      reports()
        .flatMap((r) => r.flows)
        .some((f) => f.client === owner || f.clientPort === ownerPort),
    ).to.equal(false);
    // The attacker hangs up: the box's FIN ends the flow's activity at once (no 15 s wait).
    await new Promise((resolve) => attacker.once('exit', resolve));
    const after = reports().length;
    const ended = await until(
      'the report of the ended flow',
      async () =>
        reports()
          .slice(after)
          .map(ours)
          .find((f) => f !== undefined && f.idleSeconds === null),
      10_000,
    );
    expect(ended.openedSecondsAgo).to.be.within(5, 12);

    // A flow is dated by its handshake, once: one the router let go of (as it does two minutes
    // after the opening) is not told again with a new opening while it goes on.
    const longTalk = talk(ns.other, 8);
    children.push(longTalk);
    const longPort = await port(longTalk);
    const longFlow = (report: { flows: Flow[] }) => report.flows.find((f) => f.clientPort === longPort);
    const told = reports().length;
    await until('the report of the long flow', async () => reports().slice(told).find(longFlow), 10_000);
    await inNs(
      ns.pod,
      `nft delete element inet eg opened '{ ${address} . ${longPort} . ${boxAddress} . 7778 }'`,
    );
    await sleep(500);
    const forgotten = reports().length;
    await sleep(4500);
    expect(reports().slice(forgotten).length, 'reports while the flow went on').to.be.at.least(2);
    expect(reports().slice(forgotten).some(longFlow), 'the long flow told again').to.equal(false);
    longTalk.kill();

    // Handshakes churned without end fill nothing: 20 a second per attacker address, 200 at once.
    const churn = await inNs(
      ns.other,
      `${process.execPath} -e "const net = require('net'); let n = 0;
        for (let i = 0; i < 600; i++) { const s = net.connect(7778, '${boxAddress}', () => { n++; s.destroy(); }); s.on('error', () => {}); }
        setTimeout(() => { console.log(n); process.exit(0); }, 3000);"`,
    );
    const opened = JSON.parse((await inNs(ns.pod, 'nft -j list set inet eg opened')).stdout) as {
      nftables: { set?: { elem?: unknown[] } }[];
    };
    const elements = opened.nftables.find((e) => e.set)?.set?.elem ?? [];
    const established = Number(churn.stdout.trim());
    expect(established, 'connections of the churn that got through').to.be.within(150, 200 + 3 * 20 + 20);
    expect(elements.length, 'flows the router keeps').to.be.at.most(200 + 3 * 20 + 20 + 5);
    await writeAccess({ owners: { [ownerId]: [boxAddress] }, windows: [] });
  });

  it('makes the API’s service checks from the router as the attacker, on the API’s source port, never as one of the attacker’s flows', async () => {
    const attacker = otherAddress;
    await writeAccess({
      owners: { [ownerId]: [boxAddress] },
      windows: [{ source: attacker, box: boxAddress, until: new Date(Date.now() + 60_000).toISOString() }],
    });
    await until('the attacker reaching the box', () => ping(ns.other, boxAddress), 10_000);
    // A web application on the box that says who asked, and a line service that answers a greeting.
    const web = spawn(
      'ip',
      [
        'netns',
        'exec',
        ns.box,
        process.execPath,
        '-e',
        `require('http').createServer((q, s) => { let b = ''; q.on('data', (c) => (b += c));
           q.on('end', () => s.end(q.socket.remoteAddress + ':' + q.socket.remotePort + ' ' + b)); })
           .listen(8080, '${boxAddress}', () => console.log('listening'));
         require('net').createServer((s) => s.once('data', (d) => s.write('+OK ' + d))).listen(6380, '${boxAddress}');`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'], detached: true },
    );
    children.push(web);
    await new Promise((resolve) => web.stdout!.once('data', resolve));
    // The box counts the SYNs reaching its web application, those with TTL 64 and MSS 1300, and those with
    // timestamps (whose clock would be one for all checks).
    await inNs(
      ns.box,
      `nft 'add table inet watch; add counter inet watch syns; add counter inet watch alike; add counter inet watch stamped;
        add chain inet watch input { type filter hook input priority 0; policy accept; };
        add rule inet watch input tcp dport 8080 tcp flags syn counter name syns;
        add rule inet watch input tcp dport 8080 tcp flags syn ip ttl 64 tcp option maxseg size 1300 counter name alike;
        add rule inet watch input tcp dport 8080 tcp flags syn tcp option timestamp exists counter name stamped'`,
    );
    const syns = async () => {
      const listed = (await inNs(ns.box, 'nft -j list counters table inet watch')).stdout;
      const counters = (
        JSON.parse(listed) as { nftables: { counter?: { name: string; packets: number } }[] }
      ).nftables.flatMap((e) => (e.counter ? [e.counter] : []));
      return Object.fromEntries(counters.map((c) => [c.name, c.packets]));
    };
    const outcome = async (job: { id: string }) =>
      JSON.parse(
        (
          await until(
            'the check’s outcome',
            async () =>
              calls.find(
                (c) =>
                  c.path === '/internal/vpn/checks/result' &&
                  (JSON.parse(c.body) as { id: string }).id === job.id,
              ),
            15_000,
          )
        ).body,
      ) as Record<string, unknown>;
    const job = {
      id: randomUUID(),
      box: boxAddress,
      port: 8080,
      speakingAs: attacker,
      sourcePort: 45678,
      timeoutMs: 5000,
      request: { type: 'http', method: 'POST', path: '/notes?x=1', form: { note: 'n-1' } },
    };
    const tcpJob = {
      ...job,
      id: randomUUID(),
      port: 6380,
      sourcePort: 45679,
      request: { type: 'tcp', send: 'PING\r\n', contains: '+OK PING' },
    };
    const reportsBefore = calls.filter((c) => c.path === '/internal/vpn/flows').length;
    checkJobs.push(job, tcpJob);
    // The box saw the attacker's address on the source port the API chose.
    expect(await outcome(job)).to.deep.equal({
      server: 'arena-udp-0',
      id: job.id,
      outcome: 'answered',
      status: 200,
      body: `${attacker}:45678 note=n-1`,
    });
    expect(await outcome(tcpJob)).to.deep.include({ outcome: 'answered', body: '+OK PING\r\n' });
    // The router witnessed neither as a flow of the attacker's.
    await until(
      'two flow reports after the checks',
      async () =>
        calls.filter((c) => c.path === '/internal/vpn/flows').length >= reportsBefore + 2 || undefined,
      10_000,
    );
    const witnessed = calls
      .filter((c) => c.path === '/internal/vpn/flows')
      .flatMap((c) => (JSON.parse(c.body) as { flows: { clientPort: number }[] }).flows)
      .map((f) => f.clientPort);
    expect(witnessed).to.not.include.members([45678, 45679]);

    // A source port the attacker is using with that port of the box: the checker says so (the API asks again).
    const holder = spawn(
      'ip',
      [
        'netns',
        'exec',
        ns.other,
        process.execPath,
        '-e',
        `const s = require('net').connect(8080, '${boxAddress}', () => console.log(s.localPort)); s.resume();`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'], detached: true },
    );
    children.push(holder);
    const held = Number(
      await new Promise<string>((resolve) =>
        holder.stdout!.once('data', (c: Buffer) => resolve(c.toString())),
      ),
    );
    await until(
      'the router’s report of the attacker’s own flow',
      async () =>
        calls
          .filter((c) => c.path === '/internal/vpn/flows')
          .some((c) =>
            (JSON.parse(c.body) as { flows: { clientPort: number }[] }).flows.some(
              (f) => f.clientPort === held,
            ),
          ) || undefined,
      10_000,
    );
    const taken = { ...job, id: randomUUID(), sourcePort: held };
    // And a service that is down: the defender's failure, not the platform's.
    const down = { ...job, id: randomUUID(), port: 8081, sourcePort: 45680, timeoutMs: 2000 };
    checkJobs.push(taken, down);
    expect(await outcome(taken)).to.deep.equal({
      server: 'arena-udp-0',
      id: taken.id,
      outcome: 'port-taken',
    });
    expect(await outcome(down)).to.deep.include({ outcome: 'failed' });
    holder.kill();
    // The checks' SYNs and the attacker's own looked the same to the box: TTL and segment size.
    const counted = await syns();
    expect(counted.syns, 'SYNs to the web application').to.be.at.least(2);
    expect(counted.alike, 'SYNs with TTL 64 and MSS 1300').to.equal(counted.syns);
    expect(counted.stamped, 'SYNs with timestamps').to.equal(0);
    await inNs(ns.box, 'nft delete table inet watch');
    await writeAccess({ owners: { [ownerId]: [boxAddress] }, windows: [] });
  });

  it('forwards the box’s agent reports on the router’s port 80 to the API, and nothing else', async () => {
    await inNs(ns.box, 'curl -s -m 5 -X POST http://172.30.0.10/internal/agent/report -d {}');
    expect(calls.some((c) => c.path === '/internal/agent/report')).to.equal(true);
    // The box reaches no player it was not opened to, and no other port of the router.
    expect(
      await inNs(ns.box, 'curl -s -m 2 http://172.30.0.10:8080/').then(
        () => true,
        () => false,
      ),
    ).to.equal(false);
    // Nor does the router itself answer the box.
    expect(await ping(ns.box, '172.30.0.10')).to.equal(false);
  });
});
