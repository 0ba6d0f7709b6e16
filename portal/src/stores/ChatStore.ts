import {
  CHAT_MESSAGES_PAGE_SIZE,
  CHAT_NOTICES,
  CHAT_REQUEST_PROMPT_MS,
  CHAT_SEND_TIMEOUT_MS,
  GLOBAL_CHAT_PAGE_SIZE,
  chatMessageSchema,
  chatSchema,
  checkChatText,
  type Chat,
  type ChatMessage,
  type EventAnswer,
  type GlobalChatMessage,
  type GlobalChatMessageEvent,
  type GridClientToServerEvents,
  type PlayerRef,
} from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { z } from 'zod';
import { toast } from '../notifications/toast.ts';
import type { GridSocket } from '../realtime/sockets.ts';
import { paths } from '../routes/paths.ts';
import {
  CHAT_ACCEPT_FAILED,
  CHAT_CONNECTION_LOST,
  CHAT_NOT_CONNECTED,
  CHAT_STARTED,
  chatRefreshFailed,
  chatRequestAnswered,
  chatRequestSent,
  messagesLoadFailed,
  socketErrorToast,
} from '../strings/chat.ts';
import { notificationText } from '../strings/grid.ts';
import type { RootStore } from './RootStore.ts';

/** How long an answer to a chat request may take before it counts as failed. */
export const CHAT_ANSWER_TIMEOUT_MS = 10_000;

/** The global channel keeps at most this many messages in memory (the newest); older ones load again on scroll. */
export const GLOBAL_CHAT_KEPT = 500;

/** A message as the portal shows it (core-app section 4 "Chat message states"). */
export type MessageStatus = 'optimistic' | 'confirmed' | 'failed';

/** One message of the global channel or of a private chat, sent by this operator or received. */
export type ChatEntry = {
  /** Stable for the list: the first tempId of a message sent here, or the server's id. */
  key: string;
  /** The server's id, once confirmed. */
  id: string | null;
  /** This client's id of a message it sent, until the echo confirms it (a retry takes a new one). */
  tempId: string | null;
  sender: PlayerRef;
  /** As stored or typed: components display it through stripTags. */
  content: string;
  at: string;
  status: MessageStatus;
};

/** The private chat open in a panel, and its messages (null while they load). */
export type OpenChat = { chatId: string; loading: boolean };

/** A chat request that just came in, offered on the Grid for 30 s (core-app section 9). */
export type ChatRequestPrompt = { chatId: string; initiator: PlayerRef };

/** What became of a message typed: sent (shown at once), refused by the rule (its text), or not sent (toasted). */
export type SendResult = { sent: true } | { sent: false; error: string | null };

const chatsAnswer = z.array(chatSchema);
/** The messages of a chat: a list, or a page `{messages}`; shown oldest first either way. */
const messagesAnswer = z.union([
  z.array(chatMessageSchema),
  z.object({ messages: z.array(chatMessageSchema) }).transform((page) => page.messages),
]);

const fromGlobal = (message: GlobalChatMessage): ChatEntry => ({
  key: message.id,
  id: message.id,
  tempId: null,
  sender: message.sender,
  content: message.content,
  at: message.timestamp,
  status: 'confirmed',
});

const fromPrivate = (message: ChatMessage): ChatEntry => ({
  key: message.id,
  id: message.id,
  tempId: null,
  sender: message.sender,
  content: message.content,
  at: message.createdAt,
  status: 'confirmed',
});

/**
 * Chat (core-app sections 2, 4, 5, 7, 8): the global channel of the Grid, private chats (requests, answers,
 * messages) and optimistic sending. Messages sent here show at once ('optimistic'), are confirmed by the
 * server's echo carrying their tempId, and fail after 15 s without one (or on `chat:privateMessageFailed`);
 * a failed message is retried with a new tempId. The RealtimeStore hands it the /grid socket.
 */
