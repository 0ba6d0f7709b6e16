import {
  CHAT_MESSAGES,
  CHAT_SEND_TIMEOUT_MS,
  GLOBAL_CHAT_PAGE_SIZE,
  GRID_NAMESPACE,
  type Chat,
  type ChatMessage,
  type GlobalChatMessage,
  type GridInitialState,
  type PlayerRef,
} from '@exploit-grid/api/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CHAT_ACCEPT_FAILED,
  CHAT_CONNECTION_LOST,
  CHAT_NOT_CONNECTED,
  CHAT_STARTED,
} from '../strings/chat.ts';
import { fail, fakeApi, reply, testUser, type FakeReply } from '../testing/fakeApi.ts';
import { fakeSockets, type FakeSocket } from '../testing/fakeSockets.ts';
import { acid, crash, gridPlayer, me } from '../testing/grid.ts';
import { RootStore } from './RootStore.ts';

const toasts = vi.hoisted(() => ({
  show: vi.fn<(message: string) => void>(),
  info: vi.fn<(message: string) => void>(),
  success: vi.fn<(message: string) => void>(),
  error: vi.fn<(message: string) => void>(),
}));
vi.mock('../notifications/toast.ts', () => ({ toast: toasts }));

let idCount = 0;
const nextId = (prefix: string) => `${prefix}-0000-4000-8000-${String(++idCount).padStart(12, '0')}`;

const globalMessage = (
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

const chat = (fields: Partial<Chat> = {}): Chat => ({
  id: nextId('50000000'),
  initiator: acid,
  participant: me,
  status: 'ACTIVE',
  createdAt: '2026-03-01T12:00:00.000Z',
  updatedAt: '2026-03-01T12:00:00.000Z',
  lastMessage: null,
  ...fields,
});

const privateMessage = (chatId: string, sender: PlayerRef, content: string): ChatMessage => ({
  id: nextId('60000000'),
  chatId,
  sender,
  content,
  createdAt: '2026-03-01T12:00:00.000Z',
});

const emptyState: GridInitialState = { players: [], attacks: [], globalChatMessages: [], blockedUsers: [] };

const stores: RootStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) {
    store.realtime.stop();
    store.dispose();
  }
  vi.useRealTimers();
  vi.clearAllMocks();
});

/** A signed-in store whose /grid socket is open, connected, and has had its initial state. */
async function onGrid(routes: Record<string, FakeReply> = {}, state: Partial<GridInitialState> = {}) {
  const api = fakeApi({
    'GET /users/me': reply(200, testUser),
    'GET /attack/queue/estimate': reply(200, { estimateSeconds: -1 }),
    ...routes,
  });
  const sockets = fakeSockets();
  const store = new RootStore({ socketFactory: sockets.factory });
  stores.push(store);
  store.auth.setAccessToken('token-1');
  await store.auth.loadUser();
  store.realtime.start();
  const grid = sockets.open(GRID_NAMESPACE)[0] as FakeSocket;
  grid.receive('connect');
  grid.receive('initialState', { ...emptyState, ...state });
  return { store, api, grid, chat: store.chat };
}

const emittedOf = (socket: FakeSocket, event: string) =>
  socket.emitted.filter((e) => e.event === event).map((e) => e.args[0]);

