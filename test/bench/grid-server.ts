// The server side of `make bench-grid` (test/bench/grid.ts forks it with --expose-gc): either the whole
// API (`api`: startPlatform as `make run` does, on an embedded PostgreSQL of its own) or, as the
// baseline, a bare Socket.IO server with the same /grid namespace and transport and nothing else
// (`raw`, which also relays the global chat as test/bench/chat.ts needs). It answers the parent over
// IPC: users to connect as, heap after a full GC, broadcasts (the time it sent them), its CPU time, and,
// for the API, a matchmaking tick over N queued players.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Server } from 'socket.io';
import { loadConfig } from '../../api/src/config.ts';
import { createLogger } from '../../api/src/logger.ts';
import { startPlatform, type Platform } from '../../api/src/server.ts';
import { Sql } from '../../api/src/db/sql.ts';
import { Matchmaking } from '../../api/src/grid/matchmaking.ts';
import { GlobalChannel } from '../../api/src/chat/global-channel.ts';
import type { GridNamespace } from '../../api/src/realtime/io.ts';
import type { Attack, GridPlayer } from '../../api/src/contracts/index.ts';

export type Command =
  | { type: 'users'; count: number }
  | { type: 'heap' }
  | { type: 'broadcast'; kind: 'player' | 'attack' }
  | { type: 'tick'; queued: number; rounds: number }
  | { type: 'announce'; on: boolean }
  | { type: 'cpu' }
  | { type: 'floor'; rounds: number }
  | { type: 'stop' };

const mode = process.argv[2] === 'raw' ? 'raw' : 'api';
const reply = (message: unknown) => process.send!(message);
const gc = () => (globalThis as { gc?: () => void }).gc?.();
/** This process's CPU time so far (user and system), in microseconds. */
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return { type: 'cpu', micros: user + system };
};

const samplePlayer = (id: string, mmr: number) => ({
  id,
  handle: `bench_${id.slice(0, 8)}`,
  mmr,
  country: 'Germany',
  countryCode: 'DE',
  latitude: 51,
  longitude: 9,
});

