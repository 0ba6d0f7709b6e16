import {
  CHAT_MESSAGES,
  blockPayload,
  chatRequestPayload,
  chatResponsePayload,
  globalMessagePayload,
  olderGlobalMessagesPayload,
  privateMessagePayload,
  unblockPayload,
} from '../contracts/index.ts';
import type { Logger } from '../logger.ts';
import { eventLimit, type EventDispatcher, type FailureReport } from '../realtime/dispatcher.ts';
import { userRoom, type GridNamespace } from '../realtime/io.ts';
import type { Blocks } from '../users/blocks.ts';
import { GlobalChannel } from './global-channel.ts';
import type { ChatService } from './service.ts';

export interface ChatSocketDeps {
  ns: GridNamespace;
  dispatcher: EventDispatcher;
  chat: ChatService;
  blocks: Blocks;
  logger: Logger;
  /** Chat messages (global and private together) a user may send per 10 s. */
  chatMessagesPer10s?: number;
}

/**
 * The chat's events on /grid (docs/chat.md): the global channel, chat requests and private messages, and
 * blocks (which end a pending request). Sends are limited by the chat limiter on top of the namespace's and
 * handled one at a time per player, so they are stored and delivered in the order they were sent.
 */
export function wireChat(deps: ChatSocketDeps): void {
  const { ns, dispatcher, chat, blocks } = deps;
  const log = deps.logger.child({ component: 'chat' });
  const globalChannel = new GlobalChannel(ns, chat);
  const send = {
    limits: [eventLimit(deps.chatMessagesPer10s ?? 10, CHAT_MESSAGES.rateLimited)],
    ordered: true,
  };
  /**
   * How a chat send fails: with the message's tempId so the client can mark it failed (private messages by
   * their own event, global ones as `error` with the tempId); a payload without one gets a plain `error`.
   */
  const failWithTempId =
    (event: 'error' | 'chat:privateMessageFailed'): FailureReport =>
    ({ socket }, raw, message) => {
      const tempId = (raw as { tempId?: unknown } | null | undefined)?.tempId;
      if (typeof tempId === 'string' && tempId) socket.emit(event, { tempId, message });
      else socket.emit('error', { message });
    };

  dispatcher.on(
    'chat:global',
    globalMessagePayload,
    async ({ userId }, { message, tempId }) => {
      await globalChannel.post(userId, message, tempId);
    },
    { ...send, fail: failWithTempId('error') },
  );
  dispatcher.on(
    'chat:getOlderGlobalMessages',
    olderGlobalMessagesPayload,
    async ({ socket, userId }, { cursor }) => {
      socket.emit('olderGlobalChatMessages', await chat.globalPage(userId, cursor));
    },
  );
  dispatcher.on('chat:request', chatRequestPayload, async ({ userId }, { targetId }) => {
    const started = await chat.request(userId, targetId);
    // Asked back: the target's request is accepted, and the chat starts for both.
    if (started.status === 'ACTIVE')
      ns.to([userRoom(started.initiator.id), userRoom(started.participant.id)]).emit('chat:started', started);
  });
  dispatcher.on('chat:response', chatResponsePayload, async ({ userId }, { chatId, accepted }) => {
    const answered = await chat.respond(userId, chatId, accepted);
    if (accepted)
      ns.to([userRoom(answered.initiator.id), userRoom(answered.participant.id)]).emit(
        'chat:started',
        answered,
      );
  });
  dispatcher.on(
    'chat:privateMessage',
    privateMessagePayload,
    async ({ userId }, { chatId, content, tempId }) => {
      const { message, recipientId } = await chat.sendPrivate(userId, chatId, content);
      ns.to(userRoom(recipientId)).emit('chat:privateMessage', message);
      ns.to(userRoom(userId)).emit('chat:privateMessage', { ...message, tempId });
      // Not on the grid at all (no socket, any tab): a notification waits for their return.
      // (The message is delivered by now: a failure here is logged, not reported to the sender.)
      try {
        if ((await ns.in(userRoom(recipientId)).fetchSockets()).length === 0)
          await chat.notifyOffline(message, recipientId);
      } catch (err) {
        log.error({ err }, 'Could not notify an offline recipient');
      }
    },
    { ...send, fail: failWithTempId('chat:privateMessageFailed') },
  );
  dispatcher.on('chat:block', blockPayload, async ({ userId }, { blockUserId }) => {
    const blocked = await blocks.block(userId, blockUserId);
    await chat.dropRequestsOnBlock(userId, blockUserId);
    ns.to(userRoom(userId)).emit('userBlocked', blocked);
  });
  dispatcher.on('chat:unblock', unblockPayload, async ({ userId }, { unblockUserId }) => {
    await blocks.unblock(userId, unblockUserId);
    ns.to(userRoom(userId)).emit('userUnblocked', { id: unblockUserId });
  });
}
