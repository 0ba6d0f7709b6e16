import { CHAT_SEND_TIMEOUT_MS } from '@exploit-grid/api/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { acid, crash, me } from '../testing/grid.ts';
import { MessageThread, type ChatEntry } from './MessageThread.ts';

let count = 0;
/** A message as the server has it: confirmed, with an id of its own. */
const fromServer = (content: string, sender = acid): ChatEntry => {
  const id = `60000000-0000-4000-8000-${String(++count).padStart(12, '0')}`;
  return { key: id, id, tempId: null, sender, content, at: '2026-03-01T12:00:00.000Z', status: 'confirmed' };
};

/** A thread whose sends are recorded: `sent[i]` is the i-th `{content, tempId}` put on the socket. */
function thread(options: { kept?: number } = {}) {
  const sent: { content: string; tempId: string }[] = [];
  const messages = new MessageThread((content, tempId) => sent.push({ content, tempId }), options);
  const lastTempId = () => sent.at(-1)?.tempId ?? '';
  const rows = () => messages.entries.map((entry) => [entry.content, entry.status]);
  return { messages, sent, lastTempId, rows };
}

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
afterEach(() => vi.useRealTimers());

describe('MessageThread', () => {
  it('shows a message sent at once, sends it with a new tempId, and the echo confirms it in its place', () => {
    const { messages, sent, lastTempId, rows } = thread();
    messages.receive(fromServer('before'), undefined);
    messages.send(me, 'mine');
    expect(sent).toEqual([{ content: 'mine', tempId: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
    expect(rows()).toEqual([
      ['before', 'confirmed'],
      ['mine', 'optimistic'],
    ]);
    const key = messages.entries[1]?.key;
    messages.receive(fromServer('after'), undefined);
    const echo = fromServer('mine', me);
    expect(messages.receive(echo, lastTempId())).toBe('confirmed');
    expect(rows()).toEqual([
      ['before', 'confirmed'],
      ['mine', 'confirmed'],
      ['after', 'confirmed'],
    ]);
    // The list keeps the row it drew: the key stays the first tempId.
    expect(messages.entries[1]).toMatchObject({ key, id: echo.id });
  });

  it('ignores a message whose id it already has, and adds the others at the end', () => {
    const { messages, rows } = thread();
    const hello = fromServer('hello');
    expect(messages.receive(hello, undefined)).toBe('added');
    expect(messages.receive({ ...hello, content: 'again' }, undefined)).toBe('known');
    expect(messages.receive(fromServer('hi', crash), 'a tempId of another client')).toBe('added');
    expect(rows()).toEqual([
      ['hello', 'confirmed'],
      ['hi', 'confirmed'],
    ]);
  });

  it('fails a message after 15 s without an echo, and retries it with a new tempId', () => {
    const { messages, sent, lastTempId, rows } = thread();
    messages.send(me, 'anyone there?');
    const first = lastTempId();
    vi.advanceTimersByTime(CHAT_SEND_TIMEOUT_MS - 1);
    expect(rows()).toEqual([['anyone there?', 'optimistic']]);
    vi.advanceTimersByTime(1);
    expect(rows()).toEqual([['anyone there?', 'failed']]);

    expect(messages.retry(first)).toBe(true);
    expect(sent.map((s) => s.content)).toEqual(['anyone there?', 'anyone there?']);
    expect(lastTempId()).not.toBe(first);
    expect(messages.entries[0]?.tempId).toBe(lastTempId());
    expect(rows()).toEqual([['anyone there?', 'optimistic']]);
    messages.receive(fromServer('anyone there?', me), lastTempId());
    vi.advanceTimersByTime(CHAT_SEND_TIMEOUT_MS);
    expect(rows()).toEqual([['anyone there?', 'confirmed']]);
  });

  it('fails at once a message refused by its tempId, and retries only a failed one of its own', () => {
    const { messages, sent, lastTempId, rows } = thread();
    messages.send(me, 'too fast');
    const refused = lastTempId();
    messages.send(me, 'fine');
    messages.fail(refused);
    expect(rows()).toEqual([
      ['too fast', 'failed'],
      ['fine', 'optimistic'],
    ]);
    expect(messages.retry(lastTempId())).toBe(false);
    expect(messages.retry('a tempId of another thread')).toBe(false);
    expect(sent).toHaveLength(2);
    // The other still waits for its echo, and fails on its own.
    vi.advanceTimersByTime(CHAT_SEND_TIMEOUT_MS);
    expect(rows()).toEqual([
      ['too fast', 'failed'],
      ['fine', 'failed'],
    ]);
  });

  it('confirms a failed message whose echo comes late', () => {
    const { messages, lastTempId, rows } = thread();
    messages.send(me, 'slow');
    messages.fail(lastTempId());
    expect(messages.receive(fromServer('slow', me), lastTempId())).toBe('confirmed');
    expect(rows()).toEqual([['slow', 'confirmed']]);
  });

  it('keeps the newest `kept` messages when trimmed, and says when older ones left', () => {
    const { messages, rows } = thread({ kept: 3 });
    for (const content of ['m0', 'm1', 'm2']) messages.receive(fromServer(content), undefined);
    expect(messages.trim()).toBe(false);
    for (const content of ['m3', 'm4']) messages.receive(fromServer(content), undefined);
    expect(messages.trim()).toBe(true);
    expect(rows().map(([content]) => content)).toEqual(['m2', 'm3', 'm4']);
    // Without `kept`, a thread is never trimmed.
    const unbounded = thread();
    for (let i = 0; i < 600; i++) unbounded.messages.receive(fromServer(`m${i}`), undefined);
    expect(unbounded.messages.trim()).toBe(false);
    expect(unbounded.messages.entries).toHaveLength(600);
  });

  it('loads a page as the list, keeping after it what `keep` says of what is not in it', () => {
    const { messages, rows } = thread();
    const shared = fromServer('on both');
    messages.receive(shared, undefined);
    messages.receive(fromServer('received meanwhile'), undefined);
    messages.send(me, 'sent meanwhile');
    const page = [fromServer('older'), shared];
    messages.load(page);
    expect(rows()).toEqual([
      ['older', 'confirmed'],
      ['on both', 'confirmed'],
      ['received meanwhile', 'confirmed'],
      ['sent meanwhile', 'optimistic'],
    ]);
    messages.load(page, (entry) => entry.status !== 'confirmed');
    expect(rows()).toEqual([
      ['older', 'confirmed'],
      ['on both', 'confirmed'],
      ['sent meanwhile', 'optimistic'],
    ]);
  });

  it('puts an older page on top without the messages it has, and finds the oldest one the server knows', () => {
    const { messages, rows } = thread();
    expect(messages.oldestId()).toBeNull();
    messages.send(me, 'not sent yet');
    expect(messages.oldestId()).toBeNull();
    const newest = fromServer('newest');
    messages.receive(newest, undefined);
    expect(messages.oldestId()).toBe(newest.id);
    const first = fromServer('first');
    messages.prepend([first, fromServer('second'), newest]);
    expect(rows().map(([content]) => content)).toEqual(['first', 'second', 'not sent yet', 'newest']);
    expect(messages.oldestId()).toBe(first.id);
  });

  it('forgets everything on clear, and stops waiting for the echoes of what it had sent', () => {
    const { messages, rows } = thread();
    messages.send(me, 'gone');
    messages.send(me, 'gone too');
    expect(vi.getTimerCount()).toBe(2);
    messages.clear();
    expect(rows()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