if (mode === 'raw') {
  const httpServer = createServer();
  const io = new Server(httpServer, { path: '/socket.io', transports: ['websocket'], serveClient: false });
  const grid = io.of('/grid');
  grid.use((socket, next) => {
    void socket.join(`user:${String(socket.handshake.query.userId)}`);
    next();
  });
  // The global chat's path (batches, one frame per socket each) and nothing else: no database,
  // validation, limits or blocks.
  const channel = new GlobalChannel(grid as unknown as GridNamespace, {
    storeGlobal: async (posts) =>
      posts.map((post) => ({
        ok: true,
        value: {
          message: {
            id: randomUUID(),
            senderId: post.senderId,
            sender: { id: post.senderId, handle: `bench_${post.senderId.slice(0, 8)}` },
            content: post.text,
            timestamp: new Date().toISOString(),
          },
          blockers: [],
        },
      })),
  });
  grid.on('connection', (socket) => {
    const userId = String(socket.handshake.query.userId);
    socket.on('chat:global', ({ message, tempId }: { message: string; tempId: string }) => {
      void channel.post(userId, message, tempId);
    });
  });
  httpServer.listen(0, '127.0.0.1', () => {
    const { port } = httpServer.address() as { port: number };
    reply({ type: 'ready', url: `http://127.0.0.1:${port}` });
  });
  process.on('message', (command: Command) => {
    if (command.type === 'users')
      reply({
        type: 'users',
        ids: Array.from(
          { length: command.count },
          (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        ),
      });
    else if (command.type === 'heap') {
      gc();
      reply({ type: 'heap', bytes: process.memoryUsage().heapUsed });
    } else if (command.type === 'broadcast') {
      const sentAt = Date.now();
      const started = performance.now();
      grid.emit('playerUpdated', samplePlayer('00000000-0000-4000-8000-000000000000', sentAt % 3000));
      reply({ type: 'broadcast', sentAt, emitMs: performance.now() - started });
    } else if (command.type === 'cpu') {
      reply(cpu());
    } else if (command.type === 'floor') {
      void writeFloor(grid, command.rounds).then((micros) => reply({ type: 'floor', micros }));
    } else if (command.type === 'stop') {
      io.close();
      process.exit(0);
    }
  });
} else {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-bench-grid-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ORCHESTRATOR: 'none',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    MATCH_TICK_MS: '60000',
  });
  const logger = createLogger(config);
  // Every socket authenticates as itself without a JWT: N sessions would otherwise need N logins.
  // The handshake's token check is not what this measures (broadcasts and idle sockets are).
  const platform: Platform = await startPlatform(config, logger, {
    verifyToken: (token) =>
      token.startsWith('bench:') ? { userId: token.slice(6), sessionId: token.slice(6) } : null,
  });
  const sql = () => new Sql(platform.orm.em.fork() as EntityManager);
  const muted: ((player: GridPlayer) => void)[] = [];
  const { port } = platform.httpServer.address() as { port: number };
  reply({ type: 'ready', url: `http://127.0.0.1:${port}` });

  process.on('message', (command: Command) => {
    void (async () => {
      if (command.type === 'users') {
        const rows = await sql().all<{ id: string }>(
          `insert into users (id, handle, email, mmr)
           select gen_random_uuid(), 'bench_' || i, 'bench' || i || '@example.test', 800 + (i * 7919) % 1200
             from generate_series(1, ?) i
           on conflict do nothing returning id`,
          [command.count],
        );
        reply({ type: 'users', ids: rows.map((r) => r.id) });
      } else if (command.type === 'heap') {
        gc();
        reply({ type: 'heap', bytes: process.memoryUsage().heapUsed, online: platform.grid.presence.size });
      } else if (command.type === 'broadcast') {
        // Through the paths the application uses: a player's MMR changes (presence), an attack starts.
        const [someone, other] = platform.grid.presence.players();
        const attack = command.kind === 'attack' ? await benchAttack(sql(), someone!, other!) : null;
        const sentAt = Date.now();
        const started = performance.now();
        if (command.kind === 'player')
          platform.grid.presence.update({
            id: someone!.id,
            handle: someone!.handle,
            mmr: sentAt % 3000,
            country: null,
          });
        else platform.attacks.events.emit('attackStarted', attack!);
        reply({ type: 'broadcast', sentAt, emitMs: performance.now() - started });
      } else if (command.type === 'announce') {
        // Opening N sockets announces each new player to everyone before it: N²/2 frames that are
        // not what this measures (docs/benchmarks.md). The bench turns the announcements off while
        // it connects, then on again.
        if (command.on)
          for (const listener of muted.splice(0)) platform.grid.presence.events.on('playerUpdated', listener);
        else {
          muted.push(...platform.grid.presence.events.listeners('playerUpdated'));
          platform.grid.presence.events.removeAllListeners('playerUpdated');
        }
        reply({ type: 'announce' });
      } else if (command.type === 'cpu') {
        reply(cpu());
      } else if (command.type === 'tick') {
        reply({ type: 'tick', ms: await benchTick(platform, sql, command.queued, command.rounds) });
      } else if (command.type === 'stop') {
        await platform.close();
        await rm(dataDir, { recursive: true, force: true });
        process.exit(0);
      }
    })().catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
  });
}

/**
 * The least a broadcast can cost here: one write system call per connection, a 3-byte WebSocket frame
 * (Engine.IO's noop, which clients ignore) written straight to each TCP socket under Socket.IO. Answers
 * the median over `rounds` of the time per socket, in microseconds.
 */
