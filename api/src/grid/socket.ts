import type { IncomingMessage } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Socket } from 'socket.io';
import type { z } from 'zod';
import {
  CHAT_MESSAGES,
  GRID_MESSAGES,
  blockPayload,
  chatRequestPayload,
  chatResponsePayload,
  globalMessagePayload,
  olderGlobalMessagesPayload,
  privateMessagePayload,
  notificationAckPayload,
  requesterIdPayload,
  targetIdPayload,
  unblockPayload,
  type Attack,
  type EventAnswer,
  type GridClientToServerEvents,
  type GridServerToClientEvents,
} from '../contracts/index.ts';
import type { AttackService } from '../attacks/service.ts';
import { GlobalChannel } from '../chat/global-channel.ts';
import type { BalanceEvents } from '../credits/balance-events.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { HttpError } from '../http/errors.ts';
import { NUL_MESSAGE, containsNul } from '../http/nul.ts';
import { KeyedLock } from '../keyed-lock.ts';
import type { Logger } from '../logger.ts';
import { userRoom, type GridNamespace, type Realtime, type SocketData } from '../realtime/io.ts';
import type { Grid } from './grid.ts';
import type { PresenceUser } from './presence.ts';

/** A client's acknowledgement callback. */
type Ack = (answer: EventAnswer) => void;

/** Who sent a client event: the socket and its user. */
interface From {
  socket: Socket<GridClientToServerEvents, GridServerToClientEvents, object, SocketData>;
  userId: string;
}

export interface GridSocketDeps {
  realtime: Realtime;
  grid: Grid;
  attacks: AttackService;
  orm: Orm;
  logger: Logger;
  /** Balance changes (purchases, gifts, refunds, box time), pushed to the user's sockets as `balance`. */
  balances?: BalanceEvents;
  /** The client's address of a handshake, by the same proxy rules as HTTP requests (TRUST_PROXY). */
  clientAddress: (req: IncomingMessage) => string | null;
  /** Client events a user may send per 10 s (chat-free grid events: PvP, blocks, acks, state). */
  eventsPer10s?: number;
  /** Chat messages (global and private together) a user may send per 10 s. */
  chatMessagesPer10s?: number;
}

/**
 * The /grid namespace (core-app section 7): presence, initial state, live attacks for everyone (the
 * target box's address only to the two players), matchmaking and PvP pushes, blocks, notifications.
 */
