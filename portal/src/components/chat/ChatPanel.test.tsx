import {
  CHAT_MESSAGES,
  CHAT_MESSAGES_PAGE_SIZE,
  GLOBAL_CHAT_PAGE_SIZE,
  GRID_NAMESPACE,
  VPN_STATUS_NAMESPACE,
  type GridInitialState,
} from '@exploit-grid/api/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ACCEPT,
  CHAT_PANEL,
  CHAT_REQUEST_TITLE,
  HIDE_CHAT,
  LOAD_OLDER,
  MESSAGE_LABEL,
  RETRY,
  SHOW_CHAT,
  TAB_BLOCKED,
  TAB_GLOBAL,
  TAB_PRIVATE,
  UNBLOCK,
  chatWith,
  wantsToChat,
} from '../../strings/chat.ts';
import { CHAT, OPERATORS_ONLINE } from '../../strings/grid.ts';
import { reply, type FakeReply } from '../../testing/fakeApi.ts';
import type { FakeSocket } from '../../testing/fakeSockets.ts';
import { chatRequestNotification, globalMessage, privateChat, privateMessage } from '../../testing/chat.ts';
import { acid, crash, gridPlayer, me, targetInfo } from '../../testing/grid.ts';
import { renderSignedIn } from '../../test-utils.tsx';
import { messageText } from '../../testing/chat.ts';

async function renderGrid(state: Partial<GridInitialState> = {}, routes: Record<string, FakeReply> = {}) {
  const rendered = renderSignedIn('/attack', {
    'GET /attack/queue/estimate': reply(200, { estimateSeconds: -1 }),
    ...routes,
  });
  await waitFor(() => expect(rendered.sockets.open(GRID_NAMESPACE)).toHaveLength(1), { timeout: 5000 });
  const [grid] = rendered.sockets.open(GRID_NAMESPACE) as [FakeSocket];
  const [vpn] = rendered.sockets.open(VPN_STATUS_NAMESPACE) as [FakeSocket];
  act(() => {
    grid.receive('connect');
    grid.receive('initialState', {
      players: [gridPlayer(acid), gridPlayer(crash), gridPlayer(me)],
      attacks: [],
      globalChatMessages: [],
      blockedUsers: [],
      ...state,
    });
    vpn.receive('connect');
  });
  const panel = await screen.findByRole('region', { name: CHAT_PANEL });
  return { ...rendered, grid, panel };
}

const input = (panel: HTMLElement) => within(panel).getByRole('textbox', { name: MESSAGE_LABEL });

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

