/**
 * Chat (core-app spec: The Grid's chat panel, /chats, entities, validation rules, /grid socket, error catalogue,
 * constants): the global channel, private chats opened by a request, their messages.
 */
import striptags from 'striptags';
import { z } from 'zod';
import { playerRefSchema } from './grid.ts';

/** At most this many characters in a message (after trimming). */
export const CHAT_MAX_LENGTH = 2000;
/** Messages of the global channel in `initialState`, and in each `olderGlobalChatMessages` page. */
export const GLOBAL_CHAT_PAGE_SIZE = 50;
/** Messages of a private chat in each `GET /chat/{id}/messages` page. */
export const CHAT_MESSAGES_PAGE_SIZE = 50;
/** A message not confirmed by the server's echo within this long is marked failed (section 9). */
export const CHAT_SEND_TIMEOUT_MS = 15_000;
/** A chat request prompt stays this long (section 9). */
export const CHAT_REQUEST_PROMPT_MS = 30_000;

export const CHAT_MESSAGES = {
  // Section 5, verbatim.
  empty: 'Message cannot be empty.',
  tooLong: `Message too long. Maximum ${CHAT_MAX_LENGTH} characters allowed.`,
  html: 'Message contains potentially harmful content. HTML tags and scripts are not allowed.',
  /** The private chat's shorter wording (the spec does not show it). */
  htmlPrivate: 'HTML tags are not allowed.',
  // Ours.
  chatSelf: 'You cannot chat with yourself.',
  chatBlocked: 'You cannot chat with this player.',
  chatPending: 'A chat request between you is already waiting.',
  chatExists: 'You already have a chat with this player.',
  chatNotFound: 'Chat not found.',
  requestNotFound: 'That chat request is no longer open.',
  rateLimited: 'You are sending messages too fast. Slow down.',
} as const;

/** The titles and bodies of the chat notifications (ours: the spec shows them as '{title}: {body}'). */
export const CHAT_NOTICES = {
  requestTitle: 'Chat request',
  request: (handle: string) => `${handle} wants to chat.`,
  declinedTitle: 'Chat request declined',
  declined: (handle: string) => `${handle} declined your chat request.`,
  messageTitle: 'New message',
  message: (handle: string) => `${handle} sent you a message.`,
} as const;

/** Why a message is refused, or the plain text to store (section 5). */
export type ChatTextCheck = { ok: true; text: string } | { ok: false; message: string };

/**
 * The message rule of section 5, the same on both sides: trimmed, not empty, at most 2000 characters, and no
 * HTML: the text with its tags stripped must be the text itself. `privateChat` picks the shorter wording.
 */
export function checkChatText(raw: unknown, options: { privateChat?: boolean } = {}): ChatTextCheck {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (!text) return { ok: false, message: CHAT_MESSAGES.empty };
  if (text.length > CHAT_MAX_LENGTH) return { ok: false, message: CHAT_MESSAGES.tooLong };
  if (stripTags(text) !== text)
    return { ok: false, message: options.privateChat ? CHAT_MESSAGES.htmlPrivate : CHAT_MESSAGES.html };
  return { ok: true, text };
}

/** Text without its HTML tags (what the portal displays, whatever it received). */
export const stripTags = (text: string): string => striptags(text);

// ---- entities -------------------------------------------------------------------------------

export const globalChatMessageSchema = z
  .object({
    id: z.uuid(),
    senderId: z.uuid(),
    sender: playerRefSchema,
    content: z.string(),
    timestamp: z.iso.datetime(),
  })
  .meta({ id: 'GlobalChatMessage' });
export type GlobalChatMessage = z.infer<typeof globalChatMessageSchema>;

export const CHAT_STATUSES = ['PENDING', 'ACTIVE', 'DECLINED'] as const;
export type ChatStatus = (typeof CHAT_STATUSES)[number];

export const chatMessageSchema = z
  .object({
    id: z.uuid(),
    chatId: z.uuid(),
    sender: playerRefSchema,
    content: z.string(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'ChatMessage' });
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** A private chat: the initiator asked, the participant accepted (ACTIVE) or not yet (PENDING). */
export const chatSchema = z
  .object({
    id: z.uuid(),
    initiator: playerRefSchema,
    participant: playerRefSchema,
    status: z.enum(CHAT_STATUSES),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    /** The spec's messages[]: the newest message only (none before the first); a chat's history is paged over REST. */
    messages: z.array(chatMessageSchema).max(1),
  })
  .meta({ id: 'Chat' });
export type Chat = z.infer<typeof chatSchema>;

export const chatMessagesQuery = z.strictObject({
  /** Messages older than this one (its id), for the page before; none: the newest page. */
  before: z.uuid({ error: 'before must be a message id' }).optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be between 1 and 100')
    .max(100, 'limit must be between 1 and 100')
    .default(CHAT_MESSAGES_PAGE_SIZE),
});

// ---- /grid payloads ---------------------------------------------------------------------------

/** A client's own id for a message it shows before the server's echo (optimistic sending). */
const tempId = z.string().min(1, 'tempId is required').max(64, 'tempId is too long');

/**
 * A message's text on the wire, before the rule (`checkChatText`): anything that is not text reads as empty,
 * and what is far too long is refused before it is trimmed, with the rule's own words either way.
 */
const chatText = z.string({ error: CHAT_MESSAGES.empty }).max(10_000, CHAT_MESSAGES.tooLong);

export const globalMessagePayload = z.strictObject({ message: chatText, tempId });
export const olderGlobalMessagesPayload = z.strictObject({
  /** The id of the oldest message the client has. */
  cursor: z.uuid({ error: 'cursor must be a message id' }),
});
export const chatRequestPayload = z.strictObject({
  targetId: z.uuid({ error: 'targetId must be a user id' }),
});
export const chatResponsePayload = z.strictObject({
  chatId: z.uuid({ error: 'chatId must be a chat id' }),
  accepted: z.boolean({ error: 'accepted must be true or false' }),
});
export const privateMessagePayload = z.strictObject({
  chatId: z.uuid({ error: 'chatId must be a chat id' }),
  content: chatText,
  tempId,
});

/** `globalChatMessage`: the sender's own echo carries the tempId it sent. */
export type GlobalChatMessageEvent = GlobalChatMessage & { tempId?: string };
/** `chat:privateMessage` to both participants; the sender's echo carries the tempId. */
export type PrivateMessageEvent = ChatMessage & { tempId?: string };
export interface OlderGlobalMessagesEvent {
  /** Oldest first, as the panel shows them. */
  messages: GlobalChatMessage[];
  /** Whether there are older ones still. */
  hasMore: boolean;
}
export interface PrivateMessageFailedEvent {
  tempId: string;
  message: string;
}
/** `chat:started` to both: the chat is ACTIVE. */
export type ChatStartedEvent = Chat;
