import type { IncomingMessage } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
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
} from '../contracts/index.ts';
import type { AttackService } from '../attacks/service.ts';
import type { Orm } from '../db/orm.ts';
import { GlobalChannel } from '../chat/global-channel.ts';
import { Sql } from '../db/sql.ts';
import { HttpError } from '../http/errors.ts';
import { KeyedLock } from '../keyed-lock.ts';
import type { Logger } from '../logger.ts';
import { userRoom, type GridNamespace, type Realtime } from '../realtime/io.ts';
import type { Grid } from './grid.ts';
import type { PresenceUser } from './presence.ts';

export interface GridSocketDeps {
  realtime: Realtime;
  grid: Grid;
  attacks: AttackService;
  orm: Orm;
  logger: Logger;
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

  grid.notifications.events.on('notification', (userId, notification) =>
    ns.to(userRoom(userId)).emit('notification', notification),
  );
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

  // ---- each socket ---------------------------------------------------------------------
  ns.on('connection', (socket) => {
    const { userId } = socket.data;
    let closed = false;
    let present = false;
    socket.on('disconnect', () => {
      closed = true;
      if (present) grid.presence.disconnected(userId);
    });

    /**
     * Runs a client event: rate-limited (chat sends also by the tighter chat limiter, and one at a time per
     * player), payload validated, failures as `error {message}` or, with `fail`, however the event reports them.
     */
    const handle = <S extends z.ZodType>(
      event: string,
      schema: S | null,
      fn: (payload: z.output<S>) => Promise<void>,
      options: { chatSend?: boolean; fail?: (raw: unknown, message: string) => void } = {},
    ) => {
      const fail = options.fail ?? ((_raw: unknown, message: string) => socket.emit('error', { message }));
      const run = async (raw?: unknown) => {
        try {
          await limiter.consume(userId);
        } catch (err) {
          if (err instanceof RateLimiterRes) fail(raw, GRID_MESSAGES.rateLimited);
          else log.error({ err }, 'Rate limiter failed');
          return;
        }
        if (options.chatSend) {
          try {
            await chatLimiter.consume(userId);
          } catch (err) {
            if (err instanceof RateLimiterRes) fail(raw, CHAT_MESSAGES.rateLimited);
            else log.error({ err }, 'Rate limiter failed');
            return;
          }
        }
        let payload: z.output<S> = undefined as z.output<S>;
        if (schema) {
          const parsed = schema.safeParse(raw);
          if (!parsed.success) {
            fail(raw, parsed.error.issues[0]?.message ?? GRID_MESSAGES.invalid);
            return;
          }
          payload = parsed.data;
        }
        try {
          await fn(payload);
        } catch (err) {
          if (err instanceof HttpError && err.statusCode < 500) fail(raw, err.message);
          else {
            log.error({ err, event }, 'Grid event failed');
            fail(raw, 'Something went wrong. Please try again.');
          }
        }
      };
      socket.on(event as 'logout', (raw?: unknown) =>
        options.chatSend ? chatOrder.run(userId, () => run(raw)) : run(raw),
      );
    };

    handle('getInitialState', null, async () => {
      const [running, blockedUsers, recent] = await Promise.all([
        attacks.running(),
        grid.blocks.list(userId),
        grid.chat.globalPage(userId),
      ]);
      socket.emit('initialState', {
        players: grid.presence.players(),
        attacks: running.map((a) =>
          a.attacker.id === userId || a.target.id === userId ? a : publicAttack(a),
        ),
        globalChatMessages: recent.messages,
        blockedUsers,
      });
      const open = await grid.matchmaking.openProposal(userId);
      if (open) socket.emit('match:found', open);
      for (const n of await grid.notifications.pending(userId)) socket.emit('notification', n);
    });
    handle('notifications:ack', notificationAckPayload, async ({ ids }) => {
      await grid.notifications.acknowledge(userId, ids);
    });
    handle('pvp:request', targetIdPayload, ({ targetId }) => grid.pvp.request(userId, targetId));
    handle('pvp:accept', requesterIdPayload, async ({ requesterId }) => {
      await grid.pvp.accept(userId, requesterId);
    });
    handle('pvp:decline', requesterIdPayload, ({ requesterId }) => grid.pvp.decline(userId, requesterId));
    handle('chat:block', blockPayload, async ({ blockUserId }) => {
      const blocked = await grid.blocks.block(userId, blockUserId);
      ns.to(userRoom(userId)).emit('userBlocked', blocked);
    });
    handle('chat:unblock', unblockPayload, async ({ unblockUserId }) => {
      await grid.blocks.unblock(userId, unblockUserId);
      ns.to(userRoom(userId)).emit('userUnblocked', { id: unblockUserId });
    });

    // ---- chat (docs/chat.md) ----
    handle(
      'chat:global',
      globalMessagePayload,
      async ({ message, tempId }) => {
        await globalChannel.post(userId, message, tempId);
      },
      { chatSend: true },
    );
    handle('chat:getOlderGlobalMessages', olderGlobalMessagesPayload, async ({ cursor }) => {
      socket.emit('olderGlobalChatMessages', await grid.chat.globalPage(userId, cursor));
    });
    handle('chat:request', chatRequestPayload, async ({ targetId }) => {
      const chat = await grid.chat.request(userId, targetId);
      // Asked back: the target's request is accepted, and the chat starts for both.
      if (chat.status === 'ACTIVE')
        ns.to([userRoom(chat.initiator.id), userRoom(chat.participant.id)]).emit('chat:started', chat);
    });
    handle('chat:response', chatResponsePayload, async ({ chatId, accepted }) => {
      const chat = await grid.chat.respond(userId, chatId, accepted);
      if (accepted)
        ns.to([userRoom(chat.initiator.id), userRoom(chat.participant.id)]).emit('chat:started', chat);
    });
    handle(
      'chat:privateMessage',
      privateMessagePayload,
      async ({ chatId, content, tempId }) => {
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
      {
        chatSend: true,
        fail: (raw, message) => {
          const tempId = (raw as { tempId?: unknown } | null | undefined)?.tempId;
          if (typeof tempId === 'string' && tempId)
            socket.emit('chat:privateMessageFailed', { tempId, message });
          else socket.emit('error', { message });
        },
      },
    );
    socket.on('logout', () => grid.presence.loggedOut(userId));

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
