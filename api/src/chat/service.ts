import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CHAT_MESSAGES,
  CHAT_NOTICES,
  CHAT_MESSAGES_PAGE_SIZE,
  GLOBAL_CHAT_PAGE_SIZE,
  GRID_MESSAGES,
  checkChatText,
  type Chat,
  type ChatMessage,
  type ChatStatus,
  type GlobalChatMessage,
  type OlderGlobalMessagesEvent,
  type PlayerRef,
} from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import type { BatchResult } from '../db/batch-writer.ts';
import { Sql, uniqueViolation } from '../db/sql.ts';
import { badRequest, conflict, forbidden, notFound } from '../http/errors.ts';
import type { Blocks } from '../users/blocks.ts';
import type { Notifications } from '../notifications/notifications.ts';

interface GlobalRow {
  id: string;
  sender_id: string;
  sender_handle: string;
  content: string;
  created_at: string | Date;
}

interface MessageRow {
  id: string;
  chat_id: string;
  sender_id: string;
  sender_handle: string;
  content: string;
  created_at: string | Date;
}

interface ChatRow {
  id: string;
  initiator_id: string;
  initiator_handle: string;
  participant_id: string;
  participant_handle: string;
  status: ChatStatus;
  created_at: string | Date;
  updated_at: string | Date;
  m_id: string | null;
  m_sender_id: string | null;
  m_sender_handle: string | null;
  m_content: string | null;
  m_created_at: string | Date | null;
}

/** A chat with its last message and both players' handles. */
const CHAT_SELECT = `
  select c.id, c.initiator_id, i.handle as initiator_handle, c.participant_id, p.handle as participant_handle,
         c.status, c.created_at, c.updated_at,
         m.id as m_id, m.sender_id as m_sender_id, s.handle as m_sender_handle, m.content as m_content,
         m.created_at as m_created_at
    from chats c
    join users i on i.id = c.initiator_id
    join users p on p.id = c.participant_id
    left join lateral (
      select * from chat_messages cm where cm.chat_id = c.id order by cm.created_at desc, cm.id desc limit 1
    ) m on true
    left join users s on s.id = m.sender_id`;

/** A message for the global channel, its text checked. */
export interface GlobalPost {
  senderId: string;
  text: string;
}

/** A stored global message, and the users who blocked its sender (they must not get it). */
export interface PostedGlobal {
  message: GlobalChatMessage;
  blockers: string[];
}

/** A message sent in a private chat, and who else should get it. */
export interface SentPrivateMessage {
  message: ChatMessage;
  recipientId: string;
}

/**
 * The chat (docs/chat.md): the global channel (stored, filtered by blocks when read) and private chats
 * opened by a request the other player accepts. Failures are HttpErrors whose messages the socket sends
 * back as they are.
 */
export class ChatService {
  readonly #orm: Orm;
  readonly #blocks: Pick<Blocks, 'eitherBlocked'>;
  readonly #notifications: Pick<Notifications, 'send'>;

  constructor(deps: {
    orm: Orm;
    blocks: Pick<Blocks, 'eitherBlocked'>;
    notifications: Pick<Notifications, 'send'>;
  }) {
    this.#orm = deps.orm;
    this.#blocks = deps.blocks;
    this.#notifications = deps.notifications;
  }

  #sql() {
    return new Sql(this.#orm.em.fork() as EntityManager);
  }

  // ---- global channel --------------------------------------------------------------------