async function writeFloor(grid: ReturnType<Server['of']>, rounds: number): Promise<number> {
  const noop = Buffer.from([0x81, 0x01, 0x36]);
  type Wire = { conn: { transport: { socket?: { _socket?: { write(b: Buffer): boolean } } } } };
  const wires = [...grid.sockets.values()].flatMap((socket) => {
    const tcp = (socket as unknown as Wire).conn.transport.socket?._socket;
    return tcp ? [tcp] : [];
  });
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    for (const tcp of wires) tcp.write(noop);
    times.push(((performance.now() - started) * 1000) / wires.length);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** An attack row between two online players (the defender is notified of it, as in a real start). */
async function benchAttack(sql: Sql, a: { id: string; handle: string }, b: { id: string; handle: string }) {
  const row = (await sql.one<{ id: string; created_at: string; ends_at: string }>(
    `insert into attacks (attacker_id, target_id, cost_cents, ends_at, status, ended_at)
     values (?, ?, 0, now(), 'CANCELLED', now()) returning id, created_at, ends_at`,
    [a.id, b.id],
  ))!;
  const attack: Attack = {
    id: row.id,
    attacker: { id: a.id, handle: a.handle },
    target: { id: b.id, handle: b.handle },
    box: {
      id: crypto.randomUUID(),
      hostname: 'eg-bench',
      ip: '10.66.0.9',
      status: 'RUNNING',
      openPorts: { '22': 'ssh' },
    },
    outcome: 'PENDING',
    winnerId: null,
    loserId: null,
    mmrChange: null,
    rated: true,
    services: [],
    servicesUp: true,
    createdAt: new Date(row.created_at).toISOString(),
    endsAt: new Date(row.ends_at).toISOString(),
    endedAt: null,
  };
  return attack;
}

/**
 * `queued` players with running boxes in the queue (waits spread over two minutes), then one tick of a
 * Matchmaking of its own (everyone on the VPN and online); repeated `rounds` times. Answers each tick's
 * time and a baseline: reading the same queue rows alone.
 */
async function benchTick(platform: Platform, sql: () => Sql, queued: number, rounds: number) {
  await platform.boxes.stop(); // the box loop must not touch the rows made here
  await sql().run(
    `insert into users (id, handle, email, mmr, free_credits_cents)
     select gen_random_uuid(), 'queue_' || i, 'queue' || i || '@example.test', 600 + (i * 7919) % 1800, 10000
       from generate_series(1, ?) i on conflict do nothing`,
    [queued],
  );
  await sql().run(
    `insert into boxes (user_id, slot, hostname, status, desired_power, ssh_password_enc, session_started_at)
     select id, 100000 + row_number() over (), 'q-' || substr(id::text, 1, 8) || row_number() over (), 'RUNNING', true, 'x', now()
       from users where handle like 'queue\\_%' on conflict do nothing`,
  );
  const matchmaking = new Matchmaking({
    orm: platform.orm,
    // Whether each can defend is asked of the database, as in production.
    boxes: { whoCanRunFor: (ids, seconds) => platform.boxes.whoCanRunFor(ids, seconds) },
    vpn: { isConnected: () => true },
    attackSeconds: 30 * 60,
    attacks: platform.attacks,
    logger: createLogger(loadConfig({ LOG_LEVEL: 'warn', LOG_FORMAT: 'json' })),
    isOnline: () => true,
    tickMs: 60_000,
    proposalMs: 30_000,
    noMatchAfterMs: 120_000,
  });
  const ticks: number[] = [];
  const reads: number[] = [];
  for (let round = 0; round < rounds; round++) {
    await sql().run(`delete from match_proposals; delete from match_queue`);
    await sql().run(
      `insert into match_queue (user_id, mmr, joined_at)
       select u.id, u.mmr, now() - make_interval(secs => random() * 120)
         from users u where u.handle like 'queue\\_%'`,
    );
    await sql().run('analyze match_queue');
    let started = performance.now();
    await sql().all('select user_id, mmr, joined_at from match_queue');
    reads.push(performance.now() - started);
    started = performance.now();
    await matchmaking.tick();
    ticks.push(performance.now() - started);
  }
  const proposals = await sql().one<{ count: number }>(`select count(*)::int as count from match_proposals`);
  return { ticks, reads, proposals: proposals?.count ?? 0 };
}
