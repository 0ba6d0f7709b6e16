import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Socket } from 'socket.io-client';
import {
  CHAT_MAX_LENGTH,
  CHAT_MESSAGES,
  GLOBAL_CHAT_PAGE_SIZE,
  GRID_MESSAGES,
  type Chat,
  type ChatMessage,
  type GlobalChatMessageEvent,
  type GridNotification,
  type OlderGlobalMessagesEvent,
  type PrivateMessageEvent,
  type PrivateMessageFailedEvent,
} from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { NUL_MESSAGE } from '../http/nul.ts';
import { joinGrid, type GridClient } from '../testing/grid-client.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';

describe('chat: the global channel and private chats on /grid, and /chat', function () {
  this.timeout(60_000);
  let t: BoxTestPlatform;
  const sockets: Socket[] = [];

  before(async () => {
    t = await startBoxPlatform({ orchestrator: { boot: 'instant' } });
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  after(async () => {
    await t?.close();
  });

  const join = (user: TestAccount) => joinGrid(t.platform.baseUrl, user, sockets);
  type Client = GridClient;

  const error = (c: Client) => c.next<{ message: string }>('error').then((e) => e.message);
  const block = async (c: Client, blocked: TestAccount) => {
    c.socket.emit('chat:block', { blockUserId: blocked.id });
    await c.next('userBlocked');
  };
  const globalCount = async (user: TestAccount) =>
    Number(
      (
        await t.db.query<{ n: string }>(
          'select count(*) as n from global_chat_messages where sender_id = $1',
          [user.id],
        )
      ).rows[0]!.n,
    );
  /** An ACTIVE chat between the two, made behind the API's back. */
  const activeChat = async (initiator: TestAccount, participant: TestAccount) =>
    (
      await t.db.query<{ id: string }>(
        `insert into chats (initiator_id, participant_id, status) values ($1, $2, 'ACTIVE') returning id`,
        [initiator.id, participant.id],
      )
    ).rows[0]!.id;
  const privateNotifications = async (user: TestAccount) =>
    (
      await t.db.query<{ chat_id: string }>(
        `select chat_id from notifications where user_id = $1 and type = 'PRIVATE_MESSAGE'`,
        [user.id],
      )
    ).rows;

  describe('global channel', () => {
    it('delivers a message to everyone, echoes the tempId to the sender, and never to who blocked the sender', async () => {
      const [alice, bob, carol] = await Promise.all([t.account(), t.account(), t.account()]);
      const [a, a2, b, c] = [await join(alice), await join(alice), await join(bob), await join(carol)];
      await block(c, alice);

      a.socket.emit('chat:global', { message: '  hello grid  ', tempId: 't-1' });
      const echo = await a.next<GlobalChatMessageEvent>('globalChatMessage', (m) => m.senderId === alice.id);
      expect(echo).to.deep.include({
        senderId: alice.id,
        sender: { id: alice.id, handle: alice.handle },
        content: 'hello grid',
        tempId: 't-1',
      });
      expect((await a2.next<GlobalChatMessageEvent>('globalChatMessage')).tempId).to.equal('t-1');
      const seen = await b.next<GlobalChatMessageEvent>('globalChatMessage', (m) => m.id === echo.id);
      expect(seen).not.to.have.property('tempId');
      expect(seen).to.deep.equal(withoutTempId(echo));
      await c.none('globalChatMessage', 300);

      // Carol still hears Bob; after unblocking, Alice again.
      b.socket.emit('chat:global', { message: 'hi all', tempId: 't-2' });
      expect((await c.next<GlobalChatMessageEvent>('globalChatMessage')).senderId).to.equal(bob.id);
      c.socket.emit('chat:unblock', { unblockUserId: alice.id });
      await c.next('userUnblocked');
      a.socket.emit('chat:global', { message: 'back again', tempId: 't-3' });
      expect((await c.next<GlobalChatMessageEvent>('globalChatMessage')).content).to.equal('back again');
    });

    it('refuses HTML, empty and too long messages with the spec wording, to the sender only, storing nothing', async () => {
      const [alice, bob] = await Promise.all([t.account(), t.account()]);
      const a = await join(alice);
      const b = await join(bob);
      for (const message of ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', 'so <b>bold</b>']) {
        a.socket.emit('chat:global', { message, tempId: 'x' });
        expect(await error(a), message).to.equal(CHAT_MESSAGES.html);
      }
      // The refusal names the message it refuses, so the sender's client can mark it failed.
      a.socket.emit('chat:global', { message: '   ', tempId: 'blank' });
      expect(await a.next('error')).to.deep.equal({ message: CHAT_MESSAGES.empty, tempId: 'blank' });
      a.socket.emit('chat:global', { message: 'x'.repeat(CHAT_MAX_LENGTH + 1), tempId: 'x' });
      expect(await error(a)).to.equal(CHAT_MESSAGES.tooLong);
      // Refused before the rule runs, in the rule's words all the same.
      a.socket.emit('chat:global', { message: 'x'.repeat(10_001), tempId: 'x' });
      expect(await error(a)).to.equal(CHAT_MESSAGES.tooLong);
      a.socket.emit('chat:global', { message: 42, tempId: 'x' });
      expect(await error(a)).to.equal(CHAT_MESSAGES.empty);
      a.socket.emit('chat:global', { message: 'no tempId' });
      expect(await error(a)).to.be.a('string');
      await b.none('globalChatMessage', 200);
      await a.none('globalChatMessage', 0);
      await b.none('error', 0);
      expect(await globalCount(alice)).to.equal(0);
      // 2000 characters is fine; text that only looks like a comparison is not HTML.
      a.socket.emit('chat:global', { message: 'y'.repeat(CHAT_MAX_LENGTH), tempId: 'ok' });
      expect((await a.next<GlobalChatMessageEvent>('globalChatMessage')).content).to.have.length(
        CHAT_MAX_LENGTH,
      );
      a.socket.emit('chat:global', { message: '1 < 2 and 3 > 2', tempId: 'ok2' });
      expect((await a.next<GlobalChatMessageEvent>('globalChatMessage')).content).to.equal('1 < 2 and 3 > 2');
    });

    it('refuses a NUL character in words (PostgreSQL text cannot hold one), storing nothing', async () => {
      const alice = await t.account();
      const a = await join(alice);
      a.socket.emit('chat:global', { message: 'hi\u0000there', tempId: 'nul' });
      expect(await a.next('error')).to.deep.equal({ message: NUL_MESSAGE, tempId: 'nul' });
      expect(await globalCount(alice)).to.equal(0);
    });

    it('delivers messages sent at once by several players to each socket once, in the order stored, without blocked senders', async () => {
      const [alice, bob, carol, dave] = await Promise.all([
        t.account(),
        t.account(),
        t.account(),
        t.account(),
      ]);
      const senders = [alice, bob, carol];
      const clients = [await join(alice), await join(bob), await join(carol), await join(dave)];
      await block(clients[3]!, bob);
      // Messages that travel together arrive as one event with several arguments: count them as they come.
      const received = clients.map((c) => {
        const messages: GlobalChatMessageEvent[] = [];
        c.socket.on('globalChatMessage', (...batch: GlobalChatMessageEvent[]) => messages.push(...batch));
        return messages;
      });
      senders.forEach((sender, s) => {
        for (let i = 0; i < 5; i++)
          clients[s]!.socket.emit('chat:global', { message: `${sender.handle} ${i}`, tempId: `${s}-${i}` });
      });
      const expected = [15, 15, 15, 10];
      await waitFor(
        () => received.map((r) => r.length),
        (counts) => counts.every((n, i) => n >= expected[i]!),
        { what: 'every message at every socket' },
      );
      await sleep(200); // nothing more comes
      expect(received.map((r) => r.length)).to.deep.equal(expected);

      const stored = (
        await t.db.query<{ id: string; sender_id: string }>(
          `select id, sender_id from global_chat_messages where sender_id = any($1) order by created_at, id`,
          [senders.map((u) => u.id)],
        )
      ).rows;
      // Each sender's own in the order sent.
      for (const sender of senders)
        expect(received[0]!.filter((m) => m.senderId === sender.id).map((m) => m.content)).to.deep.equal(
          range(0, 5).map((i) => `${sender.handle} ${i}`),
        );
      received.forEach((messages, c) => {
        const visible = stored.filter((row) => c !== 3 || row.sender_id !== bob.id).map((row) => row.id);
        expect(messages.map((m) => m.id)).to.deep.equal(visible);
        for (const m of messages)
          expect(m.tempId !== undefined).to.equal(m.senderId === senders[c]?.id, `tempId on ${m.content}`);
      });
    });

    it('limits how fast one player sends (10 messages per 10 s)', async () => {
      const alice = await t.account();
      const a = await join(alice);
      for (let i = 0; i < 11; i++) a.socket.emit('chat:global', { message: `m${i}`, tempId: `t${i}` });
      expect(await error(a)).to.equal(CHAT_MESSAGES.rateLimited);
      await waitFor(
        () => a.events.filter(([e]) => e === 'globalChatMessage').length,
        (n) => n === 10,
      );
      expect(await globalCount(alice)).to.equal(10);
    });

    it('gives the last 50 in the initial state and older pages, oldest first, without blocked senders', async () => {
      const [alice, bob, viewer] = await Promise.all([t.account(), t.account(), t.account()]);
      await t.db.query('delete from global_chat_messages');
      // 120 from Alice a second apart, and 10 from Bob among the newest, whom the viewer blocked.
      await t.db.query(
        `insert into global_chat_messages (sender_id, content, created_at)
         select $1, 'a' || i, now() - make_interval(secs => 200 - i) from generate_series(0, 119) i`,
        [alice.id],
      );
      await t.db.query(
        `insert into global_chat_messages (sender_id, content, created_at)
         select $1, 'b' || i, now() - make_interval(secs => 200 - 110 - i) + interval '0.5 s'
           from generate_series(0, 9) i`,
        [bob.id],
      );
      const v = await join(viewer);
      await block(v, bob);
      const initial = (await v.state()).globalChatMessages;
      expect(initial).to.have.length(GLOBAL_CHAT_PAGE_SIZE);
      expect(initial.map((m) => m.content)).to.deep.equal(range(70, 120).map((i) => `a${i}`));
      expect(initial[0]).to.deep.include({
        senderId: alice.id,
        sender: { id: alice.id, handle: alice.handle },
      });

      v.socket.emit('chat:getOlderGlobalMessages', { cursor: initial[0]!.id });
      const older = await v.next<OlderGlobalMessagesEvent>('olderGlobalChatMessages');
      expect(older.hasMore).to.equal(true);
      expect(older.messages.map((m) => m.content)).to.deep.equal(range(20, 70).map((i) => `a${i}`));
      v.socket.emit('chat:getOlderGlobalMessages', { cursor: older.messages[0]!.id });
      const oldest = await v.next<OlderGlobalMessagesEvent>('olderGlobalChatMessages');
      expect(oldest).to.deep.include({ hasMore: false });
      expect(oldest.messages.map((m) => m.content)).to.deep.equal(range(0, 20).map((i) => `a${i}`));

      // Someone who blocked nobody sees Bob's among them.
      const other = await join(alice);
      const all = (await other.state()).globalChatMessages.map((m) => m.content);
      expect(all).to.have.length(GLOBAL_CHAT_PAGE_SIZE);
      expect(all.at(-1)).to.equal('b9');
      expect(all).to.include('a119');

      v.socket.emit('chat:getOlderGlobalMessages', { cursor: 'nope' });
      expect(await error(v)).to.equal('cursor must be a message id');
    });
  });

  describe('private chats', () => {
    it('request → CHAT_REQUEST → accept → chat:started to both → messages to both → listed over REST', async () => {
      const [alice, bob] = await Promise.all([t.account(), t.account()]);
      const a = await join(alice);
      const b = await join(bob);

      a.socket.emit('chat:request', { targetId: bob.id });
      const request = await b.next<GridNotification>('notification', (n) => n.type === 'CHAT_REQUEST');
      expect(request).to.deep.include({
        title: 'Chat request',
        body: `${alice.handle} wants to chat.`,
        initiator: { id: alice.id, handle: alice.handle },
        attackId: null,
      });
      const chatId = request.chatId!;
      expect(chatId).to.be.a('string');

      // Asked already.
      a.socket.emit('chat:request', { targetId: bob.id });
      expect(await error(a)).to.equal(CHAT_MESSAGES.chatPending);
      a.socket.emit('chat:request', { targetId: alice.id });
      expect(await error(a)).to.equal(CHAT_MESSAGES.chatSelf);

      const pending = await t.call<Chat[]>('GET', '/chat/pending', { token: bob.token });
      expect(pending.status).to.equal(200);
      expect(pending.body.map((c) => c.id)).to.deep.equal([chatId]);
      expect(pending.body[0]).to.deep.include({ status: 'PENDING', messages: [] });
      expect((await t.call<Chat[]>('GET', '/chat/pending', { token: alice.token })).body).to.deep.equal([]);

      // Only the participant answers.
      a.socket.emit('chat:response', { chatId, accepted: true });
      expect(await error(a)).to.equal(CHAT_MESSAGES.requestNotFound);
      b.socket.emit('chat:response', { chatId, accepted: true });
      const [startedA, startedB] = await Promise.all([
        a.next<Chat>('chat:started'),
        b.next<Chat>('chat:started'),
      ]);
      expect(startedA).to.deep.equal(startedB);
      expect(startedA).to.deep.include({
        id: chatId,
        status: 'ACTIVE',
        initiator: { id: alice.id, handle: alice.handle },
        participant: { id: bob.id, handle: bob.handle },
      });
      b.socket.emit('chat:response', { chatId, accepted: true });
      expect(await error(b)).to.equal(CHAT_MESSAGES.requestNotFound);
      a.socket.emit('chat:request', { targetId: bob.id });
      expect(await error(a)).to.equal(CHAT_MESSAGES.chatExists);

      a.socket.emit('chat:privateMessage', { chatId, content: ' hi bob ', tempId: 'p1' });
      const echo = await a.next<PrivateMessageEvent>('chat:privateMessage');
      expect(echo).to.deep.include({
        chatId,
        content: 'hi bob',
        tempId: 'p1',
        sender: { id: alice.id, handle: alice.handle },
      });
      const got = await b.next<PrivateMessageEvent>('chat:privateMessage');
      expect(got).to.deep.equal(withoutTempId(echo));
      b.socket.emit('chat:privateMessage', { chatId, content: 'hi alice', tempId: 'p2' });
      expect((await b.next<PrivateMessageEvent>('chat:privateMessage')).tempId).to.equal('p2');
      const reply = await a.next<PrivateMessageEvent>('chat:privateMessage');
      expect(reply.content).to.equal('hi alice');
      a.socket.emit('chat:privateMessage', { chatId, content: '<b>x</b>', tempId: 'p3' });
      expect(await a.next<PrivateMessageFailedEvent>('chat:privateMessageFailed')).to.deep.equal({
        tempId: 'p3',
        message: CHAT_MESSAGES.htmlPrivate,
      });
      a.socket.emit('chat:privateMessage', { chatId, content: '', tempId: 'p4' });
      expect((await a.next<PrivateMessageFailedEvent>('chat:privateMessageFailed')).message).to.equal(
        CHAT_MESSAGES.empty,
      );
      // Both online: no PRIVATE_MESSAGE notifications.
      expect(await privateNotifications(bob)).to.deep.equal([]);
      expect(await privateNotifications(alice)).to.deep.equal([]);

      for (const user of [alice, bob]) {
        const list = await t.call<Chat[]>('GET', '/chat', { token: user.token });
        expect(list.status).to.equal(200);
        expect(list.body).to.have.length(1);
        expect(list.body[0]).to.deep.include({ id: chatId, status: 'ACTIVE' });
        expect(list.body[0]!.messages).to.deep.equal([withoutTempId(reply)]);
      }
      const messages = await t.call<ChatMessage[]>('GET', `/chat/${chatId}/messages`, { token: bob.token });
      expect(messages.status).to.equal(200);
      expect(messages.body.map((m) => m.content)).to.deep.equal(['hi bob', 'hi alice']);
      const newest = await t.call<ChatMessage[]>('GET', `/chat/${chatId}/messages?limit=1`, {
        token: alice.token,
      });
      expect(newest.body.map((m) => m.content)).to.deep.equal(['hi alice']);
      const before = await t.call<ChatMessage[]>(
        'GET',
        `/chat/${chatId}/messages?limit=1&before=${newest.body[0]!.id}`,
        { token: alice.token },
      );
      expect(before.body.map((m) => m.content)).to.deep.equal(['hi bob']);
      const bad = await t.call<{ message: string }>('GET', `/chat/${chatId}/messages?limit=500`, {
        token: alice.token,
      });
      expect(bad.status).to.equal(400);
      expect((await t.call('GET', '/chat', {})).status).to.equal(401);
    });

    it('starts the chat when the one asked asks back (their request accepts the first)', async () => {
      const [alice, bob] = await Promise.all([t.account(), t.account()]);
      const a = await join(alice);
      const b = await join(bob);
      a.socket.emit('chat:request', { targetId: bob.id });
      const { chatId } = await b.next<GridNotification>('notification', (n) => n.type === 'CHAT_REQUEST');
      b.socket.emit('chat:request', { targetId: alice.id });
      const [startedA, startedB] = await Promise.all([
        a.next<Chat>('chat:started'),
        b.next<Chat>('chat:started'),
      ]);
      expect(startedA).to.deep.equal(startedB);
      expect(startedA).to.deep.include({
        id: chatId,
        status: 'ACTIVE',
        initiator: { id: alice.id, handle: alice.handle },
        participant: { id: bob.id, handle: bob.handle },
      });
      // No second request: the first one became the chat.
      expect((await t.call<Chat[]>('GET', '/chat/pending', { token: alice.token })).body).to.deep.equal([]);
      expect((await t.call<Chat[]>('GET', '/chat/pending', { token: bob.token })).body).to.deep.equal([]);
      expect(
        (await t.call<Chat[]>('GET', '/chat', { token: alice.token })).body.map((c) => c.id),
      ).to.deep.equal([chatId]);
      b.socket.emit('chat:request', { targetId: alice.id });
      expect(await error(b)).to.equal(CHAT_MESSAGES.chatExists);
    });

    it("keeps a player's messages in the order they were sent, however fast they come", async () => {
      const [alice, bob] = await Promise.all([t.account(), t.account()]);
      const chatId = await activeChat(alice, bob);
      const a = await join(alice);
      const b = await join(bob);
      const sent = Array.from({ length: 10 }, (_, i) => `in order ${i}`);
      for (const [i, content] of sent.entries())
        a.socket.emit('chat:privateMessage', { chatId, content, tempId: `o${i}` });
      const received: string[] = [];
      for (let i = 0; i < sent.length; i++)
        received.push((await b.next<PrivateMessageEvent>('chat:privateMessage')).content);
      expect(received).to.deep.equal(sent);
      const stored = await t.call<ChatMessage[]>('GET', `/chat/${chatId}/messages`, { token: bob.token });
      expect(stored.body.map((m) => m.content)).to.deep.equal(sent);
    });

    it('lists active chats by latest activity', async () => {
      const [alice, bob, carol] = await Promise.all([t.account(), t.account(), t.account()]);
      const withBob = await activeChat(alice, bob);
      const withCarol = await activeChat(carol, alice);
      const a = await join(alice);
      a.socket.emit('chat:privateMessage', { chatId: withBob, content: 'first', tempId: '1' });
      await a.next('chat:privateMessage');
      await sleep(20);
      a.socket.emit('chat:privateMessage', { chatId: withCarol, content: 'second', tempId: '2' });
      await a.next('chat:privateMessage');
      const list = (await t.call<Chat[]>('GET', '/chat', { token: alice.token })).body;
      expect(list.map((c) => c.id)).to.deep.equal([withCarol, withBob]);
      expect(list.map((c) => c.messages[0]?.content)).to.deep.equal(['second', 'first']);
    });

    it('declining tells the initiator, who may ask again later; requests from two players both notify', async () => {
      const [alice, bob, carol] = await Promise.all([t.account(), t.account(), t.account()]);
      const a = await join(alice);
      const b = await join(bob);
      const c = await join(carol);
      a.socket.emit('chat:request', { targetId: bob.id });
      const fromAlice = await b.next<GridNotification>('notification', (n) => n.type === 'CHAT_REQUEST');
      c.socket.emit('chat:request', { targetId: bob.id });
      const fromCarol = await b.next<GridNotification>('notification', (n) => n.type === 'CHAT_REQUEST');
      expect(fromCarol.initiator?.id).to.equal(carol.id);
      expect(fromCarol.chatId).not.to.equal(fromAlice.chatId);

      b.socket.emit('chat:response', { chatId: fromAlice.chatId!, accepted: false });
      const declined = await a.next<GridNotification>('notification', (n) => n.type === 'GENERIC');
      expect(declined).to.deep.include({
        body: `${bob.handle} declined your chat request.`,
        initiator: { id: bob.id, handle: bob.handle },
        chatId: fromAlice.chatId,
      });
      await a.none('chat:started', 200);
      await b.none('chat:started', 0);
      expect(
        (await t.call<Chat[]>('GET', '/chat/pending', { token: bob.token })).body.map((x) => x.id),
      ).to.deep.equal([fromCarol.chatId]);
      // Messages to a declined chat fail.
      a.socket.emit('chat:privateMessage', { chatId: fromAlice.chatId!, content: 'hey', tempId: 'd1' });
      expect(await a.next<PrivateMessageFailedEvent>('chat:privateMessageFailed')).to.deep.equal({
        tempId: 'd1',
        message: CHAT_MESSAGES.chatNotFound,
      });
      a.socket.emit('chat:request', { targetId: bob.id });
      expect(
        (await b.next<GridNotification>('notification', (n) => n.type === 'CHAT_REQUEST')).chatId,
      ).not.to.equal(fromAlice.chatId);
    });

    it('a block drops the blocked player’s waiting request and its notification; an acknowledged answer gets the outcome', async () => {
      const [alice, bob, carol] = await Promise.all([t.account(), t.account(), t.account()]);
      const [a, b, c] = [await join(alice), await join(bob), await join(carol)];
      a.socket.emit('chat:request', { targetId: bob.id });
      const fromAlice = await b.next<GridNotification>('notification', (n) => n.initiator?.id === alice.id);
      c.socket.emit('chat:request', { targetId: bob.id });
      const fromCarol = await b.next<GridNotification>('notification', (n) => n.initiator?.id === carol.id);
      await block(b, alice);
      expect(
        (await t.call<Chat[]>('GET', '/chat/pending', { token: bob.token })).body.map((x) => x.id),
      ).to.deep.equal([fromCarol.chatId]);
      // Bob elsewhere: only Carol's request still waits for him.
      const b2 = await join(bob);
      await b2.state();
      await sleep(300);
      expect(
        b2.events.filter(([e]) => e === 'notification').map(([, n]) => (n as GridNotification).chatId),
      ).to.deep.equal([fromCarol.chatId]);

      // An answer sent with a callback hears back there, not as an error event.
      expect(
        await b.socket.emitWithAck('chat:response', { chatId: fromAlice.chatId, accepted: true }),
      ).to.deep.equal({ ok: false, message: CHAT_MESSAGES.requestNotFound });
      expect(
        await b.socket.emitWithAck('chat:response', { chatId: fromCarol.chatId, accepted: true }),
      ).to.deep.equal({ ok: true });
      await c.next('chat:started');
      await b.none('error', 0);
      await a.none('chat:started', 0);
    });

    it('keeps blocked players apart: no requests and no messages, either way', async () => {
      const [alice, bob] = await Promise.all([t.account(), t.account()]);
      const chatId = await activeChat(alice, bob);
      const a = await join(alice);
      const b = await join(bob);
      a.socket.emit('chat:privateMessage', { chatId, content: 'before', tempId: 'k0' });
      await b.next('chat:privateMessage');

      await block(b, alice);
      a.socket.emit('chat:privateMessage', { chatId, content: 'after', tempId: 'k1' });
      expect(await a.next<PrivateMessageFailedEvent>('chat:privateMessageFailed')).to.deep.equal({
        tempId: 'k1',
        message: CHAT_MESSAGES.chatBlocked,
      });
      b.socket.emit('chat:privateMessage', { chatId, content: 'after', tempId: 'k2' });
      expect((await b.next<PrivateMessageFailedEvent>('chat:privateMessageFailed')).message).to.equal(
        CHAT_MESSAGES.chatBlocked,
      );
      await b.none('chat:privateMessage', 200);

      const [x, y] = await Promise.all([t.account(), t.account()]);
      const cx = await join(x);
      const cy = await join(y);
      await block(cy, x);
      cx.socket.emit('chat:request', { targetId: y.id });
      expect(await error(cx)).to.equal(CHAT_MESSAGES.chatBlocked);
      cy.socket.emit('chat:request', { targetId: x.id });
      expect(await error(cy)).to.equal(CHAT_MESSAGES.chatBlocked);
      await cy.none('notification', 200);
      cx.socket.emit('chat:request', { targetId: '00000000-0000-4000-8000-000000000000' });
      expect(await error(cx)).to.equal(GRID_MESSAGES.playerNotFound);
    });

    it('is private: others can neither read, send nor answer', async () => {
      const [alice, bob, eve] = await Promise.all([t.account(), t.account(), t.account()]);
      const chatId = await activeChat(alice, bob);
      const e = await join(eve);
      const read = await t.call<{ message: string }>('GET', `/chat/${chatId}/messages`, { token: eve.token });
      expect(read.status).to.equal(404);
      expect(read.body.message).to.equal(CHAT_MESSAGES.chatNotFound);
      expect(
        (await t.call('GET', `/chat/00000000-0000-4000-8000-000000000000/messages`, { token: eve.token }))
          .status,
      ).to.equal(404);
      e.socket.emit('chat:privateMessage', { chatId, content: 'let me in', tempId: 'e1' });
      expect(await e.next<PrivateMessageFailedEvent>('chat:privateMessageFailed')).to.deep.equal({
        tempId: 'e1',
        message: CHAT_MESSAGES.chatNotFound,
      });
      e.socket.emit('chat:response', { chatId, accepted: true });
      expect(await error(e)).to.equal(CHAT_MESSAGES.requestNotFound);
      expect(
        Number(
          (await t.db.query('select count(*) as n from chat_messages where chat_id = $1', [chatId])).rows[0]
            .n,
        ),
      ).to.equal(0);
    });

    it('notifies a recipient who is not on the grid (once per chat until acknowledged), not one who is', async () => {
      const [alice, bob] = await Promise.all([t.account(), t.account()]);
      const chatId = await activeChat(alice, bob);
      const a = await join(alice);
      const b = await join(bob);
      a.socket.emit('chat:privateMessage', { chatId, content: 'online', tempId: 'o1' });
      await b.next('chat:privateMessage');
      expect(await privateNotifications(bob)).to.deep.equal([]);

      b.socket.close();
      await sleep(200);
      a.socket.emit('chat:privateMessage', { chatId, content: 'are you there?', tempId: 'o2' });
      await a.next('chat:privateMessage');
      a.socket.emit('chat:privateMessage', { chatId, content: 'hello?', tempId: 'o3' });
      await a.next('chat:privateMessage');
      await waitFor(
        () => privateNotifications(bob),
        (rows) => rows.length > 0,
      );
      await sleep(100);
      expect(await privateNotifications(bob)).to.deep.equal([{ chat_id: chatId }]);
      expect(await privateNotifications(alice)).to.deep.equal([]);

      // Back on the grid: the notification waits in the initial state.
      const back = await join(bob);
      await back.state();
      const n = await back.next<GridNotification>('notification', (x) => x.type === 'PRIVATE_MESSAGE');
      expect(n).to.deep.include({
        chatId,
        title: 'New message',
        body: `${alice.handle} sent you a message.`,
        initiator: { id: alice.id, handle: alice.handle },
      });
    });

    it('shares the chat rate limit with the global channel, and reports it as a failed private message', async () => {
      const [alice, bob] = await Promise.all([t.account(), t.account()]);
      const chatId = await activeChat(alice, bob);
      const a = await join(alice);
      for (let i = 0; i < 5; i++) a.socket.emit('chat:global', { message: `g${i}`, tempId: `g${i}` });
      for (let i = 0; i < 6; i++)
        a.socket.emit('chat:privateMessage', { chatId, content: `p${i}`, tempId: `p${i}` });
      expect(await a.next<PrivateMessageFailedEvent>('chat:privateMessageFailed')).to.deep.equal({
        tempId: 'p5',
        message: CHAT_MESSAGES.rateLimited,
      });
    });
  });
});

function withoutTempId<T extends { tempId?: string }>(message: T): Omit<T, 'tempId'> {
  const { tempId: _tempId, ...rest } = message;
  return rest;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