async function settle() {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('the global channel', () => {
  it('starts with the messages of the initial state', async () => {
    const hello = globalMessage(acid, 'hello grid');
    const { chat } = await onGrid({}, { globalChatMessages: [hello] });
    expect(chat.globalMessages.map((m) => [m.content, m.status])).toEqual([['hello grid', 'confirmed']]);
  });

  it.each([
    ['', CHAT_MESSAGES.empty],
    ['   ', CHAT_MESSAGES.empty],
    ['x'.repeat(2001), CHAT_MESSAGES.tooLong],
    ['<b>hi</b>', CHAT_MESSAGES.html],
    ['<script>alert(1)</script>', CHAT_MESSAGES.html],
  ])('refuses %j with the spec text and sends nothing', async (text, message) => {
    const { chat, grid } = await onGrid();
    expect(chat.sendGlobal(text)).toEqual({ sent: false, error: message });
    expect(emittedOf(grid, 'chat:global')).toEqual([]);
    expect(chat.globalMessages).toEqual([]);
  });

  it('shows a message at once, then the echo with its tempId confirms it', async () => {
    const { chat, grid } = await onGrid();
    expect(chat.sendGlobal('  hack the planet  ')).toEqual({ sent: true });
    const [payload] = emittedOf(grid, 'chat:global') as [{ message: string; tempId: string }];
    expect(payload.message).toBe('hack the planet');
    expect(payload.tempId).toMatch(/^[0-9a-f-]{36}$/);
    expect(chat.globalMessages.map((m) => [m.content, m.status])).toEqual([
      ['hack the planet', 'optimistic'],
    ]);

    const echo = globalMessage(me, 'hack the planet');
    grid.receive('globalChatMessage', { ...echo, tempId: payload.tempId });
    expect(chat.globalMessages).toHaveLength(1);
    expect(chat.globalMessages[0]).toMatchObject({ id: echo.id, status: 'confirmed' });
  });

  it('ignores a message whose id it already has', async () => {
    const hello = globalMessage(acid, 'hello');
    const { chat, grid } = await onGrid({}, { globalChatMessages: [hello] });
    grid.receive('globalChatMessage', hello);
    grid.receive('globalChatMessage', { ...hello, content: 'again' });
    const other = globalMessage(crash, 'hi acid');
    grid.receive('globalChatMessage', other);
    grid.receive('globalChatMessage', other);
    expect(chat.globalMessages.map((m) => m.content)).toEqual(['hello', 'hi acid']);
  });

  it('marks a message failed after 15 s without an echo, and retries it with a new tempId', async () => {
    const { chat, grid } = await onGrid();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    chat.sendGlobal('anyone there?');
    const [first] = emittedOf(grid, 'chat:global') as [{ tempId: string }];
    vi.advanceTimersByTime(CHAT_SEND_TIMEOUT_MS - 1);
    expect(chat.globalMessages[0]?.status).toBe('optimistic');
    vi.advanceTimersByTime(1);
    expect(chat.globalMessages[0]?.status).toBe('failed');

    chat.retry(first.tempId);
    const [, second] = emittedOf(grid, 'chat:global') as [unknown, { message: string; tempId: string }];
    expect(second.message).toBe('anyone there?');
    expect(second.tempId).not.toBe(first.tempId);
    expect(chat.globalMessages.map((m) => m.status)).toEqual(['optimistic']);
    grid.receive('globalChatMessage', { ...globalMessage(me, 'anyone there?'), tempId: second.tempId });
    vi.advanceTimersByTime(CHAT_SEND_TIMEOUT_MS);
    expect(chat.globalMessages.map((m) => m.status)).toEqual(['confirmed']);
  });

  it('asks for older messages before the oldest one and prepends them', async () => {
    const page = Array.from({ length: GLOBAL_CHAT_PAGE_SIZE }, (_, i) => globalMessage(acid, `m${i}`));
    const { chat, grid } = await onGrid({}, { globalChatMessages: page });
    expect(chat.hasOlderGlobal).toBe(true);
    chat.loadOlder();
    chat.loadOlder();
    expect(emittedOf(grid, 'chat:getOlderGlobalMessages')).toEqual([{ cursor: page[0]!.id }]);
    grid.receive('olderGlobalChatMessages', {
      messages: [globalMessage(crash, 'first'), globalMessage(acid, 'second'), page[0]!],
      hasMore: false,
    });
    expect(chat.globalMessages.map((m) => m.content).slice(0, 4)).toEqual(['first', 'second', 'm0', 'm1']);
    expect(chat.globalMessages).toHaveLength(GLOBAL_CHAT_PAGE_SIZE + 2);
    expect(chat.hasOlderGlobal).toBe(false);
    chat.loadOlder();
    expect(emittedOf(grid, 'chat:getOlderGlobalMessages')).toHaveLength(1);
  });

  it('asks for nothing older when the first page was not full (that is all there is)', async () => {
    const { chat, grid } = await onGrid({}, { globalChatMessages: [globalMessage(acid, 'only')] });
    expect(chat.hasOlderGlobal).toBe(false);
    chat.loadOlder();
    expect(emittedOf(grid, 'chat:getOlderGlobalMessages')).toEqual([]);
  });

  it('hides the messages of blocked operators', async () => {
    const { chat, grid } = await onGrid(
      {},
      {
        globalChatMessages: [globalMessage(acid, 'from acid'), globalMessage(crash, 'from crash')],
        blockedUsers: [acid],
      },
    );
    expect(chat.visibleGlobalMessages.map((m) => m.content)).toEqual(['from crash']);
    grid.receive('userUnblocked', { id: acid.id });
    expect(chat.visibleGlobalMessages.map((m) => m.content)).toEqual(['from acid', 'from crash']);
  });

  it("says 'Connection lost…' when the socket is down, and nothing is sent", async () => {
    const { chat, grid } = await onGrid();
    grid.receive('disconnect');
    expect(chat.sendGlobal('hello')).toEqual({ sent: false, error: null });
    expect(toasts.error).toHaveBeenCalledWith(CHAT_CONNECTION_LOST);
    expect(chat.globalMessages).toEqual([]);
  });

  it("says 'Not connected to server…' without a socket", async () => {
    fakeApi({ 'GET /users/me': reply(200, testUser) });
    const store = new RootStore({ socketFactory: fakeSockets().factory });
    stores.push(store);
    store.chat.request(acid.id);
    expect(toasts.error).toHaveBeenCalledWith(CHAT_NOT_CONNECTED);
  });
});

describe('private chats', () => {
  it('loads the active chats and the requests', async () => {
    const active = chat();
    const pending = chat({ initiator: crash, status: 'PENDING' });
    const { chat: store } = await onGrid({
      'GET /chat': reply(200, [active]),
      'GET /chat/pending': reply(200, [pending]),
    });
    await store.refresh();
    expect(store.chats.map((c) => c.id)).toEqual([active.id]);
    expect(store.incomingRequests.map((c) => c.id)).toEqual([pending.id]);
    expect(store.partnerOf(active)).toEqual(acid);
  });

  it("toasts 'Failed to refresh chat data: {message}' when a list fails", async () => {
    const { chat: store } = await onGrid({
      'GET /chat': fail(500, 'Database down'),
      'GET /chat/pending': fail(503, 'Try later'),
    });
    await store.refresh();
    expect(toasts.error).toHaveBeenCalledWith('Failed to refresh chat data: Database down');
    expect(toasts.error).toHaveBeenCalledWith('Failed to refresh chat data: Try later');
  });

  it("opens a chat with its messages; a failure toasts 'Failed to load messages: {message}' and closes it", async () => {
    const active = chat();
    const hi = privateMessage(active.id, acid, 'hi');
    const { chat: store, api } = await onGrid({
      'GET /chat': reply(200, [active]),
      [`GET /chat/${active.id}/messages`]: reply(200, [hi]),
    });
    await store.loadChats();
    await store.openChat(active.id);
    expect(store.open).toEqual({ chatId: active.id, loading: false });
    expect(store.messagesOf(active.id).map((m) => m.content)).toEqual(['hi']);

    api.on(`GET /chat/${active.id}/messages`, fail(403, 'Chat not found.'));
    await store.openChat(active.id);
    expect(store.open).toBeNull();
    expect(toasts.error).toHaveBeenCalledWith('Failed to load messages: Chat not found.');
  });

  it('sends a chat request, with a toast naming the operator', async () => {
    const { chat: store, grid } = await onGrid({}, { players: [gridPlayer(acid)] });
    store.request(acid.id);
    expect(emittedOf(grid, 'chat:request')).toEqual([{ targetId: acid.id }]);
    expect(toasts.info).toHaveBeenCalledWith('Chat request sent to acid_burn.');
  });

  it('accepts and declines requests: emitted, removed, toasted', async () => {
    const fromAcid = chat({ status: 'PENDING' });
    const fromCrash = chat({ initiator: crash, status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [fromAcid, fromCrash]) });
    await store.loadPending();
    store.respond(fromAcid.id, true);
    store.respond(fromCrash.id, false);
    expect(emittedOf(grid, 'chat:response')).toEqual([
      { chatId: fromAcid.id, accepted: true },
      { chatId: fromCrash.id, accepted: false },
    ]);
    expect(store.requests).toEqual([]);
    expect(toasts.success).toHaveBeenCalledWith('Chat request from acid_burn accepted.');
    expect(toasts.info).toHaveBeenCalledWith('Chat request from crash_override declined.');
  });

  it("says 'Failed to accept chat request…' when the answer cannot go out, and keeps the request", async () => {
    const fromAcid = chat({ status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [fromAcid]) });
    await store.loadPending();
    grid.receive('disconnect');
    store.respond(fromAcid.id, true);
    expect(toasts.error).toHaveBeenCalledWith(CHAT_ACCEPT_FAILED);
    expect(store.requests).toHaveLength(1);
  });

  it("adds a started chat to the active ones with 'Chat started!…'", async () => {
    const pending = chat({ initiator: me, participant: acid, status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [pending]) });
    await store.loadPending();
    grid.receive('chat:started', { ...pending, status: 'ACTIVE' });
    expect(toasts.success).toHaveBeenCalledWith(CHAT_STARTED);
    expect(store.chats.map((c) => c.id)).toEqual([pending.id]);
    expect(store.requests).toEqual([]);
  });

  it('refreshes the requests when a CHAT_REQUEST notification arrives', async () => {
    const pending = chat({ status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [pending]) });
    grid.receive('notification', {
      id: nextId('30000000'),
      type: 'CHAT_REQUEST',
      title: 'Chat request',
      body: 'acid_burn wants to chat.',
      initiator: acid,
      chatId: pending.id,
      attackId: null,
      createdAt: '2026-03-01T12:00:00.000Z',
    });
    await settle();
    expect(store.requests.map((c) => c.id)).toEqual([pending.id]);
  });

  it('validates private messages with the private wording', async () => {
    const { chat: store, grid } = await onGrid();
    expect(store.sendPrivate('c', '<i>x</i>')).toEqual({ sent: false, error: CHAT_MESSAGES.htmlPrivate });
    expect(store.sendPrivate('c', '')).toEqual({ sent: false, error: CHAT_MESSAGES.empty });
    expect(store.sendPrivate('c', 'y'.repeat(2001))).toEqual({ sent: false, error: CHAT_MESSAGES.tooLong });
    expect(emittedOf(grid, 'chat:privateMessage')).toEqual([]);
  });

  it('sends a private message optimistically; the echo confirms it, a failure event fails it, a retry resends', async () => {
    const active = chat();
    const { chat: store, grid } = await onGrid();
    store.sendPrivate(active.id, 'meet at the arcade');
    store.sendPrivate(active.id, 'bring the disk');
    const [first, second] = emittedOf(grid, 'chat:privateMessage') as {
      chatId: string;
      content: string;
      tempId: string;
    }[];
    expect(first).toMatchObject({ chatId: active.id, content: 'meet at the arcade' });
    expect(store.messagesOf(active.id).map((m) => m.status)).toEqual(['optimistic', 'optimistic']);

    const echo = privateMessage(active.id, me, 'meet at the arcade');
    grid.receive('chat:privateMessage', { ...echo, tempId: first?.tempId });
    grid.receive('chat:privateMessage', echo);
    grid.receive('chat:privateMessageFailed', { tempId: second?.tempId, message: 'Too fast' });
    expect(store.messagesOf(active.id).map((m) => [m.content, m.status])).toEqual([
      ['meet at the arcade', 'confirmed'],
      ['bring the disk', 'failed'],
    ]);

    store.retry(second?.tempId ?? '');
    const third = emittedOf(grid, 'chat:privateMessage')[2] as { tempId: string; content: string };
    expect(third.content).toBe('bring the disk');
    expect(third.tempId).not.toBe(second?.tempId);
    expect(store.messagesOf(active.id).map((m) => m.status)).toEqual(['confirmed', 'optimistic']);
  });

  it('fails a private message after 15 s without an echo', async () => {
    const { chat: store } = await onGrid();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    store.sendPrivate('chat-1', 'ping');
    vi.advanceTimersByTime(CHAT_SEND_TIMEOUT_MS);
    expect(store.messagesOf('chat-1').map((m) => m.status)).toEqual(['failed']);
  });

  it("adds other operators' messages to their chat", async () => {
    const active = chat();
    const { chat: store, grid } = await onGrid();
    grid.receive('chat:privateMessage', privateMessage(active.id, acid, 'psst'));
    expect(store.messagesOf(active.id).map((m) => [m.sender.handle, m.content])).toEqual([
      ['acid_burn', 'psst'],
    ]);
  });
});
