// The Grid under load (issue 7's goals), each against a baseline in the same run:
// - N /grid sockets on one API process (default 10,000): p95 delivery of a presence broadcast and of an
//   attack broadcast to all of them (goal <= 100 ms), and server heap per idle socket (goal <= 20 KB);
//   the baseline is a bare Socket.IO server with the same namespace and transport, and the floor is one
//   bare write system call per socket (test/bench/grid-server.ts, writeFloor).
// - A matchmaking tick with 10,000 queued players (goal <= 100 ms); the baseline is reading the
//   same queue rows alone.
// The clients run in this process, the server in a child, on the same machine (2 cores shared). They
// are thin: each is a WebSocket speaking the Engine.IO 4 / Socket.IO 5 wire protocol (connect to /grid
// with its token, answer pings, note when an event's frame arrives) without decoding payloads, so that
// what is measured is the server's fan-out, not 10,000 full clients in one event loop.
//
//   node test/bench/grid.ts              (or: make bench-grid)
//   BENCH_SOCKETS=2000 BENCH_QUEUED=10000 BENCH_ROUNDS=5 node test/bench/grid.ts
import { setTimeout as sleep } from 'node:timers/promises';
import type WebSocket from 'ws';
import {
  connectAll,
  median,
  percentile,
  startBenchServer as startServer,
  type BenchServer as Server,
} from './sockets.ts';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000);
const QUEUED = Number(process.env.BENCH_QUEUED ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const GOALS = { broadcastP95Ms: 100, heapPerSocketKB: 20, tickMs: 100 };

/** Where frames of the event being measured are noted (one broadcast at a time). */
let watching: { prefix: string; arrivals: number[] } | null = null;
const noteArrival = (frame: Buffer) => {
  if (watching && frame.toString('latin1', 0, watching.prefix.length) === watching.prefix)
    watching.arrivals.push(Date.now());
};

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
    const { sockets, connectSeconds } = await connectAll(server, mode, ids, noteArrival);
    // A quiet moment, then the heap.
    await sleep(2000);
    const after = await server.ask<{ bytes: number }>({ type: 'heap' });
    const perSocketKB = (after.bytes - before) / SOCKETS / 1024;
    const floor =
      mode === 'raw' ? (await server.ask<{ micros: number }>({ type: 'floor', rounds: 5 })).micros : null;
    const player = await measureBroadcasts(server, sockets, 'playerUpdated', 'player');
    const attack =
      mode === 'api' ? await measureBroadcasts(server, sockets, 'attackStarted', 'attack') : null;
    for (const socket of sockets) socket.close();
    return { connectSeconds, perSocketKB, player, attack, floor };
  } finally {
    await server.stop();
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
console.log(
  `one write per socket (the kernel's part of any broadcast): ${fmt(raw.floor!)} µs, so a broadcast to ${SOCKETS} takes at least ${fmt(
    (raw.floor! * SOCKETS) / 1000,
  )} ms here`,
);
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
  await tickServer.stop();
}