export class ChatStore {
  globalMessages: readonly ChatEntry[] = [];
  /** The server said there are older global messages (true until an older page says otherwise). */
  hasOlderGlobal = true;
  loadingOlder = false;
  /** ACTIVE private chats. */
  chats: readonly Chat[] = [];
  /** PENDING chats: requests to this operator, and their own waiting for an answer. */
  requests: readonly Chat[] = [];
  readonly messages = observable.map<string, readonly ChatEntry[]>([], { deep: false });
  /** Chats whose last page was full: there may be older messages (asked for with `?before=`). */
  readonly olderPrivate = observable.set<string>();
  loadingOlderPrivate = false;
  open: OpenChat | null = null;
  /** Requests that came in during the last 30 s, for the Grid's prompts. */
  requestPrompts: readonly ChatRequestPrompt[] = [];

  private readonly root: RootStore;
  private socket: GridSocket | null = null;
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly promptTimers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Bumped by every chat opened, and by a reset, so that an overtaken answer is dropped. */
  private revision = 0;
  /** Requests whose answer is on its way to the server. */
  private readonly answering = new Set<string>();

  constructor(root: RootStore) {
    this.root = root;
    makeObservable<
      this,
      | 'reset'
      | 'applyGlobal'
      | 'applyOlder'
      | 'applyPrivate'
      | 'markFailed'
      | 'addPrompt'
      | 'removePrompt'
      | 'forgetRequestsOf'
    >(this, {
      globalMessages: observableRef,
      hasOlderGlobal: observable,
      loadingOlder: observable,
      chats: observableRef,
      requests: observableRef,
      open: observableRef,
      loadingOlderPrivate: observable,
      requestPrompts: observableRef,
      visibleGlobalMessages: computed,
      openChatInfo: computed,
      incomingRequests: computed,
      sendGlobal: action,
      sendPrivate: action,
      retry: action,
      loadOlder: action,
      closeChat: action,
      respond: action,
      reset: action,
      applyGlobal: action,
      applyOlder: action,
      applyPrivate: action,
      markFailed: action,
      addPrompt: action,
      removePrompt: action,
      forgetRequestsOf: action,
    });
    reaction(
      () => this.root.auth.user?.id ?? null,
      () => this.reset(),
    );
  }

  // ---- derived state ------------------------------------------------------------------------

  get me(): string | null {
    return this.root.auth.user?.id ?? null;
  }

  /** The global channel without the messages of blocked operators. */
  get visibleGlobalMessages(): ChatEntry[] {
    return this.globalMessages.filter((entry) => !this.root.grid.isBlocked(entry.sender.id));
  }

  /** The chat open now, when it is known. */
  get openChatInfo(): Chat | null {
    const id = this.open?.chatId;
    if (!id) return null;
    return this.chats.find((chat) => chat.id === id) ?? null;
  }

  /** Requests this operator can answer. */
  get incomingRequests(): Chat[] {
    return this.requests.filter((chat) => chat.participant.id === this.me);
  }

  /** The other operator of a chat. */
  partnerOf(chat: Chat): PlayerRef {
    return chat.initiator.id === this.me ? chat.participant : chat.initiator;
  }

  messagesOf(chatId: string): readonly ChatEntry[] {
    return this.messages.get(chatId) ?? [];
  }

  // ---- the socket ---------------------------------------------------------------------------

