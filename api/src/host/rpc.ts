import type { Logger } from '../logger.ts';
import { z } from 'zod';

/**
 * Calls between the privileged host process and the unprivileged API over the IPC channel of
 * a child process (`serialization: 'advanced'`: Dates survive). Both ends call and answer;
 * each end validates what it is asked with a schema per method, and what it is answered with
 * the method's result schema: the other side is not trusted to keep to the protocol
 * (docs/architecture.md, "Privileges").
 */

/** The end of an IPC channel: `process` in the child, the ChildProcess in the parent. */
export interface IpcPort {
  send?(message: unknown, callback?: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'disconnect', listener: () => void): unknown;
  readonly connected?: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySchema = z.ZodType<any>;

/** A method one side offers: its arguments (a tuple) and its result. */
export interface MethodSchema<A extends AnySchema = AnySchema, R extends AnySchema = AnySchema> {
  args: A;
  result: R;
}
export type Methods = Record<string, MethodSchema>;
export type EventSchemas = Record<string, AnySchema>;

export const method = <A extends AnySchema, R extends AnySchema>(args: A, result: R): MethodSchema<A, R> => ({
  args,
  result,
});

type AsArgs<T> = T extends readonly unknown[] ? T : never;
type Handler<M extends MethodSchema> = (
  ...args: AsArgs<z.output<M['args']>>
) => Promise<z.input<M['result']>>;
export type Handlers<M extends Methods> = { [K in keyof M]: Handler<M[K]> };

const envelope = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('call'),
    id: z.number().int(),
    method: z.string().max(64),
    args: z.array(z.unknown()),
  }),
  z.object({
    kind: z.literal('result'),
    id: z.number().int(),
    ok: z.boolean(),
    value: z.unknown().optional(),
    error: z.object({ name: z.string(), message: z.string() }).optional(),
  }),
  z.object({ kind: z.literal('event'), name: z.string().max(64), args: z.array(z.unknown()) }),
]);

/** An error the other side answered with (its name and message; no stack crosses over). */
export class RemoteError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** Errors whose kind callers look at (the runtime throws RangeError when the arena is full). */
const REBUILT: Record<string, new (message: string) => Error> = { RangeError, TypeError };

/**
 * One side of the channel: `Mine` are the methods it serves and `Theirs` those it calls;
 * `MyEvents` it emits, `TheirEvents` it hears.
 */
export class RpcPeer<
  Mine extends Methods,
  Theirs extends Methods,
  MyEvents extends EventSchemas,
  TheirEvents extends EventSchemas,
