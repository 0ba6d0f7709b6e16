// The VPN ingress (issue 17, item 2). Needs root and the box packages (make box-deps).
//
// Starts the built API as `make run` does, on the local runtime, with two players whose boxes
// run and whose "computers" are network namespaces (as the e2e tests have them), and measures:
//
// 1. Bulk throughput and round-trip latency through a TCP and a UDP tunnel: one stock OpenVPN
//    client through the platform's ingress (the host's address, DNAT, forwarding) against the
//    same client straight to the OpenVPN server's own address (routed by the host over the same
//    links, no DNAT), alternating, same run. Goal: throughput ratio >= 0.97.
// 2. The API's /healthz p99 while both players push bulk traffic to their boxes, against the
//    same with the tunnels idle, alternating. Goal: <= 1.2x.
//
// The platform runs with PLAYER_CPUS naming every CPU but the first (boxes and VPN servers there, the
// first left to the API), and the players' side (their OpenVPN clients and senders) runs on the same CPUs
// at nice 19: it stands for computers elsewhere, which take no CPU from the server at all.
//
//   node test/bench/vpn.ts                       (or: make bench-vpn)
//   BENCH_VPN_MB=24 BENCH_VPN_ROUNDS=8 node test/bench/vpn.ts
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Arena, until } from '../support/arena.ts';
import { ClientNamespace, VpnClient } from '../support/netns.ts';
import { localRuntimeEnv, startPlatform, takeDownBoxes } from '../support/platform.ts';
import { formatCpuList, onlineCpus } from '../../api/src/boxes/local/cgroups.ts';

const run = promisify(execFile);
const THROUGHPUT_GOAL = 0.97;
const HEALTHZ_GOAL = 1.2;
const megabytes = Number(process.env.BENCH_VPN_MB ?? 24);
const rounds = Number(process.env.BENCH_VPN_ROUNDS ?? 8);
/** Every CPU but the first: the players' (PLAYER_CPUS), where their side of the benchmark runs too. */
const playerCpus = onlineCpus().length >= 2 ? formatCpuList(onlineCpus().slice(1)) : null;
/** The command line that runs `command` on the players' CPUs, at nice 19. */
const onPlayersCpus = (command: string[]) => [
  ...(playerCpus ? ['taskset', '--cpu-list', playerCpus] : []),
  'nice',
  '-n',
  '19',
  ...command,
];
const SINK_PORT = 5001;
const ECHO_PORT = 5002;

if (process.getuid?.() !== 0) {
  console.error('bench-vpn: needs root (network namespaces, nftables, OpenVPN).');
  process.exit(2);
}

const prefix = `egv${randomBytes(1).toString('hex')}`;
const net3 = `10.219.${randomBytes(1)[0]! % 200}`;
const env = localRuntimeEnv({ prefix, net3, octet: 215 });
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-bench-vpn-'));
const files = path.join(dataDir, 'ovpn');
await run('mkdir', ['-p', files]);
const GUARD = 'exploit-grid-forwarding';
const clientLink = `${prefix}-c1`;
const transitLink = `${prefix}-tr0`;
const routerTransit = `${net3}.2`;
const computers = [
  new ClientNamespace(`${prefix}-p1`, `${prefix}-c1`, net3, 4),
  new ClientNamespace(`${prefix}-p2`, `${prefix}-c2`, net3, 8),
];
const helpers: ChildProcess[] = [];
let platform: Awaited<ReturnType<typeof startPlatform>> | undefined;

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Runs a Node script in a player's namespace and answers its stdout. */
/** Moves a running process of the players' side (an OpenVPN client) to their CPUs, at nice 19. */
async function toPlayersCpus(pid: number): Promise<void> {
  if (playerCpus) await run('taskset', ['--all-tasks', '--pid', '--cpu-list', playerCpus, String(pid)]);
  await run('renice', ['-n', '19', '-p', String(pid)]);
}

async function inComputer(computer: ClientNamespace, script: string, args: string[]): Promise<string> {
  const [command, ...rest] = onPlayersCpus([
    'ip',
    'netns',
    'exec',
    computer.name,
    process.execPath,
    '-e',
    script,
    ...args,
  ]);
  const { stdout } = await run(command!, rest, { timeout: 300_000 });
  return stdout;
}

/** Sends `mb` MB to the box's sink and answers MB/s (until the sink confirms every byte). */
const BULK = `const net = require('node:net');
  const [host, port, mb] = process.argv.slice(1);
  const total = Number(mb) * 1024 * 1024, chunk = Buffer.alloc(64 * 1024, 7);
  const s = net.connect(Number(port), host, () => {
    const t0 = performance.now(); let sent = 0;
    const pump = () => { while (sent < total) { sent += chunk.length; if (!s.write(chunk)) return s.once('drain', pump); } s.end(); };
    s.once('data', () => { console.log((total / 1048576) / ((performance.now() - t0) / 1000)); s.destroy(); });
    pump();
  });
  s.on('error', (e) => { console.error(e.message); process.exit(1); });`;