export function wireGrid(deps: GridSocketDeps): void {
  const { grid, attacks, logger } = deps;
  const ns: GridNamespace = deps.realtime.grid;
  const log = logger.child({ component: 'grid' });
  const sql = () => new Sql(deps.orm.em.fork() as EntityManager);
  const loadUser = (id: string) =>
    sql().one<PresenceUser>('select id, handle, mmr, country from users where id = ?', [id]);
  const limiter = new RateLimiterMemory({ points: deps.eventsPer10s ?? 40, duration: 10 });
  const chatLimiter = new RateLimiterMemory({ points: deps.chatMessagesPer10s ?? 10, duration: 10 });
  // A player's chat messages are handled one after the other (all their sockets), so they are stored and
  // delivered in the order they were sent.
  const chatOrder = new KeyedLock();
  const globalChannel = new GlobalChannel(ns, grid.chat);

  // ---- pushes from the services ------------------------------------------------------------
  grid.presence.events.on('playerUpdated', (player) => ns.emit('playerUpdated', player));
  grid.presence.events.on('playerOffline', (userId) => {
    ns.emit('playerOffline', userId);
    grid.matchmaking
      .leave(userId)
      .catch((err: unknown) => log.error({ err }, 'Could not take an offline player out of matchmaking'));
  });

  const participants = (a: { attacker: { id: string }; target: { id: string } }) => [
    userRoom(a.attacker.id),
    userRoom(a.target.id),
  ];
  attacks.events.on('attackStarted', (attack) => {
    // Everyone sees the arc; only the two players see where the box is.
    ns.to(participants(attack)).emit('attackStarted', attack);
    ns.except(participants(attack)).emit('attackStarted', publicAttack(attack));
    // In an attack, out of the queue (the portal shows neither queue nor Find a Mark meanwhile).
    void (async () => {
      for (const id of [attack.attacker.id, attack.target.id]) await grid.matchmaking.leave(id);
    })().catch((err: unknown) =>
      log.error({ err }, 'Could not take the players of an attack out of the queue'),
    );
    grid.notifications
      .attackStarted(attack)
      .catch((err: unknown) => log.error({ err }, 'Could not notify the defender'));
  });
  attacks.events.on('attackEnded', ({ attackerId, targetId, ...payload }) => {
    ns.emit('attackEnded', payload);
    grid.targetInfo.invalidate(targetId);
    void (async () => {
      const attack = await attacks.get(payload.attackId);
      if (attack) await grid.notifications.attackEnded(attack, payload.result);
      // MMR moved: the queue matches by it and the globe shows it.
      await grid.matchmaking.refreshMmr([attackerId, targetId]);
      for (const id of [attackerId, targetId]) {
        const user = await loadUser(id);
        if (user) grid.presence.update(user);
      }
    })().catch((err: unknown) => log.error({ err }, 'Could not publish the end of an attack'));
  });
  attacks.events.on('attackBoxUpdated', ({ attackerId, targetId, ...payload }) =>
    ns.to([userRoom(attackerId), userRoom(targetId)]).emit('attackBoxUpdated', payload),
  );
  attacks.events.on('attackServices', ({ attackerId, targetId, ...payload }) =>
    ns.to([userRoom(attackerId), userRoom(targetId)]).emit('attackServices', payload),
  );

  grid.notifications.events.on('notification', (userId, notification) =>
    ns.to(userRoom(userId)).emit('notification', notification),
  );
  deps.balances?.on('balance', (userId, payload) => ns.to(userRoom(userId)).emit('balance', payload));
  grid.matchmaking.events.on('found', (proposal) =>
    ns.to([userRoom(proposal.attacker.id), userRoom(proposal.defender.id)]).emit('match:found', proposal),
  );
  grid.matchmaking.events.on('expired', (userId, payload) =>
    ns.to(userRoom(userId)).emit('match:expired', payload),
  );
  grid.matchmaking.events.on('noMatch', (userId, message) =>
    ns.to(userRoom(userId)).emit('queue:noMatch', { message }),
  );
  grid.pvp.events.on('incoming', (targetId, payload) =>
    ns.to(userRoom(targetId)).emit('pvp:request:incoming', payload),
  );
  grid.pvp.events.on('accepted', (attack) =>
    ns.to(participants(attack)).emit('pvp:request:accepted', { attack }),
  );
  grid.pvp.events.on('declined', (requesterId, decliner) =>
    ns.to(userRoom(requesterId)).emit('pvp:request:declined', { decliner }),
  );
  grid.pvp.events.on('failed', (requesterId, target, message) => {
    grid.notifications
      .send({
        userId: requesterId,
        type: 'ERROR',
        title: 'Challenge failed',
        body: `${target.handle} accepted, but the attack could not start: ${message}`,
        initiator: target.handle ? target : null,
      })
      .catch((err: unknown) => log.error({ err }, 'Could not notify a failed challenge'));
  });

  // ---- client events ----------------------------------------------------------------------
  // Defined once for the namespace (a socket holds one dispatcher, not a closure per event: memory per idle
  // socket is a goal, docs/benchmarks.md).
  interface Handler {
    schema: z.ZodType | null;
    fn: (from: From, payload: unknown) => Promise<void>;
    chatSend: boolean;
    fail: (from: From, raw: unknown, message: string) => void;
  }
  const handlers = new Map<string, Handler>();
  const reportError = ({ socket }: From, _raw: unknown, message: string) => socket.emit('error', { message });
  /**
   * A client event: rate-limited (chat sends also by the tighter chat limiter, and one at a time per player),
   * payload validated, failures as `error {message}` or, with `fail`, however the event reports them.
   */
  const on = <S extends z.ZodType>(
    event: keyof GridClientToServerEvents,
    schema: S | null,
    fn: (from: From, payload: z.output<S>) => Promise<void>,
    options: { chatSend?: boolean; fail?: Handler['fail'] } = {},
  ) =>
    handlers.set(event, {
      schema,
      fn: fn as Handler['fn'],
      chatSend: options.chatSend ?? false,
      fail: options.fail ?? reportError,
    });

  /**
   * How a chat send fails: with the message's tempId so the client can mark it failed (private messages by
   * their own event, global ones as `error` with the tempId); a payload without one gets a plain `error`.
   */
  const failWithTempId =
    (event: 'error' | 'chat:privateMessageFailed'): Handler['fail'] =>
    ({ socket }, raw, message) => {
      const tempId = (raw as { tempId?: unknown } | null | undefined)?.tempId;
      if (typeof tempId === 'string' && tempId) socket.emit(event, { tempId, message });
      else socket.emit('error', { message });
    };

  const gridLimit = [[limiter, GRID_MESSAGES.rateLimited]] as const;
  const bothLimits = [...gridLimit, [chatLimiter, CHAT_MESSAGES.rateLimited]] as const;
  /**
   * Runs a client event. A client that passed an acknowledgement callback gets the outcome there ({ok} or
   * {ok: false, message}) instead of the event's failure event.
   */
  const run = async (from: From, event: string, handler: Handler, raw: unknown, ack?: Ack) => {
    const { userId } = from;
    const fail = (message: string) => (ack ? ack({ ok: false, message }) : handler.fail(from, raw, message));
    for (const [limit, message] of handler.chatSend ? bothLimits : gridLimit) {
      try {
        await limit.consume(userId);
      } catch (err) {
        if (err instanceof RateLimiterRes) fail(message);
        else log.error({ err }, 'Rate limiter failed');
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
        log.error({ err, event }, 'Grid event failed');
        fail('Something went wrong. Please try again.');
      }
    }
  };

  on('getInitialState', null, async ({ socket, userId }) => {
    const [running, blockedUsers, recent, open] = await Promise.all([
      attacks.running(),
      grid.blocks.list(userId),
      grid.chat.globalPage(userId),
      grid.matchmaking.openProposal(userId),
    ]);
    // The open proposal first: a client that kept one from before drops it when it is not sent again before
    // the state (it ended meanwhile).
    if (open) socket.emit('match:found', open);
    socket.emit('initialState', {
      players: grid.presence.players(),
      attacks: running.map((a) => (a.attacker.id === userId || a.target.id === userId ? a : publicAttack(a))),
      globalChatMessages: recent.messages,
      blockedUsers,
    });
    for (const n of await grid.notifications.pending(userId)) socket.emit('notification', n);
  });
  on('notifications:ack', notificationAckPayload, async ({ userId }, { ids }) => {
    await grid.notifications.acknowledge(userId, ids);
  });
  on('pvp:request', targetIdPayload, ({ userId }, { targetId }) => grid.pvp.request(userId, targetId));
  on('pvp:accept', requesterIdPayload, async ({ userId }, { requesterId }) => {
    await grid.pvp.accept(userId, requesterId);
  });
  on('pvp:decline', requesterIdPayload, ({ userId }, { requesterId }) =>
    grid.pvp.decline(userId, requesterId),
  );
  on('chat:block', blockPayload, async ({ userId }, { blockUserId }) => {
    const blocked = await grid.blocks.block(userId, blockUserId);
    await grid.chat.dropRequestsOnBlock(userId, blockUserId);
    ns.to(userRoom(userId)).emit('userBlocked', blocked);
  });
  on('chat:unblock', unblockPayload, async ({ userId }, { unblockUserId }) => {
    await grid.blocks.unblock(userId, unblockUserId);
    ns.to(userRoom(userId)).emit('userUnblocked', { id: unblockUserId });
  });

  // ---- chat (docs/chat.md) ----
  on(
    'chat:global',
    globalMessagePayload,
    async ({ userId }, { message, tempId }) => {
      await globalChannel.post(userId, message, tempId);
    },
    { chatSend: true, fail: failWithTempId('error') },
  );
  on('chat:getOlderGlobalMessages', olderGlobalMessagesPayload, async ({ socket, userId }, { cursor }) => {
    socket.emit('olderGlobalChatMessages', await grid.chat.globalPage(userId, cursor));
  });
  on('chat:request', chatRequestPayload, async ({ userId }, { targetId }) => {
    const chat = await grid.chat.request(userId, targetId);
    // Asked back: the target's request is accepted, and the chat starts for both.
    if (chat.status === 'ACTIVE')
      ns.to([userRoom(chat.initiator.id), userRoom(chat.participant.id)]).emit('chat:started', chat);
  });
  on('chat:response', chatResponsePayload, async ({ userId }, { chatId, accepted }) => {
    const chat = await grid.chat.respond(userId, chatId, accepted);
    if (accepted)
      ns.to([userRoom(chat.initiator.id), userRoom(chat.participant.id)]).emit('chat:started', chat);
  });
  on(
    'chat:privateMessage',
    privateMessagePayload,
    async ({ userId }, { chatId, content, tempId }) => {
      const { message, recipientId } = await grid.chat.sendPrivate(userId, chatId, content);
      ns.to(userRoom(recipientId)).emit('chat:privateMessage', message);
      ns.to(userRoom(userId)).emit('chat:privateMessage', { ...message, tempId });
      // Not on the grid at all (no socket, any tab): a notification waits for their return.
      // (The message is delivered by now: a failure here is logged, not reported to the sender.)
      try {
        if ((await ns.in(userRoom(recipientId)).fetchSockets()).length === 0)
          await grid.chat.notifyOffline(message, recipientId);
      } catch (err) {
        log.error({ err }, 'Could not notify an offline recipient');
      }
    },
    { chatSend: true, fail: failWithTempId('chat:privateMessageFailed') },
  );

  // ---- each socket ---------------------------------------------------------------------
  ns.on('connection', (socket) => {
    const { userId } = socket.data;
    const from: From = { socket, userId };
    let closed = false;
    let present = false;
    socket.on('disconnect', () => {
      closed = true;
      if (present) grid.presence.disconnected(userId);
    });
    socket.onAny((event: string, ...args: unknown[]) => {
      if (event === 'logout') {
        grid.presence.loggedOut(userId);
        return;
      }
      const handler = handlers.get(event);
      if (!handler) return;
      const ack = typeof args.at(-1) === 'function' ? (args.pop() as Ack) : undefined;
      const raw = args[0];
      if (handler.chatSend) void chatOrder.run(userId, () => run(from, event, handler, raw, ack));
      else void run(from, event, handler, raw, ack);
    });

    // On the globe first, then tell the client it may ask for the state (which includes itself).
    loadUser(userId)
      .then((user) => {
        if (closed) return;
        if (!user) {
          log.warn({ userId }, 'A grid socket of a user that does not exist');
          return;
        }
        present = true;
        grid.presence.connected(user, deps.clientAddress(socket.request));
        socket.emit('readyForState');
      })
      .catch((err: unknown) => {
        log.error({ err }, 'Could not load a grid player');
        socket.emit('error', { message: 'Something went wrong. Please reconnect.' });
      });
  });
}

/** An attack as players other than its two see it: who and how it ends, not where the box is. */
function publicAttack(attack: Attack): Attack {
  return { ...attack, box: null };
}
