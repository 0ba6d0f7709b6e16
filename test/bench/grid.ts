// The Grid under load (issue 7's goals), each against a baseline in the same run:
// - N /grid sockets on one API process (default 10,000): p95 delivery of a presence broadcast and of an
//   attack broadcast to all of them (goal <= 100 ms), and server heap per idle socket (goal <= 20 KB);
//   the baseline is a bare Socket.IO server with the same namespace and transport.
// - A matchmaking tick with 10,000 queued players (goal <= 100 ms); the baseline is reading the
//   same queue rows alone.
// The clients run in this process, the server in a child, on the same machine (2 cores shared). They
// are thin: each is a WebSocket speaking the Engine.IO 4 / Socket.IO 5 wire protocol (connect to /grid
// with its token, answer pings, note when an event's frame arrives) without decoding payloads, so that
// what is measured is the server's fan-out, not 10,000 full clients in one event loop.
//
//   node test/bench/grid.ts              (or: make bench-grid)
//   BENCH_SOCKETS=2000 BENCH_QUEUED=10000 BENCH_ROUNDS=5 node test/bench/grid.ts
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { Command } from './grid-server.ts';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000);
const QUEUED = Number(process.env.BENCH_QUEUED ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const GOALS = { broadcastP95Ms: 100, heapPerSocketKB: 20, tickMs: 100 };

interface Server {
  child: ChildProcess;
  url: string;
  ask<T>(command: Command): Promise<T>;
}

async function startServer(mode: 'api' | 'raw'): Promise<Server> {
  const child = fork(path.join(import.meta.dirname, 'grid-server.ts'), [mode], {
    execArgv: ['--expose-gc', '--max-old-space-size=4096'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: { type: string }) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message as T);
      };
      const onExit = (code: number | null) => reject(new Error(`the ${mode} server exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const { url } = await next<{ url: string }>('ready');
  return {
    child,
    url,
    ask: <T>(command: Command) => {
      const answer = next<T>(command.type);
      child.send(command);
      return answer;
    },
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const median = (values: number[]) => percentile(values, 50);

/** Where frames of the event being measured are noted (one broadcast at a time). */
let watching: { prefix: string; arrivals: number[] } | null = null;

/** One player's /grid connection on the wire: `40/grid,{auth}` to connect, `3` for each ping `2`. */
function openThinSocket(url: string, id: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(
      `${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket&userId=${id}`,
      { perMessageDeflate: false },
    );
    ws.on('message', (data: Buffer) => {
      const frame = data.toString();
      if (frame === '2') ws.send('3');
      else if (frame.startsWith('0')) ws.send(`40/grid,${JSON.stringify({ token: `bench:${id}` })}`);
      else if (frame.startsWith('40/grid,')) resolve(ws);
      else if (frame.startsWith('44/grid,')) reject(new Error(`refused: ${frame}`));
      else if (watching && frame.startsWith(watching.prefix)) watching.arrivals.push(Date.now());
    });
    ws.once('error', reject);
  });
}

/** Opens one connection per user, `batch` handshakes at a time. */
async function openSockets(url: string, ids: string[], batch = 250): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < ids.length; i += batch)
    sockets.push(...(await Promise.all(ids.slice(i, i + batch).map((id) => openThinSocket(url, id)))));
  return sockets;
}

/** Sends `ROUNDS` broadcasts of `event` (after one to warm up); answers every delivery's latency (ms). */
async function measureBroadcasts(
  server: Server,
  sockets: WebSocket[],
  event: string,
  kind: 'player' | 'attack',
) {
  const latencies: number[] = [];
  const emitMs: number[] = [];
  for (let round = 0; round < ROUNDS + 1; round++) {
    const arrivals: number[] = [];
    watching = { prefix: `42/grid,["${event}"`, arrivals };
    const sent = await server.ask<{ sentAt: number; emitMs: number }>({ type: 'broadcast', kind });
    const { sentAt } = sent;
    const deadline = Date.now() + 30_000;
    while (arrivals.length < sockets.length && Date.now() < deadline) await sleep(5);
    watching = null;
    if (arrivals.length < sockets.length)
      throw new Error(`${event}: ${arrivals.length} of ${sockets.length} sockets got the broadcast`);
    if (round > 0) {
      latencies.push(...arrivals.map((at) => at - sentAt));
      emitMs.push(sent.emitMs);
    }
    await sleep(200);
  }
  return Object.assign(latencies, { emitMs: median(emitMs) });
}

async function socketsRun(mode: 'api' | 'raw') {
  const server = await startServer(mode);
  try {
    const { ids } = await server.ask<{ ids: string[] }>({ type: 'users', count: SOCKETS });
    const before = (await server.ask<{ bytes: number }>({ type: 'heap' })).bytes;
    if (mode === 'api') await server.ask({ type: 'announce', on: false });
    const started = performance.now();
    const sockets = await openSockets(server.url, ids);
    const connectSeconds = (performance.now() - started) / 1000;
    if (mode === 'api') await server.ask({ type: 'announce', on: true });
    // Every player placed on the globe (the API loads each from the database), then a quiet moment.
    let after = await server.ask<{ bytes: number; online?: number }>({ type: 'heap' });
    for (let i = 0; mode === 'api' && after.online !== SOCKETS; i++) {
      if (i > 600) throw new Error(`${after.online} players online, expected ${SOCKETS}`);
      await sleep(200);
      after = await server.ask({ type: 'heap' });
    }
    await sleep(2000);
    after = await server.ask({ type: 'heap' });
    const perSocketKB = (after.bytes - before) / SOCKETS / 1024;
    const player = await measureBroadcasts(server, sockets, 'playerUpdated', 'player');
    const attack =
      mode === 'api' ? await measureBroadcasts(server, sockets, 'attackStarted', 'attack') : null;
    for (const socket of sockets) socket.close();
    return { connectSeconds, perSocketKB, player, attack };
  } finally {
    server.child.send({ type: 'stop' });
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
}

const fmt = (n: number) => n.toFixed(1);
const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

console.log(
  `Grid benchmark: ${SOCKETS} sockets, ${ROUNDS} broadcasts each; matchmaking tick with ${QUEUED} queued\n`,
);
const raw = await socketsRun('raw');
const api = await socketsRun('api');
const rawP95 = percentile(raw.player, 95);
const playerP95 = percentile(api.player, 95);
const attackP95 = percentile(api.attack!, 95);
console.log(
  `bare Socket.IO   connect ${fmt(raw.connectSeconds)} s   heap/socket ${fmt(raw.perSocketKB)} KB   broadcast p50 ${fmt(median(raw.player))} ms  p95 ${fmt(rawP95)} ms (server emit ${fmt(raw.player.emitMs)} ms)`,
);
console.log(
  `Exploit Grid API connect ${fmt(api.connectSeconds)} s   heap/socket ${fmt(api.perSocketKB)} KB   playerUpdated p50 ${fmt(median(api.player))} ms  p95 ${fmt(playerP95)} ms (server emit ${fmt(api.player.emitMs)} ms)   attackStarted p50 ${fmt(median(api.attack!))} ms  p95 ${fmt(attackP95)} ms (server emit ${fmt(api.attack!.emitMs)} ms)`,
);
console.log(
  `\nbroadcast p95 (playerUpdated, attackStarted): ${fmt(playerP95)} / ${fmt(attackP95)} ms   ratio to bare ${fmt(playerP95 / rawP95)} / ${fmt(attackP95 / rawP95)}   goal: <= ${GOALS.broadcastP95Ms} ms   ${verdict(Math.max(playerP95, attackP95) <= GOALS.broadcastP95Ms)}`,
);
console.log(
  `heap per idle socket: ${fmt(api.perSocketKB)} KB (bare ${fmt(raw.perSocketKB)} KB, ratio ${fmt(api.perSocketKB / raw.perSocketKB)})   goal: <= ${GOALS.heapPerSocketKB} KB   ${verdict(api.perSocketKB <= GOALS.heapPerSocketKB)}`,
);

const tickServer = await startServer('api');
try {
  const { ms } = await tickServer.ask<{ ms: { ticks: number[]; reads: number[]; proposals: number } }>({
    type: 'tick',
    queued: QUEUED,
    rounds: ROUNDS,
  });
  const tick = median(ms.ticks);
  const read = median(ms.reads);
  console.log(
    `matchmaking tick, ${QUEUED} queued: median ${fmt(tick)} ms (${ms.ticks.map((t) => t.toFixed(0)).join(', ')}), ${ms.proposals} proposals; reading the queue alone ${fmt(read)} ms (ratio ${fmt(tick / read)})   goal: <= ${GOALS.tickMs} ms   ${verdict(tick <= GOALS.tickMs)}`,
  );
  process.exitCode =
    Math.max(playerP95, attackP95) <= GOALS.broadcastP95Ms &&
    api.perSocketKB <= GOALS.heapPerSocketKB &&
    tick <= GOALS.tickMs
      ? 0
      : 1;
} finally {
  tickServer.child.send({ type: 'stop' });
  await new Promise((resolve) => tickServer.child.once('exit', resolve));
}