describe("the Grid's chat panel", () => {
  it('shows the global messages stripped of tags, and hides those of blocked operators', async () => {
    const { panel } = await renderGrid({
      globalChatMessages: [globalMessage(acid, '<b>hi</b>'), globalMessage(crash, 'from crash')],
      blockedUsers: [crash],
    });
    const list = within(panel).getByRole('list', { name: TAB_GLOBAL });
    expect(within(list).getAllByRole('listitem').map(messageText)).toEqual(['acid_burnhi']);
  });

  it('can be hidden and shown again', async () => {
    await renderGrid();
    fireEvent.click(screen.getByRole('button', { name: HIDE_CHAT }));
    expect(screen.queryByRole('region', { name: CHAT_PANEL })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: SHOW_CHAT }));
    expect(screen.getByRole('region', { name: CHAT_PANEL })).toBeTruthy();
  });

  it('sends on Enter, not on Shift+Enter; the message shows dimmed until the echo confirms it', async () => {
    const { panel, grid } = await renderGrid();
    const box = input(panel);
    fireEvent.change(box, { target: { value: 'hello grid' } });
    fireEvent.keyDown(box, { key: 'Enter', shiftKey: true });
    expect(grid.payloads('chat:global')).toEqual([]);
    fireEvent.keyDown(box, { key: 'Enter' });
    const [payload] = grid.payloads('chat:global') as [{ message: string; tempId: string }];
    expect(payload.message).toBe('hello grid');
    expect((box as HTMLTextAreaElement).value).toBe('');
    const item = within(panel).getByText('hello grid').closest('li') as HTMLElement;
    expect(item.dataset.status).toBe('optimistic');

    act(() =>
      grid.receive('globalChatMessage', { ...globalMessage(me, 'hello grid'), tempId: payload.tempId }),
    );
    expect((within(panel).getByText('hello grid').closest('li') as HTMLElement).dataset.status).toBe(
      'confirmed',
    );
  });

  it.each([
    ['   ', CHAT_MESSAGES.empty],
    ['x'.repeat(2001), CHAT_MESSAGES.tooLong],
    ['<script>alert(1)</script>', CHAT_MESSAGES.html],
  ])('shows why %j is refused, and sends nothing', async (text, message) => {
    const { panel, grid } = await renderGrid();
    fireEvent.change(input(panel), { target: { value: text } });
    fireEvent.keyDown(input(panel), { key: 'Enter' });
    expect(within(panel).getByText(message)).toBeTruthy();
    expect(grid.payloads('chat:global')).toEqual([]);
  });

  it('loads older messages from the top', async () => {
    const page = Array.from({ length: GLOBAL_CHAT_PAGE_SIZE }, (_, i) => globalMessage(acid, `m${i}`));
    const { panel, grid } = await renderGrid({ globalChatMessages: page });
    fireEvent.click(within(panel).getByRole('button', { name: LOAD_OLDER }));
    expect(grid.payloads('chat:getOlderGlobalMessages')).toEqual([{ cursor: page[0]!.id }]);
    act(() =>
      grid.receive('olderGlobalChatMessages', { messages: [globalMessage(crash, 'oldest')], hasMore: false }),
    );
    const list = within(panel).getByRole('list', { name: TAB_GLOBAL });
    expect(within(list).getAllByRole('listitem').slice(0, 2).map(messageText)).toEqual([
      'crash_overrideoldest',
      'acid_burnm0',
    ]);
    expect(within(panel).queryByRole('button', { name: LOAD_OLDER })).toBeNull();
  });

  it('offers no older messages when the first page was not full', async () => {
    const { panel } = await renderGrid({ globalChatMessages: [globalMessage(acid, 'only')] });
    expect(within(panel).queryByRole('button', { name: LOAD_OLDER })).toBeNull();
  });

  it('lists the blocked operators with Unblock', async () => {
    const { panel, grid } = await renderGrid({ blockedUsers: [acid] });
    fireEvent.click(within(panel).getByRole('tab', { name: TAB_BLOCKED }));
    const list = within(panel).getByRole('list', { name: TAB_BLOCKED });
    fireEvent.click(within(list).getByRole('button', { name: UNBLOCK }));
    expect(grid.payloads('chat:unblock')).toEqual([{ unblockUserId: acid.id }]);
  });

  it('loads older messages of a private chat from its Load older button', async () => {
    const active = privateChat();
    const newest = Array.from({ length: CHAT_MESSAGES_PAGE_SIZE }, (_, i) =>
      privateMessage(active.id, acid, `new ${i}`),
    );
    const { panel, api } = await renderGrid(
      {},
      {
        'GET /chat': reply(200, [active]),
        'GET /chat/pending': reply(200, []),
        [`GET /chat/${active.id}/messages`]: reply(200, newest),
        [`GET /chat/${active.id}/messages?before=${newest[0]?.id}&limit=${CHAT_MESSAGES_PAGE_SIZE}`]: reply(
          200,
          [privateMessage(active.id, acid, 'the very first')],
        ),
      },
    );
    fireEvent.click(within(panel).getByRole('tab', { name: TAB_PRIVATE }));
    fireEvent.click(await within(panel).findByRole('button', { name: acid.handle }));
    fireEvent.click(await within(panel).findByRole('button', { name: LOAD_OLDER }));
    expect(await within(panel).findByText('the very first')).toBeTruthy();
    expect(api.callsTo(`GET /chat/${active.id}/messages?before=${newest[0]?.id}&limit=50`)).toHaveLength(1);
    // That page was short: the button goes.
    expect(within(panel).queryByRole('button', { name: LOAD_OLDER })).toBeNull();
  });

  it('opens a private chat; a failed message offers Retry, which resends it with a new tempId', async () => {
    const active = privateChat();
    const { panel, grid } = await renderGrid(
      {},
      {
        'GET /chat': reply(200, [active]),
        'GET /chat/pending': reply(200, []),
        [`GET /chat/${active.id}/messages`]: reply(200, []),
      },
    );
    fireEvent.click(within(panel).getByRole('tab', { name: TAB_PRIVATE }));
    fireEvent.click(await within(panel).findByRole('button', { name: acid.handle }));
    const box = await within(panel).findByRole('textbox', { name: MESSAGE_LABEL });
    fireEvent.change(box, { target: { value: '<i>psst</i>' } });
    fireEvent.keyDown(box, { key: 'Enter' });
    expect(within(panel).getByText(CHAT_MESSAGES.htmlPrivate)).toBeTruthy();
    fireEvent.change(box, { target: { value: 'psst' } });
    fireEvent.keyDown(box, { key: 'Enter' });
    const [first] = grid.payloads('chat:privateMessage') as [{ tempId: string }];
    expect(first).toMatchObject({ chatId: active.id, content: 'psst' });

    act(() => grid.receive('chat:privateMessageFailed', { tempId: first.tempId, message: 'Too fast' }));
    const list = within(panel).getByRole('list', { name: chatWith(acid.handle) });
    fireEvent.click(within(list).getByRole('button', { name: RETRY }));
    const [, second] = grid.payloads('chat:privateMessage') as [unknown, { tempId: string; content: string }];
    expect(second.content).toBe('psst');
    expect(second.tempId).not.toBe(first.tempId);
  });
});

describe('chat requests on the Grid', () => {
  it('offers a request that comes in; Accept answers it and the chat starts', async () => {
    const request = privateChat({ status: 'PENDING' });
    const { grid } = await renderGrid({}, { 'GET /chat/pending': reply(200, [request]) });
    act(() => grid.receive('notification', chatRequestNotification(request)));
    const card = await screen.findByRole('region', { name: CHAT_REQUEST_TITLE });
    expect(within(card).getByText(wantsToChat(acid.handle))).toBeTruthy();
    fireEvent.click(within(card).getByRole('button', { name: ACCEPT }));
    expect(grid.payloads('chat:response')).toEqual([{ chatId: request.id, accepted: true }]);
    act(() => grid.acknowledge('chat:response', { ok: true }));
    expect(screen.queryByText(wantsToChat(acid.handle))).toBeNull();
    expect(await screen.findByText('Chat request from acid_burn accepted.')).toBeTruthy();
  });
});

describe("the target popup's Chat button", () => {
  it('sends a chat request and says so', async () => {
    const { grid } = await renderGrid(
      {},
      { [`GET /attack/target-info/${acid.id}`]: reply(200, targetInfo(acid, 40)) },
    );
    const list = await screen.findByRole('list', { name: OPERATORS_ONLINE });
    fireEvent.click(within(list).getByRole('button', { name: new RegExp(acid.handle) }));
    const popup = await screen.findByRole('region', { name: acid.handle });
    fireEvent.click(within(popup).getByRole('button', { name: CHAT }));
    expect(grid.payloads('chat:request')).toEqual([{ targetId: acid.id }]);
    expect(await screen.findByText('Chat request sent to acid_burn.')).toBeTruthy();
  });
});
