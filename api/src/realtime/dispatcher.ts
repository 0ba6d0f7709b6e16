import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Socket } from 'socket.io';
import type { z } from 'zod';
import {
  GRID_MESSAGES,
  type EventAnswer,
  type GridClientToServerEvents,
  type GridServerToClientEvents,
} from '../contracts/index.ts';
import { HttpError } from '../http/errors.ts';
import { NUL_MESSAGE, containsNul } from '../http/nul.ts';
import { KeyedLock } from '../keyed-lock.ts';
import type { Logger } from '../logger.ts';
import type { GridNamespace, SocketData } from './io.ts';

/** A client's acknowledgement callback. */
export type Ack = (answer: EventAnswer) => void;

/** Who sent a client event: the socket and its user. */
export interface From {
  socket: Socket<GridClientToServerEvents, GridServerToClientEvents, object, SocketData>;
  userId: string;
}

/** A rate limit on client events (per user), and what a client over it is told. */
export interface EventLimit {
  limiter: RateLimiterMemory;
  message: string;
}

/** How an event's failure reaches its sender when they passed no acknowledgement callback. */
export type FailureReport = (from: From, raw: unknown, message: string) => void;

export interface HandlerOptions {
  /** Limits on top of the namespace's own (chat sends: the chat limiter). */
  limits?: EventLimit[];
  /** Not counted against any limit (logging out must work for a client that is over one). */
  unlimited?: boolean;
  /** One at a time per user, across all their sockets, in the order they arrived (chat sends). */
  ordered?: boolean;
  /** How a failure is reported (default: `error {message}`). */
  fail?: FailureReport;
}

interface Handler {
  schema: z.ZodType | null;
  fn: (from: From, payload: unknown) => Promise<void>;
  limits: readonly EventLimit[];
  ordered: boolean;
  fail: FailureReport;
}

/** Per user 10 s windows: `points` events, then `message`. */
export function eventLimit(points: number, message: string): EventLimit {
  return { limiter: new RateLimiterMemory({ points, duration: 10 }), message };
}

const reportError: FailureReport = ({ socket }, _raw, message) => socket.emit('error', { message });

/**
 * The socket layer of the /grid namespace: each domain (grid/socket.ts, chat/socket.ts) registers its client
 * events here, and every event goes the same way: rate-limited per user (the namespace's limit and the
 * event's own), no NUL, its payload validated by its schema, the handler run, and the outcome told by the
 * acknowledgement callback when the client passed one ({ok} or {ok: false, message}), else a failure by the
 * event's report. Sockets hold one dispatcher between them, not a closure per event (memory per idle socket
 * is a goal, docs/benchmarks.md). Authentication and rooms are io.ts's.
 */
export class EventDispatcher {
  readonly #handlers = new Map<string, Handler>();
  readonly #limit: EventLimit;
  readonly #order = new KeyedLock();
  readonly #log: Logger;

  constructor(ns: GridNamespace, options: { logger: Logger; eventsPer10s?: number }) {
    this.#log = options.logger.child({ component: 'grid' });
    this.#limit = eventLimit(options.eventsPer10s ?? 40, GRID_MESSAGES.rateLimited);
    ns.on('connection', (socket) => {
      const from: From = { socket, userId: socket.data.userId };
      socket.onAny((event: string, ...args: unknown[]) => {
        const handler = this.#handlers.get(event);
        if (!handler) return;
        const ack = typeof args.at(-1) === 'function' ? (args.pop() as Ack) : undefined;
        const raw = args[0];
        if (handler.ordered)
          void this.#order.run(from.userId, () => this.#run(from, event, handler, raw, ack));
        else void this.#run(from, event, handler, raw, ack);
      });
    });
  }

  /** Registers a client event (once per event name). */
  on<S extends z.ZodType>(
    event: keyof GridClientToServerEvents,
    schema: S | null,
    fn: (from: From, payload: z.output<S>) => Promise<void>,
    options: HandlerOptions = {},
  ): void {
    if (this.#handlers.has(event)) throw new Error(`The grid event ${event} has a handler already`);
    this.#handlers.set(event, {
      schema,
      fn: fn as Handler['fn'],
      limits: options.unlimited ? [] : [this.#limit, ...(options.limits ?? [])],
      ordered: options.ordered ?? false,
      fail: options.fail ?? reportError,
    });
  }

  async #run(from: From, event: string, handler: Handler, raw: unknown, ack?: Ack): Promise<void> {
    const fail = (message: string) => (ack ? ack({ ok: false, message }) : handler.fail(from, raw, message));
    for (const { limiter, message } of handler.limits) {
      try {
        await limiter.consume(from.userId);
      } catch (err) {
        if (err instanceof RateLimiterRes) fail(message);
        else this.#log.error({ err }, 'Rate limiter failed');
        return;
      }
    }
    // No NUL reaches the database (PostgreSQL text cannot hold one): said, not a failure.
    if (containsNul(raw)) {
      fail(NUL_MESSAGE);
      return;
    }
    let payload: unknown = undefined;
    if (handler.schema) {
      const parsed = handler.schema.safeParse(raw);
      if (!parsed.success) {
        fail(parsed.error.issues[0]?.message ?? GRID_MESSAGES.invalid);
        return;
      }
      payload = parsed.data;
    }
    try {
      await handler.fn(from, payload);
      ack?.({ ok: true });
    } catch (err) {
      if (err instanceof HttpError && err.statusCode < 500) fail(err.message);
      else {
        this.#log.error({ err, event }, 'Grid event failed');
        fail('Something went wrong. Please try again.');
      }
    }
  }
}
