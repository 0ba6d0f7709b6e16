import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { io as connect, type Socket } from 'socket.io-client';
import { GRID_NAMESPACE, type GridInitialState } from '../contracts/index.ts';
import type { TestAccount } from './accounts.ts';
import { waitFor } from './boxes.ts';

/** A /grid client of the socket tests, recording every event it receives. */
export interface GridClient {
  socket: Socket;
  /** Every event received, one entry per argument. */
  events: [string, unknown][];
  /** The first recorded `event` that `accept` takes (waiting for it), removed from the record. */
  next<T>(event: string, accept?: (payload: T) => boolean, timeoutMs?: number): Promise<T>;
  /** No `event` arrives within `forMs`. */
  none(event: string, forMs: number): Promise<void>;
  state(): Promise<GridInitialState>;
}

/** Connects `user` to /grid at `baseUrl` as the portal does and waits for `readyForState`; `sockets` keeps it for closing. */
export async function joinGrid(baseUrl: string, user: TestAccount, sockets: Socket[]): Promise<GridClient> {
  const socket = connect(`${baseUrl}${GRID_NAMESPACE}`, {
    transports: ['websocket'],
    auth: { token: user.token },
    query: { userId: user.id },
    reconnection: false,
  });
  sockets.push(socket);
  const events: [string, unknown][] = [];
  // An event with several arguments (global chat messages that travelled together) is one entry each.
  socket.onAny((event: string, ...payloads: unknown[]) => {
    for (const payload of payloads.length > 0 ? payloads : [undefined]) events.push([event, payload]);
  });
  const client: GridClient = {
    socket,
    events,
    async next<T>(event: string, accept: (payload: T) => boolean = () => true, timeoutMs = 5000) {
      const found = await waitFor(
        () => events.find(([e, p]) => e === event && accept(p as T)),
        (hit) => hit !== undefined,
        { timeoutMs, what: `${event} for ${user.handle}` },
      );
      events.splice(events.indexOf(found!), 1);
      return found![1] as T;
    },
    async none(event: string, forMs: number) {
      await sleep(forMs);
      expect(events.filter(([e]) => e === event).map(([, p]) => p)).to.deep.equal([]);
    },
    async state() {
      socket.emit('getInitialState');
      return client.next<GridInitialState>('initialState');
    },
  };
  await client.next('readyForState');
  return client;
}