> {
  readonly #port: IpcPort;
  readonly #mine: Mine;
  readonly #theirs: Theirs;
  readonly #theirEvents: TheirEvents;
  readonly #log: Logger;
  readonly #pending = new Map<
    number,
    { method: string; resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  #handlers: Partial<Handlers<Mine>> = {};
  readonly #listeners = new Map<string, ((...args: never[]) => void)[]>();
  #nextId = 1;
  #closed: Error | null = null;

  constructor(options: {
    port: IpcPort;
    serves: Mine;
    calls: Theirs;
    emits: MyEvents;
    hears: TheirEvents;
    logger: Logger;
  }) {
    this.#port = options.port;
    this.#mine = options.serves;
    this.#theirs = options.calls;
    this.#theirEvents = options.hears;
    this.#log = options.logger;
    this.#port.on('message', this.#onMessage);
    this.#port.on('disconnect', this.#onDisconnect);
  }

  /** Serves (some of) this side's methods; a call to one not served answers an error. */
  serve(handlers: Partial<Handlers<Mine>>): void {
    this.#handlers = { ...this.#handlers, ...handlers };
  }

  call<K extends keyof Theirs & string>(
    name: K,
    ...args: AsArgs<z.input<Theirs[K]['args']>>
  ): Promise<z.output<Theirs[K]['result']>> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { method: name, resolve: resolve as (value: unknown) => void, reject });
      this.#send({ kind: 'call', id, method: name, args }, (error) => {
        if (!error) return;
        this.#pending.delete(id);
        reject(error);
      });
    });
  }

  emit<K extends keyof MyEvents & string>(name: K, ...args: AsArgs<z.input<MyEvents[K]>>): void {
    if (this.#closed) return;
    this.#send({ kind: 'event', name, args }, (error) => {
      if (error) this.#log.warn({ err: error, event: name }, 'Could not send an event to the other process');
    });
  }

  on<K extends keyof TheirEvents & string>(
    name: K,
    listener: (...args: AsArgs<z.output<TheirEvents[K]>>) => void,
  ): void {
    const list = this.#listeners.get(name) ?? [];
    list.push(listener as (...args: never[]) => void);
    this.#listeners.set(name, list);
  }

  /** Stops listening; calls in flight fail. */
  close(reason = 'The channel to the other process is closed.'): void {
    if (this.#closed) return;
    this.#closed = new Error(reason);
    this.#port.off('message', this.#onMessage);
    this.#port.off('disconnect', this.#onDisconnect);
    for (const { reject } of this.#pending.values()) reject(this.#closed);
    this.#pending.clear();
  }

  #send(message: unknown, callback: (error: Error | null) => void): void {
    if (!this.#port.send || this.#port.connected === false) {
      callback(new Error('The other process went away.'));
      return;
    }
    try {
      this.#port.send(message, callback);
    } catch (error) {
      callback(error as Error);
    }
  }

  readonly #onDisconnect = () => this.close('The other process went away.');

  readonly #onMessage = (raw: unknown) => {
    const parsed = envelope.safeParse(raw);
    if (!parsed.success) {
      this.#log.warn('Ignored a malformed message from the other process');
      return;
    }
    const message = parsed.data;
    switch (message.kind) {
      case 'call':
        void this.#answer(message.id, message.method, message.args);
        return;
      case 'result': {
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        this.#pending.delete(message.id);
        if (!message.ok) {
          const { name = 'Error', message: text = 'The other process failed.' } = message.error ?? {};
          const Rebuilt = REBUILT[name];
          pending.reject(Rebuilt ? new Rebuilt(text) : new RemoteError(name, text));
          return;
        }
        const result = this.#theirs[pending.method]!.result.safeParse(message.value);
        if (result.success) pending.resolve(result.data);
        else
          pending.reject(new Error(`The other process answered ${pending.method} with something malformed.`));
        return;
      }
      case 'event': {
        if (!Object.hasOwn(this.#theirEvents, message.name)) return;
        const args = this.#theirEvents[message.name]!.safeParse(message.args);
        if (!args.success) {
          this.#log.warn({ event: message.name }, 'Ignored a malformed event from the other process');
          return;
        }
        for (const listener of this.#listeners.get(message.name) ?? []) {
          try {
            (listener as (...a: unknown[]) => void)(...(args.data as unknown[]));
          } catch (err) {
            this.#log.error({ err, event: message.name }, 'An event listener failed');
          }
        }
        return;
      }
    }
  };

  async #answer(id: number, name: string, rawArgs: unknown[]): Promise<void> {
    const reply = (
      body: { ok: true; value: unknown } | { ok: false; error: { name: string; message: string } },
    ) =>
      this.#send({ kind: 'result', id, ...body }, (error) => {
        if (error) this.#log.warn({ err: error, method: name }, 'Could not answer the other process');
      });
    const schema = Object.hasOwn(this.#mine, name) ? this.#mine[name] : undefined;
    const handler = Object.hasOwn(this.#handlers, name) ? this.#handlers[name] : undefined;
    if (!schema || !handler) {
      reply({ ok: false, error: { name: 'Error', message: `No such call: ${name}` } });
      return;
    }
    const args = schema.args.safeParse(rawArgs);
    if (!args.success) {
      this.#log.warn(
        { method: name, issues: args.error.issues.slice(0, 3) },
        'Refused a call with bad arguments',
      );
      reply({ ok: false, error: { name: 'TypeError', message: `Bad arguments for ${name}` } });
      return;
    }
    try {
      const value = await (handler as (...a: unknown[]) => Promise<unknown>)(...(args.data as unknown[]));
      reply({ ok: true, value });
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      reply({ ok: false, error: { name: err.name, message: err.message } });
    }
  }
}
