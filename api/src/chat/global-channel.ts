import { checkChatText, type GlobalChatMessage, type GlobalChatMessageEvent } from '../contracts/index.ts';
import { BatchWriter, type BatchResult } from '../db/batch-writer.ts';
import { badRequest } from '../http/errors.ts';
import { userRoom, type GridNamespace } from '../realtime/io.ts';
import type { ChatService, GlobalPost, PostedGlobal } from './service.ts';

interface Post extends GlobalPost {
  /** The sender's id for it: their own sockets get it back with it (the echo). */
  tempId: string;
}

/**
 * The global channel's path from `chat:global` to every socket (docs/chat.md, "Fan-out"). Sending a frame
 * to a socket costs one write system call, and a broadcast writes to every socket: 5,000 sockets take about
 * 55 ms on the 2-core development machine, so one broadcast per message would fall behind at 20 messages a
 * second. Messages are therefore handled in batches, one batch at a time: stored with one statement, then
 * delivered as one `globalChatMessage` event with one argument per message, in order (one frame per socket
 * for the whole batch). Whatever arrives meanwhile forms the next batch; a quiet channel sends each message
 * at once, alone.
 *
 * Everyone gets the batch except its senders and the players who blocked one of them; each of those gets
 * the batch as they may see it (without the senders they blocked, their own messages with their tempIds).
 */
export class GlobalChannel {
  readonly #ns: GridNamespace;
  readonly #chat: Pick<ChatService, 'storeGlobal'>;
  readonly #batches = new BatchWriter<Post, GlobalChatMessage>((posts) => this.#storeAndDeliver(posts));

  constructor(ns: GridNamespace, chat: Pick<ChatService, 'storeGlobal'>) {
    this.#ns = ns;
    this.#chat = chat;
  }

  /** Checks a message (the rule of section 5), stores it and delivers it; answers it once delivered. */
  post(senderId: string, raw: string, tempId: string): Promise<GlobalChatMessage> {
    const check = checkChatText(raw);
    if (!check.ok) return Promise.reject(badRequest(check.message));
    return this.#batches.add({ senderId, text: check.text, tempId });
  }

  async #storeAndDeliver(posts: Post[]): Promise<BatchResult<GlobalChatMessage>[]> {
    const results = await this.#chat.storeGlobal(posts);
    const batch: (PostedGlobal & { tempId: string })[] = [];
    results.forEach((result, i) => {
      if (result.ok) batch.push({ ...result.value, tempId: posts[i]!.tempId });
    });
    if (batch.length > 0) this.#deliver(batch);
    return results.map((result) => (result.ok ? { ok: true, value: result.value.message } : result));
  }

  #deliver(batch: (PostedGlobal & { tempId: string })[]): void {
    const apart = new Set<string>();
    for (const { message, blockers } of batch) {
      apart.add(message.senderId);
      for (const id of blockers) apart.add(id);
    }
    // Encoded once for everyone else (Socket.IO writes the same frame to each socket).
    this.#ns.except([...apart].map(userRoom)).emit('globalChatMessage', ...batch.map((p) => p.message));
    for (const userId of apart) {
      const theirs: GlobalChatMessageEvent[] = [];
      for (const { message, tempId, blockers } of batch) {
        if (message.senderId === userId) theirs.push({ ...message, tempId });
        else if (!blockers.includes(userId)) theirs.push(message);
      }
      if (theirs.length > 0) this.#ns.to(userRoom(userId)).emit('globalChatMessage', ...theirs);
    }
  }
}