  attach(socket: GridSocket) {
    this.socket = socket;
    socket.on('initialState', (state) =>
      runInAction(() => {
        // Messages sent here and not confirmed yet stay after the server's page.
        const server = state.globalChatMessages.map(fromGlobal);
        const ids = new Set(server.map((entry) => entry.id));
        const mine = this.globalMessages.filter(
          (entry) => entry.status !== 'confirmed' && !ids.has(entry.id),
        );
        this.globalMessages = [...server, ...mine];
        // The server sends its newest page: a shorter one is all there is.
        this.hasOlderGlobal = server.length >= GLOBAL_CHAT_PAGE_SIZE;
        this.loadingOlder = false;
      }),
    );
    socket.on('globalChatMessage', (...messages) => this.applyGlobal(messages));
    socket.on('olderGlobalChatMessages', ({ messages, hasMore }) => this.applyOlder(messages, hasMore));
    socket.on('chat:privateMessage', (message) => this.applyPrivate(message));
    socket.on('chat:privateMessageFailed', ({ tempId }) => this.markFailed(tempId));
    socket.on('userBlocked', ({ id }) => this.forgetRequestsOf(id));
    // A refused global message comes back as `error` with its tempId (the RealtimeStore toasts the text).
    socket.on('error', ({ tempId }) => {
      if (tempId) this.markFailed(tempId);
    });
    socket.on('chat:started', (chat) => {
      runInAction(() => {
        const active: Chat = { ...chat, status: 'ACTIVE' };
        this.chats = [active, ...this.chats.filter((c) => c.id !== chat.id)];
        this.requests = this.requests.filter((c) => c.id !== chat.id);
      });
      this.removePrompt(chat.id);
      toast.success(CHAT_STARTED);
    });
    // A request to this operator: the Requests tab learns of it, the Grid offers it for 30 s (the GridStore
    // plays its sound, and toasts it away from the Grid).
    socket.on('notification', (notification) => {
      if (notification.type !== 'CHAT_REQUEST') return;
      if (notification.chatId && notification.initiator)
        this.addPrompt({ chatId: notification.chatId, initiator: notification.initiator });
      void this.loadPending();
    });
  }

  detach() {
    this.socket = null;
  }

  // ---- the global channel -------------------------------------------------------------------

  /**
   * Sends a message to the global channel: the rule of section 5 first (its text is returned, nothing sent),
   * then shown at once and emitted with a new tempId.
   */
  sendGlobal(raw: string): SendResult {
    const check = checkChatText(raw);
    if (!check.ok) return { sent: false, error: check.message };
    if (!this.canSend()) return { sent: false, error: null };
    const tempId = crypto.randomUUID();
    const me = this.root.auth.user;
    this.globalMessages = [
      ...this.globalMessages,
      {
        key: tempId,
        id: null,
        tempId,
        sender: { id: me?.id ?? '', handle: me?.handle ?? '' },
        content: check.text,
        at: new Date().toISOString(),
        status: 'optimistic',
      },
    ];
    this.emit('chat:global', { message: check.text, tempId });
    this.startTimer(tempId);
    return { sent: true };
  }

  /** Asks for the page of global messages before the oldest one shown. */
  loadOlder() {
    const oldest = this.globalMessages.find((entry) => entry.id !== null);
    if (!oldest?.id || !this.hasOlderGlobal || this.loadingOlder) return;
    if (this.emit('chat:getOlderGlobalMessages', { cursor: oldest.id })) this.loadingOlder = true;
  }

  /** Messages of the global channel as they arrive: one, or several that travelled together, in order. */
  private applyGlobal(messages: GlobalChatMessageEvent[]) {
    let list = this.globalMessages;
    for (const message of messages) {
      if (list.some((entry) => entry.id === message.id)) continue;
      const entry = fromGlobal(message);
      const mine = message.tempId ? list.findIndex((e) => e.tempId === message.tempId && e.id === null) : -1;
      if (mine >= 0) {
        const sent = list[mine];
        if (sent?.tempId) this.clearTimer(sent.tempId);
        list = list.map((e, i) => (i === mine ? { ...entry, key: e.key } : e));
      } else {
        list = [...list, entry];
      }
    }
    // A busy channel does not grow the page without end: the oldest leave (scrolling up brings them back).
    if (list.length > GLOBAL_CHAT_KEPT) {
      list = list.slice(list.length - GLOBAL_CHAT_KEPT);
      this.hasOlderGlobal = true;
    }
    this.globalMessages = list;
  }

  private applyOlder(messages: GlobalChatMessage[], hasMore: boolean) {
    const ids = new Set(this.globalMessages.map((entry) => entry.id));
    const older = messages.filter((message) => !ids.has(message.id)).map(fromGlobal);
    this.globalMessages = [...older, ...this.globalMessages];
    this.hasOlderGlobal = hasMore;
    this.loadingOlder = false;
  }

  // ---- private chats ------------------------------------------------------------------------

  /** GET /chat: the ACTIVE chats. */
  async loadChats(): Promise<void> {
    try {
      const chats = await this.root.api.get('/chat', chatsAnswer);
      runInAction(() => (this.chats = chats.filter((chat) => chat.status === 'ACTIVE')));
    } catch (error) {
      toast.error(chatRefreshFailed(messageOf(error)));
    }
  }

