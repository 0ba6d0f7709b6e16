import {
  CHAT_MESSAGES_PAGE_SIZE,
  CHAT_NOTICES,
  CHAT_REQUEST_PROMPT_MS,
  GLOBAL_CHAT_PAGE_SIZE,
  chatMessageSchema,
  chatSchema,
  checkChatText,
  type Chat,
  type ChatMessage,
  type ChatTextCheck,
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
import { MessageThread, type ChatEntry } from './MessageThread.ts';
import type { RootStore } from './RootStore.ts';

/** How long an answer to a chat request may take before it counts as failed. */
export const CHAT_ANSWER_TIMEOUT_MS = 10_000;

/** The global channel keeps at most this many messages in memory (the newest); older ones load again on scroll. */
export const GLOBAL_CHAT_KEPT = 500;

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
 * messages) and optimistic sending. Each list of messages is a MessageThread: messages sent here show at once
 * ('optimistic'), are confirmed by the server's echo carrying their tempId, and fail after 15 s without one
 * (or on `chat:privateMessageFailed`, or the global channel's `error`); a failed message is retried with a new
 * tempId. The RealtimeStore hands it the /grid socket.
 */
export class ChatStore {
  /** The server said there are older global messages (true until an older page says otherwise). */
  hasOlderGlobal = true;
  loadingOlder = false;
  /** ACTIVE private chats. */
  chats: readonly Chat[] = [];
  /** PENDING chats: requests to this operator, and their own waiting for an answer. */
  requests: readonly Chat[] = [];
  /** Chats whose last page was full: there may be older messages (asked for with `?before=`). */
  readonly olderPrivate = observable.set<string>();
  loadingOlderPrivate = false;
  open: OpenChat | null = null;
  /** Requests that came in during the last 30 s, for the Grid's prompts. */
  requestPrompts: readonly ChatRequestPrompt[] = [];

  private readonly root: RootStore;
  private socket: GridSocket | null = null;
  private readonly global = new MessageThread(
    (content, tempId) => this.emit('chat:global', { message: content, tempId }),
    { kept: GLOBAL_CHAT_KEPT },
  );
  /** The messages of the private chats opened or written to, by chat id. */
  private readonly threads = observable.map<string, MessageThread>([], { deep: false });
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
      | 'addPrompt'
      | 'removePrompt'
      | 'forgetRequestsOf'
    >(this, {
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

  get globalMessages(): readonly ChatEntry[] {
    return this.global.entries;
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
    return this.threads.get(chatId)?.entries ?? [];
  }

  // ---- the socket ---------------------------------------------------------------------------

  attach(socket: GridSocket) {
    this.socket = socket;
    socket.on('initialState', (state) =>
      runInAction(() => {
        // Messages sent here and not confirmed yet stay after the server's page.
        const server = state.globalChatMessages.map(fromGlobal);
        this.global.load(server, (entry) => entry.status !== 'confirmed');
        // The server sends its newest page: a shorter one is all there is.
        this.hasOlderGlobal = server.length >= GLOBAL_CHAT_PAGE_SIZE;
        this.loadingOlder = false;
      }),
    );
    socket.on('globalChatMessage', (...messages) => this.applyGlobal(messages));
    socket.on('olderGlobalChatMessages', ({ messages, hasMore }) => this.applyOlder(messages, hasMore));
    socket.on('chat:privateMessage', (message) => this.applyPrivate(message));
    socket.on('chat:privateMessageFailed', ({ tempId }) => this.fail(tempId));
    socket.on('userBlocked', ({ id }) => this.forgetRequestsOf(id));
    // A refused global message comes back as `error` with its tempId (the RealtimeStore toasts the text).
    socket.on('error', ({ tempId }) => {
      if (tempId) this.fail(tempId);
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
    return this.send(this.global, checkChatText(raw));
  }

  /** Asks for the page of global messages before the oldest one shown. */
  loadOlder() {
    const oldest = this.global.oldestId();
    if (!oldest || !this.hasOlderGlobal || this.loadingOlder) return;
    if (this.emit('chat:getOlderGlobalMessages', { cursor: oldest })) this.loadingOlder = true;
  }

  /** Messages of the global channel as they arrive: one, or several that travelled together, in order. */
  private applyGlobal(messages: GlobalChatMessageEvent[]) {
    for (const message of messages) this.global.receive(fromGlobal(message), message.tempId);
    // A busy channel does not grow the page without end: the oldest leave (scrolling up brings them back).
    if (this.global.trim()) this.hasOlderGlobal = true;
  }

  private applyOlder(messages: GlobalChatMessage[], hasMore: boolean) {
    this.global.prepend(messages.map(fromGlobal));
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
        // Messages sent or received while the page was on its way stay.
        this.thread(chatId).load(oldestFirst(loaded));
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
    const oldest = this.threads.get(chatId)?.oldestId();
    if (!oldest) return;
    const revision = this.revision;
    runInAction(() => (this.loadingOlderPrivate = true));
    const query = new URLSearchParams({ before: oldest, limit: String(CHAT_MESSAGES_PAGE_SIZE) });
    try {
      const loaded = await this.root.api.get(
        `/chat/${encodeURIComponent(chatId)}/messages?${query.toString()}`,
        messagesAnswer,
      );
      if (revision !== this.revision) return;
      runInAction(() => {
        this.thread(chatId).prepend(oldestFirst(loaded));
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
    return this.send(this.thread(chatId), checkChatText(raw, { privateChat: true }));
  }

  private applyPrivate(message: ChatMessage & { tempId?: string }) {
    const received = this.thread(message.chatId).receive(fromPrivate(message), message.tempId);
    if (received === 'known') return;
    // From the other player, and not in view: said as the PRIVATE_MESSAGE notification would be (section 8:
    // not on /chats). The server sends that notification only to a player with no socket.
    if (
      received === 'added' &&
      message.sender.id !== this.me &&
      this.open?.chatId !== message.chatId &&
      !this.root.currentPath().startsWith(paths.chats)
    )
      toast.info(notificationText(CHAT_NOTICES.messageTitle, CHAT_NOTICES.message(message.sender.handle)));
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

  /** A message typed, to the global channel or a private chat, once the rule has checked it. */
  private send(thread: MessageThread, check: ChatTextCheck): SendResult {
    if (!check.ok) return { sent: false, error: check.message };
    if (!this.canSend()) return { sent: false, error: null };
    const me = this.root.auth.user;
    thread.send({ id: me?.id ?? '', handle: me?.handle ?? '' }, check.text);
    return { sent: true };
  }

  /** Sends a failed message again, with a new tempId. */
  retry(tempId: string) {
    if (!this.canSend()) return;
    for (const thread of this.allThreads()) if (thread.retry(tempId)) return;
  }

  /** The message sent with this tempId was refused. */
  private fail(tempId: string) {
    for (const thread of this.allThreads()) thread.fail(tempId);
  }

  /** The thread of a private chat, made when first needed. */
  private thread(chatId: string): MessageThread {
    let thread = this.threads.get(chatId);
    if (!thread) {
      thread = new MessageThread((content, tempId) =>
        this.emit('chat:privateMessage', { chatId, content, tempId }),
      );
      this.threads.set(chatId, thread);
    }
    return thread;
  }

  private allThreads(): MessageThread[] {
    return [this.global, ...this.threads.values()];
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
    for (const timer of this.promptTimers.values()) clearTimeout(timer);
    this.promptTimers.clear();
    for (const thread of this.allThreads()) thread.clear();
    this.threads.clear();
    this.answering.clear();
    this.requestPrompts = [];
    this.olderPrivate.clear();
    this.loadingOlderPrivate = false;
    this.revision += 1;
    this.hasOlderGlobal = true;
    this.loadingOlder = false;
    this.chats = [];
    this.requests = [];
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
