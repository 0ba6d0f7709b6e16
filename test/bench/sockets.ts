// What the socket benchmarks (grid.ts, chat.ts) share: the server child (grid-server.ts, the API or a
// bare Socket.IO baseline) driven over IPC, and thin /grid clients. A thin client is a WebSocket speaking
// the Engine.IO 4 / Socket.IO 5 wire protocol (connect to /grid with its token, answer pings, hand each
// event frame to the caller undecoded), so that thousands of them in one process measure the server's
// fan-out rather than the clients' decoding.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { Command } from './grid-server.ts';

export interface BenchServer {
  child: ChildProcess;
  url: string;
  ask<T>(command: Command): Promise<T>;
  stop(): Promise<void>;
}

/** Forks grid-server.ts as the API (`api`) or the bare Socket.IO baseline (`raw`) and waits until it listens. */
export async function startBenchServer(mode: 'api' | 'raw'): Promise<BenchServer> {
  const child = fork(path.join(import.meta.dirname, 'grid-server.ts'), [mode], {
    execArgv: [
      '--expose-gc',
      '--max-old-space-size=4096',
      // BENCH_CPU_PROFILE_DIR: where the API's CPU profile goes (open it in Chrome's DevTools).
      ...(process.env.BENCH_CPU_PROFILE_DIR && mode === 'api'
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR}`]
        : []),
    ],
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
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

/** The prefix of every event frame on /grid: `42/grid,["<event>",...]`. */
export const EVENT_FRAME = '42/grid,';

/**
 * One player's /grid connection on the wire: `40/grid,{auth}` to connect, `3` for each ping `2`; every
 * event frame goes to `onFrame` as the bytes that arrived.
 */
export function openThinSocket(
  url: string,
  id: string,
  onFrame: (frame: Buffer, id: string) => void,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(
      `${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket&userId=${id}`,
      { perMessageDeflate: false },
    );
    ws.on('message', (data: Buffer) => {
      // Event frames go on as bytes (a batch of chat messages is kilobytes, and thousands of sockets get it).
      if (
        data.length > EVENT_FRAME.length &&
        data.toString('latin1', 0, EVENT_FRAME.length) === EVENT_FRAME
      ) {
        onFrame(data, id);
        return;
      }
      const frame = data.toString();
      if (frame === '2') ws.send('3');
      else if (frame.startsWith('0')) ws.send(`40/grid,${JSON.stringify({ token: `bench:${id}` })}`);
      else if (frame.startsWith('40/grid,')) resolve(ws);
      else if (frame.startsWith('44/grid,')) reject(new Error(`refused: ${frame}`));
    });
    ws.once('error', reject);
  });
}

/** Opens one connection per user, `batch` handshakes at a time. */
export async function openSockets(
  url: string,
  ids: string[],
  onFrame: (frame: Buffer, id: string) => void,
  batch = 250,
): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < ids.length; i += batch)
    sockets.push(
      ...(await Promise.all(ids.slice(i, i + batch).map((id) => openThinSocket(url, id, onFrame)))),
    );
  return sockets;
}

/**
 * Connects one thin socket per user. To the API, with presence announcements off until every player is on
 * the globe: each new player is otherwise announced to everyone already there (N²/2 frames, a join storm
 * that is not what the benchmarks measure). Answers the sockets and how long opening them took (s).
 */
export async function connectAll(
  server: BenchServer,
  mode: 'api' | 'raw',
  ids: string[],
  onFrame: (frame: Buffer, id: string) => void,
): Promise<{ sockets: WebSocket[]; connectSeconds: number }> {
  if (mode === 'api') await server.ask({ type: 'announce', on: false });
  const started = performance.now();
  const sockets = await openSockets(server.url, ids, onFrame);
  const connectSeconds = (performance.now() - started) / 1000;
  if (mode === 'api') {
    // The API loads each player from the database before placing them.
    for (let i = 0; ; i++) {
      const { online } = await server.ask<{ online?: number }>({ type: 'heap' });
      if (online === ids.length) break;
      if (i > 600) throw new Error(`${online} players online, expected ${ids.length}`);
      await sleep(200);
    }
    await server.ask({ type: 'announce', on: true });
  }
  return { sockets, connectSeconds };
}

/** Sends a client event, as socket.io-client would. */
export function emit(ws: WebSocket, event: string, payload: unknown): void {
  ws.send(`${EVENT_FRAME}${JSON.stringify([event, payload])}`);
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
export const median = (values: number[]) => percentile(values, 50);