  /** GET /chat/pending: the requests waiting for an answer. */
  async loadPending(): Promise<void> {
    try {
      const requests = await this.root.api.get('/chat/pending', chatsAnswer);
      runInAction(() => (this.requests = requests.filter((chat) => chat.status === 'PENDING')));
      // A request answered meanwhile (in another tab, say) is not offered any more.
      for (const prompt of this.requestPrompts)
        if (!this.requests.some((chat) => chat.id === prompt.chatId)) this.removePrompt(prompt.chatId);
    } catch (error) {
      toast.error(chatRefreshFailed(messageOf(error)));
    }
  }

  /** Both lists, as /chats and the panel's Private tab show them. */
  async refresh(): Promise<void> {
    await Promise.all([this.loadChats(), this.loadPending()]);
  }

  /** Opens a chat and loads its messages (GET /chat/{id}/messages); a failure closes it again. */
  async openChat(chatId: string): Promise<void> {
    const revision = ++this.revision;
    runInAction(() => (this.open = { chatId, loading: true }));
    try {
      const loaded = await this.root.api.get(`/chat/${encodeURIComponent(chatId)}/messages`, messagesAnswer);
      if (revision !== this.revision) return;
      runInAction(() => {
        const entries = oldestFirst(loaded);
        const ids = new Set(entries.map((entry) => entry.id));
        // Messages sent or received while the page was on its way stay.
        const kept = this.messagesOf(chatId).filter((entry) => !ids.has(entry.id));
        this.messages.set(chatId, [...entries, ...kept]);
        this.setOlderPrivate(chatId, loaded.length >= CHAT_MESSAGES_PAGE_SIZE);
        this.open = { chatId, loading: false };
      });
    } catch (error) {
      if (revision !== this.revision) return;
      runInAction(() => (this.open = null));
      toast.error(messagesLoadFailed(messageOf(error)));
    }
  }

  /** The open chat's page before its oldest message (GET /chat/{id}/messages?before=), put on top. */
  async loadOlderPrivate(): Promise<void> {
    const chatId = this.open?.chatId;
    if (!chatId || this.open?.loading || this.loadingOlderPrivate || !this.olderPrivate.has(chatId)) return;
    const oldest = this.messagesOf(chatId).find((entry) => entry.id !== null);
    if (!oldest?.id) return;
    const revision = this.revision;
    runInAction(() => (this.loadingOlderPrivate = true));
    const query = new URLSearchParams({ before: oldest.id, limit: String(CHAT_MESSAGES_PAGE_SIZE) });
    try {
      const loaded = await this.root.api.get(
        `/chat/${encodeURIComponent(chatId)}/messages?${query.toString()}`,
        messagesAnswer,
      );
      if (revision !== this.revision) return;
      runInAction(() => {
        const list = this.messagesOf(chatId);
        const ids = new Set(list.map((entry) => entry.id));
        const older = oldestFirst(loaded).filter((entry) => !ids.has(entry.id));
        this.messages.set(chatId, [...older, ...list]);
        this.setOlderPrivate(chatId, loaded.length >= CHAT_MESSAGES_PAGE_SIZE);
      });
    } catch (error) {
      if (revision === this.revision) toast.error(messagesLoadFailed(messageOf(error)));
    } finally {
      if (revision === this.revision) runInAction(() => (this.loadingOlderPrivate = false));
    }
  }

  private setOlderPrivate(chatId: string, more: boolean) {
    if (more) this.olderPrivate.add(chatId);
    else this.olderPrivate.delete(chatId);
  }

  closeChat() {
    this.revision += 1;
    this.open = null;
    this.loadingOlderPrivate = false;
  }

  /** Asks an operator for a private chat. */
  request(targetId: string) {
    if (!this.emit('chat:request', { targetId })) return;
    const handle = this.root.grid.players.get(targetId)?.handle;
    if (handle) toast.info(chatRequestSent(handle));
  }

