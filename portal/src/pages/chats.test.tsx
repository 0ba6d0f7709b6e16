import { GRID_NAMESPACE } from '@exploit-grid/api/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ACCEPT,
  AI_COMING,
  CHAT_STARTED,
  DECLINE,
  MESSAGE_LABEL,
  NO_REQUESTS,
  SELECT_CHAT,
  TAB_ACTIVE,
  TAB_AI,
  TAB_REQUESTS,
  chatWith,
} from '../strings/chat.ts';
import { fail, reply, type FakeReply } from '../testing/fakeApi.ts';
import type { FakeSocket } from '../testing/fakeSockets.ts';
import { privateChat, privateMessage } from '../testing/chat.ts';
import { acid, crash } from '../testing/grid.ts';
import { renderSignedIn } from '../test-utils.tsx';
import { messageText } from '../testing/chat.ts';

async function renderChats(routes: Record<string, FakeReply> = {}) {
  const rendered = renderSignedIn('/chats', {
    'GET /chat': reply(200, []),
    'GET /chat/pending': reply(200, []),
    ...routes,
  });
  await screen.findByRole('heading', { name: 'Chats', level: 1 }, { timeout: 5000 });
  await waitFor(() => expect(rendered.sockets.open(GRID_NAMESPACE)).toHaveLength(1));
  const [grid] = rendered.sockets.open(GRID_NAMESPACE) as [FakeSocket];
  act(() => grid.receive('connect'));
  return { ...rendered, grid };
}

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

describe('the Chats page', () => {
  it("is titled 'Chats | Exploit Grid' and prompts to select a chat", async () => {
    await renderChats();
    await waitFor(() => expect(document.title).toBe('Chats | Exploit Grid'));
    expect(screen.getByText(SELECT_CHAT)).toBeTruthy();
  });

  it('opens an active chat with its messages, stripped of tags, and sends in it', async () => {
    const active = privateChat();
    const { grid } = await renderChats({
      'GET /chat': reply(200, [active]),
      [`GET /chat/${active.id}/messages`]: reply(200, [privateMessage(active.id, acid, '<b>hi</b>')]),
    });
    const list = await screen.findByRole('list', { name: TAB_ACTIVE });
    fireEvent.click(within(list).getByRole('button', { name: acid.handle }));
    const conversation = await screen.findByRole('list', { name: chatWith(acid.handle) });
    const message = within(conversation).getByRole('listitem');
    expect(messageText(message)).toBe('acid_burnhi');
    // Each message says when it was sent, in the viewer's time zone, the moment itself machine-readable.
    expect(message.querySelector('time')?.getAttribute('dateTime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const box = screen.getByRole('textbox', { name: MESSAGE_LABEL });
    fireEvent.change(box, { target: { value: 'hey' } });
    fireEvent.keyDown(box, { key: 'Enter' });
    expect(grid.payloads('chat:privateMessage')).toEqual([
      expect.objectContaining({ chatId: active.id, content: 'hey' }),
    ]);
  });

  it("says 'Failed to load messages: {message}' and closes the chat", async () => {
    const active = privateChat();
    await renderChats({
      'GET /chat': reply(200, [active]),
      [`GET /chat/${active.id}/messages`]: fail(500, 'Database down'),
    });
    const list = await screen.findByRole('list', { name: TAB_ACTIVE });
    fireEvent.click(within(list).getByRole('button', { name: acid.handle }));
    expect(await screen.findByText('Failed to load messages: Database down')).toBeTruthy();
    expect(screen.getByText(SELECT_CHAT)).toBeTruthy();
  });

  it("says 'Failed to refresh chat data: {message}' when the lists fail", async () => {
    await renderChats({ 'GET /chat': fail(503, 'Try later') });
    expect(await screen.findByText('Failed to refresh chat data: Try later')).toBeTruthy();
  });

  it('accepts and declines requests', async () => {
    const fromAcid = privateChat({ status: 'PENDING' });
    const fromCrash = privateChat({ initiator: crash, status: 'PENDING' });
    const { grid } = await renderChats({ 'GET /chat/pending': reply(200, [fromAcid, fromCrash]) });
    fireEvent.click(await screen.findByRole('tab', { name: `${TAB_REQUESTS} (2)` }));
    const requests = screen.getByRole('list', { name: TAB_REQUESTS });
    const [acidRow, crashRow] = within(requests).getAllByRole('listitem') as [HTMLElement, HTMLElement];
    fireEvent.click(within(acidRow).getByRole('button', { name: ACCEPT }));
    act(() => grid.acknowledge('chat:response', { ok: true }));
    expect(await screen.findByText('Chat request from acid_burn accepted.')).toBeTruthy();
    fireEvent.click(within(crashRow).getByRole('button', { name: DECLINE }));
    act(() => grid.acknowledge('chat:response', { ok: true }));
    expect(await screen.findByText('Chat request from crash_override declined.')).toBeTruthy();
    expect(grid.payloads('chat:response')).toEqual([
      { chatId: fromAcid.id, accepted: true },
      { chatId: fromCrash.id, accepted: false },
    ]);
    expect(screen.getByText(NO_REQUESTS)).toBeTruthy();

    act(() => grid.receive('chat:started', { ...fromAcid, status: 'ACTIVE' }));
    expect(await screen.findByText(CHAT_STARTED)).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: TAB_ACTIVE }));
    expect(within(screen.getByRole('list', { name: TAB_ACTIVE })).getByText(acid.handle)).toBeTruthy();
  });

  it('has an AI tab, coming soon', async () => {
    await renderChats();
    fireEvent.click(screen.getByRole('tab', { name: TAB_AI }));
    expect(screen.getAllByText(AI_COMING).length).toBeGreaterThan(0);
  });
});
