import type { IncomingMessage } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  notificationAckPayload,
  requesterIdPayload,
  targetIdPayload,
  type Attack,
} from '../contracts/index.ts';
import type { AttackService } from '../attacks/service.ts';
import type { ChatService } from '../chat/service.ts';
import type { BalanceEvents } from '../credits/balance-events.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import type { EventDispatcher } from '../realtime/dispatcher.ts';
import { userRoom, type GridNamespace, type Realtime } from '../realtime/io.ts';
import type { Grid } from './grid.ts';
import type { PresenceUser } from './presence.ts';

export interface GridSocketDeps {
  realtime: Realtime;
  dispatcher: EventDispatcher;
  grid: Grid;
  attacks: AttackService;
  /** The global channel's latest page, part of the initial state. */
  chat: Pick<ChatService, 'globalPage'>;
  orm: Orm;
  logger: Logger;
  /** Balance changes (purchases, gifts, refunds, box time), pushed to the user's sockets as `balance`. */
  balances?: BalanceEvents;
  /** The client's address of a handshake, by the same proxy rules as HTTP requests (TRUST_PROXY). */
  clientAddress: (req: IncomingMessage) => string | null;
}

/**
 * The Grid's events on /grid (core-app section 7): presence, initial state, live attacks for everyone (the
 * target box's address only to the two players), matchmaking and PvP pushes, notifications. The chat's
 * events are chat/socket.ts's; both go through the namespace's dispatcher (realtime/dispatcher.ts).
 */
export function wireGrid(deps: GridSocketDeps): void {
  const { grid, attacks, logger, dispatcher } = deps;
  const ns: GridNamespace = deps.realtime.grid;
  const log = logger.child({ component: 'grid' });
  const sql = () => new Sql(deps.orm.em.fork() as EntityManager);
  const loadUser = (id: string) =>
    sql().one<PresenceUser>('select id, handle, mmr, country from users where id = ?', [id]);

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
  dispatcher.on('getInitialState', null, async ({ socket, userId }) => {
    const [running, blockedUsers, recent, open] = await Promise.all([
      attacks.running(),
      grid.blocks.list(userId),
      deps.chat.globalPage(userId),
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
  dispatcher.on('notifications:ack', notificationAckPayload, async ({ userId }, { ids }) => {
    await grid.notifications.acknowledge(userId, ids);
  });
  dispatcher.on('pvp:request', targetIdPayload, ({ userId }, { targetId }) =>
    grid.pvp.request(userId, targetId),
  );
  dispatcher.on('pvp:accept', requesterIdPayload, async ({ userId }, { requesterId }) => {
    await grid.pvp.accept(userId, requesterId);
  });
  dispatcher.on('pvp:decline', requesterIdPayload, ({ userId }, { requesterId }) =>
    grid.pvp.decline(userId, requesterId),
  );
  // Counted against no limit: a client over one can still sign out.
  dispatcher.on('logout', null, async ({ userId }) => grid.presence.loggedOut(userId), { unlimited: true });

  // ---- each socket ---------------------------------------------------------------------
  ns.on('connection', (socket) => {
    const { userId } = socket.data;
    let closed = false;
    let present = false;
    socket.on('disconnect', () => {
      closed = true;
      if (present) grid.presence.disconnected(userId);
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