  /**
   * Accepts or declines a request (from the Requests tab or the Grid's prompt). The server's answer comes back
   * to this call (an acknowledgement): then the request leaves the lists and the toast says how it went; an
   * accepted chat starts with `chat:started`. A refusal or no answer within 10 s: 'Failed to accept chat
   * request…' (the list is read again: the request may be gone).
   */
  respond(chatId: string, accepted: boolean) {
    const initiator =
      this.requests.find((chat) => chat.id === chatId)?.initiator ??
      this.requestPrompts.find((prompt) => prompt.chatId === chatId)?.initiator;
    if (this.answering.has(chatId) || !this.canSend() || !this.socket) return;
    this.answering.add(chatId);
    const done = (answer: EventAnswer) => {
      clearTimeout(timer);
      // Answered already (or timed out), or signed out meanwhile (reset forgets what was being answered).
      if (!this.answering.delete(chatId)) return;
      runInAction(() => {
        if (answer.ok) {
          this.requests = this.requests.filter((chat) => chat.id !== chatId);
          this.removePrompt(chatId);
          if (initiator) {
            const text = chatRequestAnswered(initiator.handle, accepted);
            if (accepted) toast.success(text);
            else toast.info(text);
          }
        } else {
          toast.error(accepted ? CHAT_ACCEPT_FAILED : socketErrorToast(answer.message));
          void this.loadPending();
        }
      });
    };
    const timer = setTimeout(() => done({ ok: false, message: CHAT_ACCEPT_FAILED }), CHAT_ANSWER_TIMEOUT_MS);
    this.socket.emit('chat:response', { chatId, accepted }, done);
  }

  /** A player just blocked: their requests leave at once (the server dropped them). */
  private forgetRequestsOf(userId: string) {
    for (const prompt of this.requestPrompts)
      if (prompt.initiator.id === userId) this.removePrompt(prompt.chatId);
    this.requests = this.requests.filter(
      (chat) => chat.initiator.id !== userId && chat.participant.id !== userId,
    );
  }

  /** Sends a private message, like the global channel but with the private wording of the HTML rule. */
  sendPrivate(chatId: string, raw: string): SendResult {
    const check = checkChatText(raw, { privateChat: true });
    if (!check.ok) return { sent: false, error: check.message };
    if (!this.canSend()) return { sent: false, error: null };
    const tempId = crypto.randomUUID();
    const me = this.root.auth.user;
    this.messages.set(chatId, [
      ...this.messagesOf(chatId),
      {
        key: tempId,
        id: null,
        tempId,
        sender: { id: me?.id ?? '', handle: me?.handle ?? '' },
        content: check.text,
        at: new Date().toISOString(),
        status: 'optimistic',
      },
    ]);
    this.emit('chat:privateMessage', { chatId, content: check.text, tempId });
    this.startTimer(tempId);
    return { sent: true };
  }

  private applyPrivate(message: ChatMessage & { tempId?: string }) {
    const list = this.messagesOf(message.chatId);
    if (list.some((entry) => entry.id === message.id)) return;
    const entry = fromPrivate(message);
    const mine = message.tempId ? list.findIndex((e) => e.tempId === message.tempId && e.id === null) : -1;
    if (mine >= 0) {
      if (message.tempId) this.clearTimer(message.tempId);
      this.messages.set(
        message.chatId,
        list.map((e, i) => (i === mine ? { ...entry, key: e.key } : e)),
      );
    } else {
      this.messages.set(message.chatId, [...list, entry]);
      // From the other player, and not in view: said as the PRIVATE_MESSAGE notification would be (section 8:
      // not on /chats). The server sends that notification only to a player with no socket.
      if (
        message.sender.id !== this.me &&
        this.open?.chatId !== message.chatId &&
        !this.root.currentPath().startsWith(paths.chats)
      )
        toast.info(notificationText(CHAT_NOTICES.messageTitle, CHAT_NOTICES.message(message.sender.handle)));
    }
    this.chats = this.chats.map((chat) =>
      chat.id === message.chatId ? { ...chat, messages: [message], updatedAt: message.createdAt } : chat,
    );
  }

