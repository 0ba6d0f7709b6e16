import type { SocketHandshake } from '@exploit-grid/api/contracts';
import type { Socket } from 'socket.io-client';
import type { RealtimeNamespace, SocketFactory } from '../realtime/sockets.ts';

type Listener = (...args: unknown[]) => void;

/** Stands in for a socket.io-client Socket: records what the portal emits; the test plays the server. */
export class FakeSocket {
  readonly namespace: RealtimeNamespace;
  readonly handshake: SocketHandshake;
  readonly emitted: { event: string; args: unknown[]; acknowledged?: boolean }[] = [];
  /** Everything that happened to this socket, in order: `emit:<event>` and `disconnect`. */
  readonly history: string[] = [];
  closed = false;
  private readonly listeners = new Map<string, Listener[]>();

  constructor(namespace: RealtimeNamespace, handshake: SocketHandshake) {
    this.namespace = namespace;
    this.handshake = handshake;
  }

  on(event: string, listener: Listener) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  emit(event: string, ...args: unknown[]) {
    this.emitted.push({ event, args });
    this.history.push(`emit:${event}`);
    return this;
  }

  /** The first argument of every `event` the portal emitted, in order. */
  payloads(event: string): unknown[] {
    return this.emitted.filter((e) => e.event === event).map((e) => e.args[0]);
  }

  /** The arguments of every `event` the portal emitted, in order. */
  argsOf(event: string): unknown[][] {
    return this.emitted.filter((e) => e.event === event).map((e) => e.args);
  }

  /** Answers, as the server would, each `event` emitted with an acknowledgement callback and not answered yet. */
  acknowledge(event: string, answer: unknown) {
    for (const emitted of this.emitted) {
      const callback = emitted.args.at(-1);
      if (emitted.event !== event || emitted.acknowledged || typeof callback !== 'function') continue;
      emitted.acknowledged = true;
      (callback as (answer: unknown) => void)(answer);
    }
  }

  removeAllListeners() {
    this.listeners.clear();
    return this;
  }

  disconnect() {
    this.closed = true;
    this.history.push('disconnect');
    return this;
  }

  /** The server sends `event` (including `connect`, `disconnect` and `connect_error`). */
  receive(event: string, ...args: unknown[]) {
    for (const listener of this.listeners.get(event) ?? []) listener(...args);
  }
}

/** A SocketFactory that hands out FakeSockets and keeps them for the test to drive. */
export function fakeSockets() {
  const sockets: FakeSocket[] = [];
  const factory: SocketFactory = (namespace, handshake) => {
    const socket = new FakeSocket(namespace, handshake);
    sockets.push(socket);
    return socket as unknown as Socket;
  };
  return {
    factory,
    sockets,
    /** The sockets of a namespace that are still open. */
    open: (namespace: RealtimeNamespace) => sockets.filter((s) => s.namespace === namespace && !s.closed),
  };
}
