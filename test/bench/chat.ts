// The global chat under load (issue 8's goal): N /grid sockets on one API process (default 5,000) while
// players post to the global channel at R messages a second (default 200), each message delivered to
// every socket (the sender's own as its echo). Measured: every delivery's latency, from the moment the
// sending client wrote `chat:global` to the moment the frame carrying the message reached a client
// (goal: p95 <= 100 ms), whether every message reached every socket, and the CPU of the server and of the
// clients. Also the floor: the time of one bare write system call per socket. The baseline,
// in the same run, is a bare Socket.IO server relaying the same messages to the same sockets with the
// same batches (api/src/chat/global-channel.ts) and nothing else: no database, validation, limits or blocks.
//
// Clients and server share the machine (test/bench/sockets.ts: thin clients in this process, the server
// in a child). Each message's content carries its send time, so a client reads latencies off the frames
// without decoding them.
//
//   node test/bench/chat.ts              (or: make bench-chat)
//   BENCH_SOCKETS=2000 BENCH_CHAT_RATE=200 BENCH_CHAT_SECONDS=10 node test/bench/chat.ts
import { setTimeout as sleep } from 'node:timers/promises';
import type WebSocket from 'ws';
import { connectAll, emit, startBenchServer } from './sockets.ts';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 5_000);
const RATE = Number(process.env.BENCH_CHAT_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_CHAT_SECONDS ?? 10);
/** Messages of the first second are not measured (the server's code is still being optimised). */
const WARMUP = RATE;
const GOAL_P95_MS = 100;
/** Each sender posts every 2 s: well under the chat limit of 10 per 10 s. */
const SENDERS = Math.min(SOCKETS, RATE * 2);

/** Latencies in 0.25 ms bins up to 60 s: ten million deliveries without keeping ten million numbers. */
const BIN_MS = 0.25;
class Histogram {
  readonly bins = new Uint32Array(Math.ceil(60_000 / BIN_MS) + 1);
  count = 0;
  add(ms: number) {
    this.bins[Math.min(this.bins.length - 1, Math.max(0, Math.floor(ms / BIN_MS)))]!++;
    this.count++;
  }
  percentile(p: number) {
    const rank = Math.ceil((p / 100) * this.count);
    let seen = 0;
    for (let i = 0; i < this.bins.length; i++) {
      seen += this.bins[i]!;
      if (seen >= rank) return (i + 1) * BIN_MS;
    }
    return Infinity;
  }
}

/** One socket in this many reads latencies (all count deliveries). */
const SAMPLE_EVERY = 10;
const MARK = Buffer.from('"content":"b|');
const BAR = '|'.charCodeAt(0);
const QUOTE = '"'.charCodeAt(0);

