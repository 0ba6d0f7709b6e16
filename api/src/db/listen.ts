import pg from 'pg';
import type { Logger } from '../logger.ts';

/**
 * A connection of its own that LISTENs on PostgreSQL channels (NOTIFY from other processes: the staff CLI,
 * other API replicas) and reconnects when the connection drops. Notifications sent while it was away are
 * lost, so `onReconnect` lets the caller catch up from the tables.
 */
export class PgListener {
  readonly #url: string;
  readonly #log: Logger;
  readonly #handlers = new Map<string, (payload: string) => void>();
  readonly #onReconnect: () => void;
  #client: pg.Client | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: { url: string; logger: Logger; onReconnect?: () => void }) {
    this.#url = options.url;
    this.#log = options.logger.child({ component: 'pg-listen' });
    this.#onReconnect = options.onReconnect ?? (() => undefined);
  }

  /** Registers a channel's handler (before start()). */
  on(channel: string, handler: (payload: string) => void): this {
    this.#handlers.set(channel, handler);
    return this;
  }

  /** Connects and LISTENs; a first failure is thrown (the API does not start without its database). */
  async start(): Promise<void> {
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    if (client) await endWithin(client, END_TIMEOUT_MS);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url });
    client.on('notification', (message) => {
      const handler = this.#handlers.get(message.channel);
      if (!handler) return;
      try {
        handler(message.payload ?? '');
      } catch (err) {
        this.#log.error({ err, channel: message.channel }, 'A notification handler failed');
      }
    });
    client.on('error', (err) => {
      this.#log.warn({ err }, 'Lost the LISTEN connection; reconnecting');
      this.#reconnectSoon(client);
    });
    client.on('end', () => this.#reconnectSoon(client));
    await client.connect();
    try {
      for (const channel of this.#handlers.keys())
        await client.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
  }

  /** The connection dropped: connect again in a second (and again, until it works or close()). */
  #reconnectSoon(client: pg.Client): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = null;
    void client.end().catch(() => undefined);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (this.#closed) return;
      this.#connect().then(
        () => {
          this.#log.info('LISTEN connection back');
          this.#onReconnect();
        },
        (err: unknown) => {
          this.#log.warn({ err }, 'Could not reconnect the LISTEN connection; trying again');
          this.#schedule();
        },
      );
    }, 1000);
    this.#retry.unref();
  }
}

/** How long close() waits for the server to see the LISTEN connection end. */
const END_TIMEOUT_MS = 2000;

/**
 * Ends a client, waiting at most `ms`: `end()` on a connection the server has just cut (a database dropped or
 * restarted, the moment before the client heard of it) may never settle, and shutdown must not hang on it.
 */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    client.end().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