/** Sends to the box's sink without end for the given seconds (load for the /healthz phase). */
const FLOOD = `const net = require('node:net');
  const [host, port, seconds] = process.argv.slice(1);
  const chunk = Buffer.alloc(64 * 1024, 7);
  const s = net.connect(Number(port), host, () => {
    const pump = () => { while (s.write(chunk)); s.once('drain', pump); };
    pump();
    setTimeout(() => process.exit(0), Number(seconds) * 1000);
  });
  s.on('error', () => process.exit(0));`;

/** 300 sequential 32-byte round trips to the box's echo server; answers the RTTs in ms. */
const PING = `const net = require('node:net');
  const [host, port] = process.argv.slice(1);
  const s = net.connect(Number(port), host, () => {
    s.setNoDelay(true);
    const rtts = []; let t0;
    const next = () => { t0 = performance.now(); s.write(Buffer.alloc(32, 1)); };
    let got = 0;
    s.on('data', (d) => { got += d.length; if (got < 32) return; got = 0; rtts.push(performance.now() - t0);
      if (rtts.length === 300) { console.log(JSON.stringify(rtts.slice(20))); s.destroy(); } else next(); });
    next();
  });
  s.on('error', (e) => { console.error(e.message); process.exit(1); });`;

/** In the box: a sink that confirms the end of each upload, and an echo server. */
const BOX_SERVERS = `const net = require('node:net');
  net.createServer((c) => { c.on('data', () => undefined); c.on('end', () => c.end('k')); c.on('error', () => undefined); }).listen(${SINK_PORT});
  net.createServer((c) => { c.setNoDelay(true); c.pipe(c); c.on('error', () => undefined); }).listen(${ECHO_PORT});`;

/** /healthz latencies (ms) over `ms`, one request at a time on a kept-alive connection. */
async function healthz(url: string, ms: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      http
        .get(`${url}/healthz`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        })
        .on('error', reject);
    });
    latencies.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  agent.destroy();
  return latencies;
}

