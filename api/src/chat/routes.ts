import type { RequestHandler } from 'express';
import { z } from 'zod';
import { chatMessageSchema, chatMessagesQuery, chatSchema } from '../contracts/index.ts';
import { caller } from '../auth/middleware.ts';
import { ApiRouter } from '../http/route.ts';
import type { ChatService } from './service.ts';

const chatParams = z.strictObject({ id: z.uuid({ error: 'id must be a chat id' }) });

/** Private chats (docs/chat.md): the caller's chats, requests waiting for them, a chat's messages. */
export function chatRoutes(deps: { chat: ChatService; requireAuth: RequestHandler }): ApiRouter {
  const { chat } = deps;
  const before = [deps.requireAuth];
  const errors = { 401: 'Not signed in' };
  return new ApiRouter()
    .route({
      method: 'get',
      path: '/chat',
      summary: "The caller's active chats with their last message, the most recent activity first",
      tags: ['chat'],
      before,
      errors,
      response: z.array(chatSchema),
      handler: ({ res }) => chat.active(caller(res).userId),
    })
    .route({
      method: 'get',
      path: '/chat/pending',
      summary: 'Chat requests waiting for the caller to accept or decline, the newest first',
      tags: ['chat'],
      before,
      errors,
      response: z.array(chatSchema),
      handler: ({ res }) => chat.pending(caller(res).userId),
    })
    .route({
      method: 'get',
      path: '/chat/:id/messages',
      summary: "A page of a chat's messages, oldest first: the newest by default, or those before `before`",
      tags: ['chat'],
      before,
      errors: { ...errors, 404: 'No such chat of yours' },
      params: chatParams,
      query: chatMessagesQuery,
      response: z.array(chatMessageSchema),
      handler: ({ params, query, res }) =>
        chat.messages(caller(res).userId, params.id, { before: query.before, limit: query.limit }),
    });
}