async function run(mode: 'api' | 'raw') {
  const server = await startBenchServer(mode);
  try {
    const { ids } = await server.ask<{ ids: string[] }>({ type: 'users', count: SOCKETS });
    const total = RATE * (SECONDS + 1);
    const delivered = new Uint32Array(total);
    const latencies = new Histogram();
    // A frame carries one message or several (one event, several arguments): each content is
    // `b|<send time>|<seq>`. Every socket counts what it got; one in ten (spread over the fan-out's
    // order) also reads which message and when it was sent, to keep the clients' share of the 2 cores small.
    let received = 0;
    const sampled = new Set(ids.filter((_, i) => i % SAMPLE_EVERY === 0));
    const onFrame = (frame: Buffer, id: string) => {
      const now = performance.now();
      const sample = sampled.has(id);
      for (let at = frame.indexOf(MARK); at >= 0; at = frame.indexOf(MARK, at + MARK.length)) {
        received++;
        if (!sample) continue;
        const timeEnd = frame.indexOf(BAR, at + MARK.length);
        const seqEnd = frame.indexOf(QUOTE, timeEnd);
        const sentAt = Number(frame.toString('latin1', at + MARK.length, timeEnd));
        const seq = Number(frame.toString('latin1', timeEnd + 1, seqEnd));
        delivered[seq]!++;
        if (seq >= WARMUP) latencies.add(now - sentAt);
      }
    };
    const { sockets } = await connectAll(server, mode, ids, onFrame);
    await sleep(2000);
    const floor =
      mode === 'raw' ? (await server.ask<{ micros: number }>({ type: 'floor', rounds: 5 })).micros : null;

    // Senders spread over the sockets (the fan-out visits sockets in the order they connected).
    const senders: WebSocket[] = Array.from(
      { length: SENDERS },
      (_, i) => sockets[Math.floor((i * sockets.length) / SENDERS)]!,
    );
    const cpuBefore = await server.ask<{ micros: number }>({ type: 'cpu' });
    const clientCpuBefore = process.cpuUsage();
    const started = performance.now();
    let seq = 0;
    while (seq < total) {
      const due = Math.min(total, Math.floor(((performance.now() - started) * RATE) / 1000));
      for (; seq < due; seq++)
        emit(senders[seq % SENDERS]!, 'chat:global', {
          message: `b|${performance.now().toFixed(2)}|${seq}`,
          tempId: `t${seq}`,
        });
      await sleep(1);
    }
    const sendSeconds = (performance.now() - started) / 1000;
    // Every message to every socket, or 30 s without progress.
    const expected = total * SOCKETS;
    let last = -1;
    let lastProgress = performance.now();
    for (;;) {
      const got = received;
      if (got >= expected) break;
      if (got !== last) [last, lastProgress] = [got, performance.now()];
      else if (performance.now() - lastProgress > 30_000) break;
      await sleep(100);
    }
    const drainSeconds = (performance.now() - started) / 1000 - sendSeconds;
    const cpuAfter = await server.ask<{ micros: number }>({ type: 'cpu' });
    const clientCpu = process.cpuUsage(clientCpuBefore);
    for (const socket of sockets) socket.close();
    return {
      latencies,
      complete: received / expected,
      // Each message exactly once at each sampled socket.
      exact: received === expected && delivered.every((n) => n === sampled.size),
      sendSeconds,
      drainSeconds,
      serverCpu: (cpuAfter.micros - cpuBefore.micros) / 1e6 / (sendSeconds + drainSeconds),
      clientCpu: (clientCpu.user + clientCpu.system) / 1e6 / (sendSeconds + drainSeconds),
      floor,
    };
  } finally {
    await server.stop();
  }
}

const fmt = (n: number) => n.toFixed(1);
const line = (label: string, r: Awaited<ReturnType<typeof run>>) =>
  `${label} delivery p50 ${fmt(r.latencies.percentile(50))} ms  p95 ${fmt(r.latencies.percentile(95))} ms  p99 ${fmt(
    r.latencies.percentile(99),
  )} ms   delivered ${(r.complete * 100).toFixed(2)} %   sent in ${fmt(r.sendSeconds)} s, last delivery ${fmt(
    r.drainSeconds,
  )} s later   CPU (cores): server ${r.serverCpu.toFixed(2)}, clients ${r.clientCpu.toFixed(2)}`;

console.log(
  `Global chat benchmark: ${SOCKETS} sockets, ${RATE} messages/s for ${SECONDS} s (after 1 s of warm-up) from ${SENDERS} players\n`,
);
const raw = await run('raw');
console.log(
  `one write per socket (the kernel's part of any broadcast): ${raw.floor!.toFixed(1)} µs, so a fan-out to ${SOCKETS} takes at least ${fmt(
    (raw.floor! * SOCKETS) / 1000,
  )} ms here`,
);
console.log(line('bare Socket.IO  ', raw));
const api = await run('api');
console.log(line('Exploit Grid API', api));
const p95 = api.latencies.percentile(95);
const met = p95 <= GOAL_P95_MS && api.exact;
console.log(
  `\ndelivery p95: ${fmt(p95)} ms (bare ${fmt(raw.latencies.percentile(95))} ms, ratio ${fmt(
    p95 / raw.latencies.percentile(95),
  )})   every message to every socket, once: ${api.exact ? 'yes' : 'NO'}   goal: p95 <= ${GOAL_P95_MS} ms   ${
    met ? 'MET' : 'NOT MET'
  }`,
);
process.exitCode = met ? 0 : 1;