  private addPrompt(prompt: ChatRequestPrompt) {
    this.requestPrompts = [...this.requestPrompts.filter((p) => p.chatId !== prompt.chatId), prompt];
    const existing = this.promptTimers.get(prompt.chatId);
    if (existing) clearTimeout(existing);
    this.promptTimers.set(
      prompt.chatId,
      setTimeout(() => this.removePrompt(prompt.chatId), CHAT_REQUEST_PROMPT_MS),
    );
  }

  /** The prompt goes; the request stays in the Requests tab until it is answered. */
  private removePrompt(chatId: string) {
    const timer = this.promptTimers.get(chatId);
    if (timer) clearTimeout(timer);
    this.promptTimers.delete(chatId);
    if (this.requestPrompts.some((p) => p.chatId === chatId))
      this.requestPrompts = this.requestPrompts.filter((p) => p.chatId !== chatId);
  }

  // ---- sending, failures, retries -----------------------------------------------------------

  /** Sends a failed message again, with a new tempId. */
  retry(tempId: string) {
    if (!this.canSend()) return;
    const fresh = crypto.randomUUID();
    const again = (entry: ChatEntry): ChatEntry => ({ ...entry, tempId: fresh, status: 'optimistic' });
    const global = this.globalMessages.find((e) => e.tempId === tempId && e.status === 'failed');
    if (global) {
      this.globalMessages = this.globalMessages.map((e) => (e === global ? again(e) : e));
      this.emit('chat:global', { message: global.content, tempId: fresh });
      this.startTimer(fresh);
      return;
    }
    for (const [chatId, list] of this.messages) {
      const failed = list.find((e) => e.tempId === tempId && e.status === 'failed');
      if (!failed) continue;
      this.messages.set(
        chatId,
        list.map((e) => (e === failed ? again(e) : e)),
      );
      this.emit('chat:privateMessage', { chatId, content: failed.content, tempId: fresh });
      this.startTimer(fresh);
      return;
    }
  }

  private markFailed(tempId: string) {
    this.clearTimer(tempId);
    const fail = (entry: ChatEntry): ChatEntry =>
      entry.tempId === tempId && entry.status === 'optimistic' ? { ...entry, status: 'failed' } : entry;
    if (this.globalMessages.some((e) => e.tempId === tempId)) {
      this.globalMessages = this.globalMessages.map(fail);
      return;
    }
    for (const [chatId, list] of this.messages)
      if (list.some((e) => e.tempId === tempId)) this.messages.set(chatId, list.map(fail));
  }

  private startTimer(tempId: string) {
    this.timers.set(
      tempId,
      setTimeout(() => this.markFailed(tempId), CHAT_SEND_TIMEOUT_MS),
    );
  }

  private clearTimer(tempId: string) {
    const timer = this.timers.get(tempId);
    if (timer) clearTimeout(timer);
    this.timers.delete(tempId);
  }

  /** The socket is there and up; otherwise a toast says why nothing is sent. */
  private canSend(): boolean {
    if (!this.socket) {
      toast.error(CHAT_NOT_CONNECTED);
      return false;
    }
    if (!this.root.realtime.connected) {
      toast.error(CHAT_CONNECTION_LOST);
      return false;
    }
    return true;
  }

  private emit<E extends keyof GridClientToServerEvents>(
    event: E,
    payload: Parameters<GridClientToServerEvents[E]>[0],
  ): boolean {
    if (!this.canSend() || !this.socket) return false;
    (this.socket.emit as (event: E, payload: unknown) => void)(event, payload);
    return true;
  }

  private reset() {
    for (const timer of [...this.timers.values(), ...this.promptTimers.values()]) clearTimeout(timer);
    this.timers.clear();
    this.promptTimers.clear();
    this.answering.clear();
    this.requestPrompts = [];
    this.olderPrivate.clear();
    this.loadingOlderPrivate = false;
    this.revision += 1;
    this.globalMessages = [];
    this.hasOlderGlobal = true;
    this.loadingOlder = false;
    this.chats = [];
    this.requests = [];
    this.messages.clear();
    this.open = null;
  }
}

/** A page of a private chat as entries, oldest first. */
function oldestFirst(page: readonly ChatMessage[]): ChatEntry[] {
  return [...page].sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(fromPrivate);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