  /**
   * Stores messages of the global channel (their text already checked: `checkChatText`) with one statement,
   * in their order (clock_timestamp() per row, so that pages read later show them as they were delivered);
   * answers each with the users who blocked its sender. A sender that does not exist fails alone.
   */
  async storeGlobal(posts: GlobalPost[]): Promise<BatchResult<PostedGlobal>[]> {
    const rows = await this.#sql().all<GlobalRow & { ord: string; blockers: string[] }>(
      `with input as (
         select gen_random_uuid() as id, t.ord, (t.post->>'senderId')::uuid as sender_id, t.post->>'text' as content
           from jsonb_array_elements(?::jsonb) with ordinality as t(post, ord)
       ), m as (
         insert into global_chat_messages (id, sender_id, content, created_at)
         select i.id, i.sender_id, i.content, clock_timestamp()
           from input i join users u on u.id = i.sender_id
          order by i.ord
         returning id, created_at
       )
       select i.ord, m.id, i.sender_id, u.handle as sender_handle, i.content, m.created_at,
              array(select b.blocker_id::text from user_blocks b where b.blocked_id = i.sender_id) as blockers
         from m join input i on i.id = m.id join users u on u.id = i.sender_id`,
      [JSON.stringify(posts)],
    );
    const byOrd = new Map(rows.map((row) => [Number(row.ord), row]));
    return posts.map((_, i) => {
      const row = byOrd.get(i + 1);
      return row
        ? { ok: true, value: { message: toGlobal(row), blockers: row.blockers } }
        : { ok: false, error: notFound(GRID_MESSAGES.playerNotFound) };
    });
  }

  /**
   * A page of the global channel as `viewerId` sees it (without the senders they blocked), oldest first:
   * the newest messages, or those before the message `cursor`. An unknown cursor: an empty page.
   */
  async globalPage(
    viewerId: string,
    cursor?: string,
    limit = GLOBAL_CHAT_PAGE_SIZE,
  ): Promise<OlderGlobalMessagesEvent> {
    const rows = await this.#sql().all<GlobalRow>(
      `select m.id, m.sender_id, u.handle as sender_handle, m.content, m.created_at
         from global_chat_messages m join users u on u.id = m.sender_id
        where not exists (select 1 from user_blocks b where b.blocker_id = ? and b.blocked_id = m.sender_id)
          ${cursor ? 'and (m.created_at, m.id) < (select c.created_at, c.id from global_chat_messages c where c.id = ?)' : ''}
        order by m.created_at desc, m.id desc
        limit ?`,
      cursor ? [viewerId, cursor, limit + 1] : [viewerId, limit + 1],
    );
    const hasMore = rows.length > limit;
    return { messages: rows.slice(0, limit).reverse().map(toGlobal), hasMore };
  }

  // ---- private chats ---------------------------------------------------------------------

  /**
   * Opens a PENDING chat with `targetId` and tells them (CHAT_REQUEST); when `targetId` has asked the caller
   * already, accepts that request instead and answers the ACTIVE chat.
   */
  async request(initiatorId: string, targetId: string): Promise<Chat> {
    if (initiatorId === targetId) throw badRequest(CHAT_MESSAGES.chatSelf);
    const sql = this.#sql();
    const users = await sql.all<PlayerRef>('select id, handle from users where id in (?, ?)', [
      initiatorId,
      targetId,
    ]);
    const initiator = users.find((u) => u.id === initiatorId);
    if (!initiator || !users.some((u) => u.id === targetId)) throw notFound(GRID_MESSAGES.playerNotFound);
    if (await this.#blocks.eitherBlocked(initiatorId, targetId)) throw conflict(CHAT_MESSAGES.chatBlocked);
    // The target asked first: asking back is saying yes (the chat starts, ACTIVE).
    const asked = await sql.one<{ id: string }>(
      `select id from chats where initiator_id = ? and participant_id = ? and status = 'PENDING'`,
      [targetId, initiatorId],
    );
    if (asked) return this.respond(initiatorId, asked.id, true);
    await this.#refuseOpenPair(sql, initiatorId, targetId);
    let id: string | undefined;
    try {
      id = (
        await sql.one<{ id: string }>(
          'insert into chats (initiator_id, participant_id) values (?, ?) returning id',
          [initiatorId, targetId],
        )
      )?.id;
    } catch (err) {
      // Both asked at the same moment: the other request won.
      if (uniqueViolation(err) !== null) await this.#refuseOpenPair(sql, initiatorId, targetId);
      throw err;
    }
    const chat = await this.#chat(sql, id!);
    await this.#notifications.send({
      userId: targetId,
      type: 'CHAT_REQUEST',
      title: CHAT_NOTICES.requestTitle,
      body: CHAT_NOTICES.request(initiator.handle),
      initiator,
      chatId: chat.id,
    });
    return chat;
  }

  async #refuseOpenPair(sql: Sql, a: string, b: string): Promise<void> {
    const open = await sql.one<{ status: ChatStatus }>(
      `select status from chats
        where least(initiator_id, participant_id) = least(?::uuid, ?::uuid)
          and greatest(initiator_id, participant_id) = greatest(?::uuid, ?::uuid)
          and status in ('PENDING', 'ACTIVE')`,
      [a, b, a, b],
    );
    if (open) throw conflict(open.status === 'ACTIVE' ? CHAT_MESSAGES.chatExists : CHAT_MESSAGES.chatPending);
  }

  /**
   * A block ends the requests between the two (either way; declined, no one is told) and the blocker's
   * unread notifications from the blocked player's chats, so nothing of theirs waits for an answer.
   */
  async dropRequestsOnBlock(blockerId: string, blockedId: string): Promise<void> {
    await this.#sql().run(
      // One statement: the CTE's update runs whether or not its rows are read.
      `with decline as (
         update chats set status = 'DECLINED', updated_at = now()
          where status = 'PENDING'
            and ((initiator_id = ? and participant_id = ?) or (initiator_id = ? and participant_id = ?)))
       update notifications set delivered_at = now()
        where user_id = ? and initiator_id = ? and delivered_at is null
          and type in ('CHAT_REQUEST', 'PRIVATE_MESSAGE')`,
      [blockedId, blockerId, blockerId, blockedId, blockerId, blockedId],
    );
  }

  /**
   * The participant answers a PENDING request: ACTIVE (answers the chat, for `chat:started` to both) or
   * DECLINED (the initiator gets a GENERIC notification; answers the chat too).
   */
  async respond(userId: string, chatId: string, accepted: boolean): Promise<Chat> {
    const sql = this.#sql();
    const pending = await sql.one<{ initiator_id: string }>(
      `select initiator_id from chats where id = ? and participant_id = ? and status = 'PENDING'`,
      [chatId, userId],
    );
    if (!pending) throw notFound(CHAT_MESSAGES.requestNotFound);
    if (accepted && (await this.#blocks.eitherBlocked(userId, pending.initiator_id)))
      throw conflict(CHAT_MESSAGES.chatBlocked);
    const changed = await sql.run(
      `update chats set status = ?, updated_at = now() where id = ? and participant_id = ? and status = 'PENDING'`,
      [accepted ? 'ACTIVE' : 'DECLINED', chatId, userId],
    );
    if (!changed) throw notFound(CHAT_MESSAGES.requestNotFound);
    const chat = await this.#chat(sql, chatId);
    if (!accepted)
      await this.#notifications.send({
        userId: chat.initiator.id,
        type: 'GENERIC',
        title: CHAT_NOTICES.declinedTitle,
        body: CHAT_NOTICES.declined(chat.participant.handle),
        initiator: chat.participant,
        chatId: chat.id,
      });
    return chat;
  }

  /**
   * Stores a message of an ACTIVE chat of the sender's (neither of the two blocked the other) and bumps
   * the chat's activity. Answers the message and the other participant.
   */
  async sendPrivate(senderId: string, chatId: string, raw: string): Promise<SentPrivateMessage> {
    const check = checkChatText(raw, { privateChat: true });
    if (!check.ok) throw badRequest(check.message);
    const sql = this.#sql();
    const chat = await sql.one<{ initiator_id: string; participant_id: string }>(
      `select initiator_id, participant_id from chats
        where id = ? and status = 'ACTIVE' and (initiator_id = ? or participant_id = ?)`,
      [chatId, senderId, senderId],
    );
    if (!chat) throw notFound(CHAT_MESSAGES.chatNotFound);
    const recipientId = chat.initiator_id === senderId ? chat.participant_id : chat.initiator_id;
    if (await this.#blocks.eitherBlocked(senderId, recipientId)) throw forbidden(CHAT_MESSAGES.chatBlocked);
    const row = await sql.transaction(async (tx) => {
      await tx.run('update chats set updated_at = now() where id = ?', [chatId]);
      return tx.one<MessageRow>(
        `with m as (insert into chat_messages (chat_id, sender_id, content) values (?, ?, ?) returning *)
         select m.id, m.chat_id, m.sender_id, u.handle as sender_handle, m.content, m.created_at
           from m join users u on u.id = m.sender_id`,
        [chatId, senderId, check.text],
      );
    });
    return { message: toMessage(row!), recipientId };
  }

  /**
   * PRIVATE_MESSAGE to a recipient who is not on the grid: one unacknowledged notification per chat at a
   * time, not one per message.
   */
  async notifyOffline(message: ChatMessage, recipientId: string): Promise<void> {
    const waiting = await this.#sql().one(
      `select 1 from notifications
        where user_id = ? and chat_id = ? and type = 'PRIVATE_MESSAGE' and delivered_at is null`,
      [recipientId, message.chatId],
    );
    if (waiting) return;
    await this.#notifications.send({
      userId: recipientId,
      type: 'PRIVATE_MESSAGE',
      title: CHAT_NOTICES.messageTitle,
      body: CHAT_NOTICES.message(message.sender.handle),
      initiator: message.sender,
      chatId: message.chatId,
    });
  }

  /** The user's ACTIVE chats, the most recent activity first. */
  async active(userId: string): Promise<Chat[]> {
    const rows = await this.#sql().all<ChatRow>(
      `${CHAT_SELECT}
        where c.status = 'ACTIVE' and (c.initiator_id = ? or c.participant_id = ?)
        order by c.updated_at desc, c.id desc`,
      [userId, userId],
    );
    return rows.map(toChat);
  }

  /** Requests waiting for the user's answer, the newest first. */
  async pending(userId: string): Promise<Chat[]> {
    const rows = await this.#sql().all<ChatRow>(
      `${CHAT_SELECT}
        where c.status = 'PENDING' and c.participant_id = ?
        order by c.created_at desc, c.id desc`,
      [userId],
    );
    return rows.map(toChat);
  }

  /**
   * A page of a chat's messages for one of its two players (anyone else: not found), oldest first: the
   * newest `limit`, or those before the message `before`.
   */
  async messages(
    userId: string,
    chatId: string,
    options: { before?: string; limit?: number } = {},
  ): Promise<ChatMessage[]> {
    const sql = this.#sql();
    const chat = await sql.one(
      'select 1 from chats where id = ? and (initiator_id = ? or participant_id = ?)',
      [chatId, userId, userId],
    );
    if (!chat) throw notFound(CHAT_MESSAGES.chatNotFound);
    const { before } = options;
    const limit = options.limit ?? CHAT_MESSAGES_PAGE_SIZE;
    const rows = await sql.all<MessageRow>(
      `select m.id, m.chat_id, m.sender_id, u.handle as sender_handle, m.content, m.created_at
         from chat_messages m join users u on u.id = m.sender_id
        where m.chat_id = ?
          ${before ? 'and (m.created_at, m.id) < (select c.created_at, c.id from chat_messages c where c.id = ? and c.chat_id = m.chat_id)' : ''}
        order by m.created_at desc, m.id desc
        limit ?`,
      before ? [chatId, before, limit] : [chatId, limit],
    );
    return rows.reverse().map(toMessage);
  }

  async #chat(sql: Sql, chatId: string): Promise<Chat> {
    const row = await sql.one<ChatRow>(`${CHAT_SELECT} where c.id = ?`, [chatId]);
    if (!row) throw notFound(CHAT_MESSAGES.chatNotFound);
    return toChat(row);
  }
}

const iso = (value: string | Date) => new Date(value).toISOString();

function toGlobal(row: GlobalRow): GlobalChatMessage {
  return {
    id: row.id,
    senderId: row.sender_id,
    sender: { id: row.sender_id, handle: row.sender_handle },
    content: row.content,
    timestamp: iso(row.created_at),
  };
}

function toMessage(row: MessageRow): ChatMessage {
  return {
    id: row.id,
    chatId: row.chat_id,
    sender: { id: row.sender_id, handle: row.sender_handle },
    content: row.content,
    createdAt: iso(row.created_at),
  };
}

function toChat(row: ChatRow): Chat {
  return {
    id: row.id,
    initiator: { id: row.initiator_id, handle: row.initiator_handle },
    participant: { id: row.participant_id, handle: row.participant_handle },
    status: row.status,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    messages:
      row.m_id && row.m_sender_id && row.m_content !== null && row.m_created_at
        ? [
            {
              id: row.m_id,
              chatId: row.id,
              sender: { id: row.m_sender_id, handle: row.m_sender_handle ?? '' },
              content: row.m_content,
              createdAt: iso(row.m_created_at),
            },
          ]
        : [],
  };
}
