import type {
  Chat,
  ChatMessage,
  GlobalChatMessage,
  GridNotification,
  PlayerRef,
} from '@exploit-grid/api/contracts';
import { acid, gridNotification, me } from './grid.ts';

/** Chat fixtures shared by the store, panel and page tests: global messages, chats, private messages. */

let idCount = 0;
const nextId = (prefix: string) => `${prefix}-0000-4000-8000-${String(++idCount).padStart(12, '0')}`;

/** A global message, each with an id of its own. */
export const globalMessage = (
  sender: PlayerRef,
  content: string,
  fields: Partial<GlobalChatMessage> = {},
): GlobalChatMessage => ({
  id: nextId('40000000'),
  senderId: sender.id,
  sender,
  content,
  timestamp: '2026-03-01T12:00:00.000Z',
  ...fields,
});

/** An ACTIVE chat acid_burn started with this operator, unless told otherwise. */
export const privateChat = (fields: Partial<Chat> = {}): Chat => ({
  id: nextId('50000000'),
  initiator: acid,
  participant: me,
  status: 'ACTIVE',
  createdAt: '2026-03-01T12:00:00.000Z',
  updatedAt: '2026-03-01T12:00:00.000Z',
  messages: [],
  ...fields,
});

/** A message of a private chat, each with an id of its own. */
export const privateMessage = (
  chatId: string,
  sender: PlayerRef,
  content: string,
  fields: Partial<ChatMessage> = {},
): ChatMessage => ({
  id: nextId('60000000'),
  chatId,
  sender,
  content,
  createdAt: '2026-03-01T12:00:00.000Z',
  ...fields,
});

/** The CHAT_REQUEST notification of a PENDING chat, as the server sends it to the participant. */
export const chatRequestNotification = (chat: Chat): GridNotification =>
  gridNotification({
    type: 'CHAT_REQUEST',
    title: 'Chat request',
    body: `${chat.initiator.handle} wants to chat.`,
    initiator: chat.initiator,
    chatId: chat.id,
  });

/** A chat message's text as a player reads it after its time: the sender's handle, then the message. */
export const messageText = (item: HTMLElement) =>
  (item.textContent ?? '').replace(item.querySelector('time')?.textContent ?? '', '');
