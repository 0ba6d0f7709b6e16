import {
  CHAT_MESSAGES,
  CHAT_MESSAGES_PAGE_SIZE,
  CHAT_REQUEST_PROMPT_MS,
  CHAT_SEND_TIMEOUT_MS,
  GLOBAL_CHAT_PAGE_SIZE,
  GRID_NAMESPACE,
  type GridInitialState,
} from '@exploit-grid/api/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CHAT_ACCEPT_FAILED,
  CHAT_CONNECTION_LOST,
  CHAT_NOT_CONNECTED,
  CHAT_STARTED,
} from '../strings/chat.ts';
import {
  deferred,
  fail,
  fakeApi,
  reply,
  testUser,
  type FakeHandler,
  type FakeReply,
} from '../testing/fakeApi.ts';
import { fakeSockets, type FakeSocket } from '../testing/fakeSockets.ts';
import { chatRequestNotification, globalMessage, privateChat, privateMessage } from '../testing/chat.ts';
import { acid, crash, gridPlayer, me } from '../testing/grid.ts';
import { CHAT_ANSWER_TIMEOUT_MS, GLOBAL_CHAT_KEPT } from './ChatStore.ts';
import { RootStore } from './RootStore.ts';

const toasts = vi.hoisted(() => ({
  show: vi.fn<(message: string) => void>(),
  info: vi.fn<(message: string) => void>(),
  success: vi.fn<(message: string) => void>(),
  error: vi.fn<(message: string) => void>(),
}));
vi.mock('../notifications/toast.ts', () => ({ toast: toasts }));

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
async function onGrid(
  routes: Record<string, FakeHandler | FakeReply> = {},
  state: Partial<GridInitialState> = {},
) {
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
    expect(grid.payloads('chat:global')).toEqual([]);
    expect(chat.globalMessages).toEqual([]);
  });

  it('shows a message at once, then the echo with its tempId confirms it', async () => {
    const { chat, grid } = await onGrid();
    expect(chat.sendGlobal('  hack the planet  ')).toEqual({ sent: true });
    const [payload] = grid.payloads('chat:global') as [{ message: string; tempId: string }];
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

  it('takes several messages of one event in order, confirming its own among them', async () => {
    const { chat, grid } = await onGrid();
    chat.sendGlobal('mine');
    const [payload] = grid.payloads('chat:global') as [{ tempId: string }];
    const before = globalMessage(acid, 'first');
    const after = globalMessage(crash, 'third');
    grid.receive(
      'globalChatMessage',
      before,
      { ...globalMessage(me, 'mine'), tempId: payload.tempId },
      after,
      before,
    );
    // The optimistic one keeps its place (it was shown first); the others follow in the order they came.
    expect(chat.globalMessages.map((m) => [m.content, m.status])).toEqual([
      ['mine', 'confirmed'],
      ['first', 'confirmed'],
      ['third', 'confirmed'],
    ]);
  });

  it(`keeps the newest ${GLOBAL_CHAT_KEPT} global messages of a busy channel, and offers the older again`, async () => {
    const { chat, grid } = await onGrid();
    const burst = Array.from({ length: GLOBAL_CHAT_KEPT + 20 }, (_, i) => globalMessage(acid, `m${i}`));
    grid.receive('globalChatMessage', ...burst.slice(0, 10));
    expect(chat.hasOlderGlobal).toBe(false);
    grid.receive('globalChatMessage', ...burst.slice(10));
    expect(chat.globalMessages).toHaveLength(GLOBAL_CHAT_KEPT);
    expect(chat.globalMessages[0]?.content).toBe('m20');
    expect(chat.globalMessages.at(-1)?.content).toBe(`m${GLOBAL_CHAT_KEPT + 19}`);
    expect(chat.hasOlderGlobal).toBe(true);
  });

  it('marks a global message failed at once when the server refuses it by its tempId', async () => {
    const { chat, grid } = await onGrid();
    chat.sendGlobal('too fast');
    chat.sendGlobal('fine');
    const [first] = grid.payloads('chat:global') as [{ tempId: string }];
    grid.receive('error', { message: CHAT_MESSAGES.rateLimited, tempId: first.tempId });
    expect(chat.globalMessages.map((m) => [m.content, m.status])).toEqual([
      ['too fast', 'failed'],
      ['fine', 'optimistic'],
    ]);
  });

  it('marks a message failed after 15 s without an echo, and retries it with a new tempId', async () => {
    const { chat, grid } = await onGrid();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    chat.sendGlobal('anyone there?');
    const [first] = grid.payloads('chat:global') as [{ tempId: string }];
    vi.advanceTimersByTime(CHAT_SEND_TIMEOUT_MS - 1);
    expect(chat.globalMessages[0]?.status).toBe('optimistic');
    vi.advanceTimersByTime(1);
    expect(chat.globalMessages[0]?.status).toBe('failed');

    chat.retry(first.tempId);
    const [, second] = grid.payloads('chat:global') as [unknown, { message: string; tempId: string }];
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
    expect(grid.payloads('chat:getOlderGlobalMessages')).toEqual([{ cursor: page[0]!.id }]);
    grid.receive('olderGlobalChatMessages', {
      messages: [globalMessage(crash, 'first'), globalMessage(acid, 'second'), page[0]!],
      hasMore: false,
    });
    expect(chat.globalMessages.map((m) => m.content).slice(0, 4)).toEqual(['first', 'second', 'm0', 'm1']);
    expect(chat.globalMessages).toHaveLength(GLOBAL_CHAT_PAGE_SIZE + 2);
    expect(chat.hasOlderGlobal).toBe(false);
    chat.loadOlder();
    expect(grid.payloads('chat:getOlderGlobalMessages')).toHaveLength(1);
  });

  it('asks for nothing older when the first page was not full (that is all there is)', async () => {
    const { chat, grid } = await onGrid({}, { globalChatMessages: [globalMessage(acid, 'only')] });
    expect(chat.hasOlderGlobal).toBe(false);
    chat.loadOlder();
    expect(grid.payloads('chat:getOlderGlobalMessages')).toEqual([]);
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
    const active = privateChat();
    const pending = privateChat({ initiator: crash, status: 'PENDING' });
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
    const active = privateChat();
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

  it('loads the page before the oldest message of the open chat while the last page was full', async () => {
    const active = privateChat();
    const at = (i: number) => new Date(Date.UTC(2026, 2, 1, 12, 0, i)).toISOString();
    const page = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) =>
        privateMessage(active.id, acid, `m${from + i}`, { createdAt: at(from + i) }),
      );
    const newest = page(30, CHAT_MESSAGES_PAGE_SIZE);
    const older = page(0, 30);
    const { chat: store, api } = await onGrid({
      'GET /chat': reply(200, [active]),
      [`GET /chat/${active.id}/messages`]: reply(200, newest),
      [`GET /chat/${active.id}/messages?before=${newest[0]?.id}&limit=${CHAT_MESSAGES_PAGE_SIZE}`]: reply(
        200,
        older,
      ),
    });
    await store.openChat(active.id);
    expect(store.olderPrivate.has(active.id)).toBe(true);

    await store.loadOlderPrivate();
    const contents = store.messagesOf(active.id).map((m) => m.content);
    expect(contents).toHaveLength(80);
    expect(contents.slice(0, 2)).toEqual(['m0', 'm1']);
    expect(contents.at(-1)).toBe('m79');
    // A short page was the last one: nothing more is asked for.
    expect(store.olderPrivate.has(active.id)).toBe(false);
    await store.loadOlderPrivate();
    expect(api.calls.filter((c) => c.path.includes('before='))).toHaveLength(1);
  });

  it('asks for no older page of a chat whose first page was short', async () => {
    const active = privateChat();
    const { chat: store, api } = await onGrid({
      [`GET /chat/${active.id}/messages`]: reply(200, [privateMessage(active.id, acid, 'only one')]),
    });
    await store.openChat(active.id);
    await store.loadOlderPrivate();
    expect(store.olderPrivate.has(active.id)).toBe(false);
    expect(api.calls.filter((c) => c.path.includes('before='))).toEqual([]);
  });

  it("toasts 'Failed to load messages: {message}' when an older page fails, and keeps what it shows", async () => {
    const active = privateChat();
    const newest = Array.from({ length: CHAT_MESSAGES_PAGE_SIZE }, (_, i) =>
      privateMessage(active.id, acid, `m${i}`),
    );
    const { chat: store } = await onGrid({
      [`GET /chat/${active.id}/messages`]: reply(200, newest),
      [`GET /chat/${active.id}/messages?before=${newest[0]?.id}&limit=${CHAT_MESSAGES_PAGE_SIZE}`]: fail(
        500,
        'Database down',
      ),
    });
    await store.openChat(active.id);
    await store.loadOlderPrivate();
    expect(toasts.error).toHaveBeenCalledWith('Failed to load messages: Database down');
    expect(store.messagesOf(active.id)).toHaveLength(CHAT_MESSAGES_PAGE_SIZE);
    expect(store.open).toEqual({ chatId: active.id, loading: false });
    expect(store.loadingOlderPrivate).toBe(false);
  });

  it('sends a chat request, with a toast naming the operator', async () => {
    const { chat: store, grid } = await onGrid({}, { players: [gridPlayer(acid)] });
    store.request(acid.id);
    expect(grid.payloads('chat:request')).toEqual([{ targetId: acid.id }]);
    expect(toasts.info).toHaveBeenCalledWith('Chat request sent to acid_burn.');
  });

  it('accepts and declines requests: emitted, removed and toasted once the server answers', async () => {
    const fromAcid = privateChat({ status: 'PENDING' });
    const fromCrash = privateChat({ initiator: crash, status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [fromAcid, fromCrash]) });
    await store.loadPending();
    store.respond(fromAcid.id, true);
    store.respond(fromCrash.id, false);
    store.respond(fromCrash.id, false); // a second click while the first is on its way
    expect(grid.payloads('chat:response')).toEqual([
      { chatId: fromAcid.id, accepted: true },
      { chatId: fromCrash.id, accepted: false },
    ]);
    expect(store.requests).toHaveLength(2);
    expect(toasts.success).not.toHaveBeenCalled();
    grid.acknowledge('chat:response', { ok: true });
    expect(store.requests).toEqual([]);
    expect(toasts.success).toHaveBeenCalledWith('Chat request from acid_burn accepted.');
    expect(toasts.info).toHaveBeenCalledWith('Chat request from crash_override declined.');
  });

  it("says 'Failed to accept chat request…' when the server refuses or does not answer, and reads the requests again", async () => {
    const fromAcid = privateChat({ status: 'PENDING' });
    const fromCrash = privateChat({ initiator: crash, status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [fromAcid, fromCrash]) });
    await store.loadPending();
    store.respond(fromAcid.id, true);
    grid.acknowledge('chat:response', { ok: false, message: 'That chat request is no longer open.' });
    expect(toasts.error).toHaveBeenCalledWith(CHAT_ACCEPT_FAILED);
    expect(toasts.success).not.toHaveBeenCalled();

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    store.respond(fromCrash.id, true);
    vi.advanceTimersByTime(CHAT_ANSWER_TIMEOUT_MS);
    expect(toasts.error).toHaveBeenCalledTimes(2);
    grid.acknowledge('chat:response', { ok: true }); // too late: nothing more
    vi.useRealTimers();
    expect(toasts.success).not.toHaveBeenCalled();
    await settle();
    expect(store.requests.map((c) => c.id)).toEqual([fromAcid.id, fromCrash.id]);
  });

  it("says 'Connection lost…' when the answer cannot go out, and keeps the request", async () => {
    const fromAcid = privateChat({ status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [fromAcid]) });
    await store.loadPending();
    grid.receive('disconnect');
    store.respond(fromAcid.id, true);
    expect(toasts.error).toHaveBeenCalledWith(CHAT_CONNECTION_LOST);
    expect(grid.payloads('chat:response')).toEqual([]);
    expect(store.requests).toHaveLength(1);
  });

  it('forgets the requests of a player just blocked', async () => {
    const fromAcid = privateChat({ status: 'PENDING' });
    const fromCrash = privateChat({ initiator: crash, status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [fromAcid, fromCrash]) });
    await store.loadPending();
    grid.receive('notification', chatRequestNotification(fromAcid));
    grid.receive('userBlocked', acid);
    expect(store.requests.map((c) => c.id)).toEqual([fromCrash.id]);
    expect(store.requestPrompts).toEqual([]);
  });

  it("adds a started chat to the active ones with 'Chat started!…'", async () => {
    const pending = privateChat({ initiator: me, participant: acid, status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [pending]) });
    await store.loadPending();
    grid.receive('chat:started', { ...pending, status: 'ACTIVE' });
    expect(toasts.success).toHaveBeenCalledWith(CHAT_STARTED);
    expect(store.chats.map((c) => c.id)).toEqual([pending.id]);
    expect(store.requests).toEqual([]);
  });

  it('refreshes the requests when a CHAT_REQUEST notification arrives', async () => {
    const pending = privateChat({ status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [pending]) });
    grid.receive('notification', chatRequestNotification(pending));
    await settle();
    expect(store.requests.map((c) => c.id)).toEqual([pending.id]);
  });

  it('offers a request that came in for 30 s; it stays in the Requests tab after that', async () => {
    const pending = privateChat({ status: 'PENDING' });
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': reply(200, [pending]) });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    grid.receive('notification', chatRequestNotification(pending));
    expect(store.requestPrompts).toEqual([{ chatId: pending.id, initiator: acid }]);
    vi.advanceTimersByTime(CHAT_REQUEST_PROMPT_MS - 1);
    expect(store.requestPrompts).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(store.requestPrompts).toEqual([]);
    vi.useRealTimers();
    await settle();
    expect(store.incomingRequests.map((c) => c.id)).toEqual([pending.id]);
  });

  it('answers a request from its prompt: emitted, the prompt and the request gone, toasted with the handle', async () => {
    const fromAcid = privateChat({ status: 'PENDING' });
    const fromCrash = privateChat({ initiator: crash, status: 'PENDING' });
    // The answer can go out before the Requests list has loaded.
    const { chat: store, grid } = await onGrid({ 'GET /chat/pending': () => deferred<FakeReply>().promise });
    grid.receive('notification', chatRequestNotification(fromAcid));
    grid.receive('notification', chatRequestNotification(fromCrash));
    store.respond(fromAcid.id, true);
    store.respond(fromCrash.id, false);
    expect(grid.payloads('chat:response')).toEqual([
      { chatId: fromAcid.id, accepted: true },
      { chatId: fromCrash.id, accepted: false },
    ]);
    grid.acknowledge('chat:response', { ok: true });
    expect(store.requestPrompts).toEqual([]);
    expect(toasts.success).toHaveBeenCalledWith('Chat request from acid_burn accepted.');
    expect(toasts.info).toHaveBeenCalledWith('Chat request from crash_override declined.');
  });

  it('drops the prompt of a request answered elsewhere (started, or gone from the pending list)', async () => {
    const first = privateChat({ status: 'PENDING' });
    const second = privateChat({ initiator: crash, status: 'PENDING' });
    const { chat: store, grid, api } = await onGrid({ 'GET /chat/pending': reply(200, [first, second]) });
    grid.receive('notification', chatRequestNotification(first));
    grid.receive('notification', chatRequestNotification(second));
    await settle();
    expect(store.requestPrompts.map((p) => p.chatId)).toEqual([first.id, second.id]);

    grid.receive('chat:started', { ...first, status: 'ACTIVE' });
    expect(store.requestPrompts.map((p) => p.chatId)).toEqual([second.id]);

    api.on('GET /chat/pending', reply(200, []));
    await store.loadPending();
    expect(store.requestPrompts).toEqual([]);
  });

  it('validates private messages with the private wording', async () => {
    const { chat: store, grid } = await onGrid();
    expect(store.sendPrivate('c', '<i>x</i>')).toEqual({ sent: false, error: CHAT_MESSAGES.htmlPrivate });
    expect(store.sendPrivate('c', '')).toEqual({ sent: false, error: CHAT_MESSAGES.empty });
    expect(store.sendPrivate('c', 'y'.repeat(2001))).toEqual({ sent: false, error: CHAT_MESSAGES.tooLong });
    expect(grid.payloads('chat:privateMessage')).toEqual([]);
  });

  it('sends a private message optimistically; the echo confirms it, a failure event fails it, a retry resends', async () => {
    const active = privateChat();
    const { chat: store, grid } = await onGrid();
    store.sendPrivate(active.id, 'meet at the arcade');
    store.sendPrivate(active.id, 'bring the disk');
    const [first, second] = grid.payloads('chat:privateMessage') as {
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
    const third = grid.payloads('chat:privateMessage')[2] as { tempId: string; content: string };
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

  it("toasts another operator's private message away from /chats unless its chat is open", async () => {
    const active = privateChat();
    const other = privateChat({ initiator: crash });
    const { chat: store, grid } = await onGrid({
      [`GET /chat/${active.id}/messages`]: reply(200, []),
    });
    await store.openChat(active.id);
    grid.receive('chat:privateMessage', privateMessage(active.id, acid, 'in view'));
    grid.receive('chat:privateMessage', privateMessage(other.id, crash, 'elsewhere'));
    grid.receive('chat:privateMessage', {
      ...privateMessage(other.id, me, 'mine'),
      tempId: 'from-another-tab',
    });
    expect(toasts.info.mock.calls).toEqual([['New message: crash_override sent you a message.']]);

    window.history.pushState({}, '', '/chats');
    try {
      grid.receive('chat:privateMessage', privateMessage(other.id, crash, 'on /chats'));
    } finally {
      window.history.pushState({}, '', '/');
    }
    expect(toasts.info).toHaveBeenCalledTimes(1);
  });

  it("words the server's error event 'Socket error: {message}' on /chats, 'Connection error: {message}' elsewhere", async () => {
    const { grid } = await onGrid();
    grid.receive('error', { message: CHAT_MESSAGES.chatPending });
    window.history.pushState({}, '', '/chats');
    try {
      grid.receive('error', { message: CHAT_MESSAGES.chatExists });
    } finally {
      window.history.pushState({}, '', '/');
    }
    expect(toasts.error.mock.calls).toEqual([
      [`Connection error: ${CHAT_MESSAGES.chatPending}`],
      [`Socket error: ${CHAT_MESSAGES.chatExists}`],
    ]);
  });

  it("adds other operators' messages to their chat", async () => {
    const active = privateChat();
    const { chat: store, grid } = await onGrid();
    grid.receive('chat:privateMessage', privateMessage(active.id, acid, 'psst'));
    expect(store.messagesOf(active.id).map((m) => [m.sender.handle, m.content])).toEqual([
      ['acid_burn', 'psst'],
    ]);
  });
});