try {
  for (const computer of computers) await computer.create();
  platform = await startPlatform({
    dataDir,
    timeoutMs: 300_000,
    env: {
      ...env,
      LOG_LEVEL: 'warn',
      STARTING_FREE_CREDITS: '1000',
      BOX_MEMORY_MIB: '384',
      PLAYER_CPUS: playerCpus ?? 'all',
    },
  });
  // This process's own thread asks /healthz: it stands for a visitor elsewhere, so it stays off the players'
  // CPUs (where their traffic would delay the asking, not the answering).
  if (playerCpus) await run('taskset', ['--pid', '--cpu-list', '0', String(process.pid)]);
  const arena = new Arena(platform, files);
  const players = [];
  for (const [i, computer] of computers.entries())
    players.push(await arena.join(`vpnbench${i}${randomBytes(2).toString('hex')}`, computer));
  for (const p of players)
    await p.computer.ssh(
      p.box.ip,
      'systemd-run --quiet --unit=bench /usr/bin/node -e "$1" && for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/' +
        ECHO_PORT +
        ') 2>/dev/null && exit 0; sleep 0.1; done; exit 1',
      { password: p.box.password },
      [BOX_SERVERS],
    );
  // Players' UDP clients (from arena.join) are not needed for part 1.
  for (const vpn of [...VpnClient.all]) await vpn.stop();

  // The baseline: the same client to the OpenVPN server's own address, routed by the host over
  // the same links, without the ingress (no DNAT). Where the host did not forward before the
  // platform came, its guard passes only DNATed traffic: this benchmark lets its client's through.
  const [p1] = players as [(typeof players)[0], ...typeof players];
  const guarded = await run('nft', ['list', 'table', 'ip', GUARD]).then(
    () => true,
    () => false,
  );
  if (guarded)
    for (const [from, to] of [
      [clientLink, transitLink],
      [transitLink, clientLink],
    ] as const)
      await run('nft', ['insert', 'rule', 'ip', GUARD, 'forward', 'iifname', from, 'oifname', to, 'accept']);

  // 1. Throughput and latency, ingress against routed, alternating.
  const results: Record<string, { mbps: number[]; rtt: number[] }> = {};
  for (const protocol of ['TCP', 'UDP'] as const) {
    const ovpn = (
      await arena.call<{ ovpn_config: string }>(p1.token, 'GET', `/user-vpn/${p1.id}/${protocol}`)
    ).body.ovpn_config;
    const port = /^remote \S+ (\d+)$/m.exec(ovpn)![1]!;
    const ways = {
      ingress: ovpn,
      routed: ovpn.replace(/^remote \S+ \d+$/m, `remote ${routerTransit} 1194`),
    };
    for (let round = 0; round < rounds; round++) {
      // ABBA: drift on a shared machine weighs on both ways alike.
      const order = Object.entries(ways);
      for (const [way, config] of round % 2 ? order.reverse() : order) {
        const file = path.join(files, `${protocol}-${way}.ovpn`);
        await writeFile(file, config, { mode: 0o600 });
        const vpn = await p1.computer.connectVpn(file);
        await toPlayersCpus(vpn.child.pid!);
        // The runtime lets the new VPN address in when OpenVPN reports it.
        await until(
          'the box through the new tunnel',
          () => p1.computer.canConnect(p1.box.ip, SINK_PORT, 1),
          20_000,
        );
        const key = `${protocol} ${way}`;
        results[key] ??= { mbps: [], rtt: [] };
        results[key].mbps.push(
          Number(await inComputer(p1.computer, BULK, [p1.box.ip, String(SINK_PORT), String(megabytes)])),
        );
        results[key].rtt.push(
          ...(JSON.parse(await inComputer(p1.computer, PING, [p1.box.ip, String(ECHO_PORT)])) as number[]),
        );
        await vpn.stop();
      }
    }
    console.log(`${protocol} tunnel (host port ${port}), ${megabytes} MB per upload, ${rounds} rounds:`);
    for (const way of ['ingress', 'routed'])
      console.log(
        `  ${way.padEnd(8)} ${results[`${protocol} ${way}`]!.mbps.map((v) => v.toFixed(1)).join(' / ')} MB/s, ` +
          `RTT p50 ${median(results[`${protocol} ${way}`]!.rtt).toFixed(2)} ms, p99 ${percentile(results[`${protocol} ${way}`]!.rtt, 99).toFixed(2)} ms`,
      );
  }

  // 2. /healthz while both players push bulk traffic, against idle tunnels.
  for (const p of players) {
    const ovpn = (await arena.call<{ ovpn_config: string }>(p.token, 'GET', `/user-vpn/${p.id}/TCP`)).body
      .ovpn_config;
    const file = path.join(files, `${p.handle}-tcp.ovpn`);
    await writeFile(file, ovpn, { mode: 0o600 });
    const vpn = await p.computer.connectVpn(file);
    await toPlayersCpus(vpn.child.pid!);
    await until('the box through the tunnel', () => p.computer.canConnect(p.box.ip, SINK_PORT, 1), 20_000);
  }
  const idle: number[] = [];
  const loaded: number[] = [];
  const phaseMs = 8000;
  for (let round = 0; round < rounds; round++) {
    idle.push(...(await healthz(platform.url, phaseMs)));
    const floods = players.map((p) => {
      const [command, ...args] = onPlayersCpus([
        'ip',
        'netns',
        'exec',
        p.computer.name,
        process.execPath,
        '-e',
        FLOOD,
        p.box.ip,
        String(SINK_PORT),
        String(phaseMs / 1000 + 2),
      ]);
      return spawn(command!, args, { stdio: 'ignore' });
    });
    helpers.push(...floods);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    loaded.push(...(await healthz(platform.url, phaseMs)));
    await Promise.all(
      floods.map(
        (f) => new Promise((resolve) => (f.exitCode === null ? f.once('exit', resolve) : resolve(null))),
      ),
    );
  }

  // Each round's two uploads ran back to back: the median of their ratios leaves out the drift
  // between rounds that a ratio of medians would keep.
  const ratio = (key: string) =>
    median(results[`${key} ingress`]!.mbps.map((mbps, i) => mbps / results[`${key} routed`]!.mbps[i]!));
  const tcpRatio = ratio('TCP');
  const udpRatio = ratio('UDP');
  const healthzRatio = percentile(loaded, 99) / percentile(idle, 99);
  console.log(
    `throughput ingress / routed (median of each round's ratio): TCP ${tcpRatio.toFixed(3)}, UDP ${udpRatio.toFixed(3)} (goal >= ${THROUGHPUT_GOAL})`,
  );
  console.log(
    `/healthz p99: ${percentile(loaded, 99).toFixed(2)} ms with two players pushing bulk traffic, ` +
      `${percentile(idle, 99).toFixed(2)} ms idle (p50 ${median(loaded).toFixed(2)} / ${median(idle).toFixed(2)} ms, ` +
      `${loaded.length} / ${idle.length} requests): ${healthzRatio.toFixed(2)}x (goal <= ${HEALTHZ_GOAL}x)`,
  );
  process.exitCode =
    tcpRatio >= THROUGHPUT_GOAL && udpRatio >= THROUGHPUT_GOAL && healthzRatio <= HEALTHZ_GOAL ? 0 : 1;
} finally {
  // The benchmark's exceptions in the guard, if another runtime keeps it.
  const chain = await run('nft', ['-a', 'list', 'chain', 'ip', GUARD, 'forward']).catch(() => ({
    stdout: '',
  }));
  for (const line of chain.stdout.split('\n'))
    if (line.includes(`"${clientLink}"`))
      await run('nft', [
        'delete',
        'rule',
        'ip',
        GUARD,
        'forward',
        'handle',
        /# handle (\d+)/.exec(line)![1]!,
      ]);
  for (const helper of helpers) if (helper.exitCode === null) helper.kill('SIGKILL');
  for (const vpn of [...VpnClient.all]) await vpn.stop();
  await platform?.stop();
  await takeDownBoxes(env, dataDir).catch((err: unknown) => console.error('boxes-down failed:', err));
  for (const computer of computers) await computer.destroy().catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
}
