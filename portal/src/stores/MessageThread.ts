import { CHAT_SEND_TIMEOUT_MS, type PlayerRef } from '@exploit-grid/api/contracts';
import { action, makeObservable, observableRef } from 'mobx';

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

/** Puts a message typed here on the socket with its tempId (the global channel's event, or a private chat's). */
export type SendMessage = (content: string, tempId: string) => void;

/** What a message from the server was to the thread. */
export type Received = 'known' | 'confirmed' | 'added';

/**
 * The messages of the global channel or of one private chat, oldest first, and their optimistic sending: a
 * message typed here shows at once ('optimistic') and goes out with a new tempId; the server's echo carrying
 * that tempId confirms it in its place; no echo within 15 s, or a refusal, fails it; a retry sends it again with
 * a new tempId. With `kept`, `trim` keeps the newest that many (the global channel).
 */
export class MessageThread {
  entries: readonly ChatEntry[] = [];

  private readonly sendMessage: SendMessage;
  private readonly kept: number;
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(sendMessage: SendMessage, options: { kept?: number } = {}) {
    this.sendMessage = sendMessage;
    this.kept = options.kept ?? Infinity;
    makeObservable(this, {
      entries: observableRef,
      send: action,
      receive: action,
      trim: action,
      load: action,
      prepend: action,
      fail: action,
      retry: action,
      clear: action,
    });
  }

  /** The oldest message the server knows, the cursor for the page before it. */
  oldestId(): string | null {
    return this.entries.find((entry) => entry.id !== null)?.id ?? null;
  }

  /** Shows a message typed here at once and sends it with a new tempId. */
  send(sender: PlayerRef, content: string) {
    const tempId = crypto.randomUUID();
    const at = new Date().toISOString();
    this.entries = [
      ...this.entries,
      { key: tempId, id: null, tempId, sender, content, at, status: 'optimistic' },
    ];
    this.transmit(content, tempId);
  }

  /**
   * A message from the server: one whose id is here already is ignored, the echo of one sent here (its
   * `tempId`) confirms it where it was shown, any other is added at the end.
   */
  receive(entry: ChatEntry, tempId: string | undefined): Received {
    if (this.entries.some((e) => e.id === entry.id)) return 'known';
    const mine = tempId ? this.entries.findIndex((e) => e.tempId === tempId && e.id === null) : -1;
    if (mine < 0) {
      this.entries = [...this.entries, entry];
      return 'added';
    }
    const sent = this.entries[mine];
    if (sent?.tempId) this.clearTimer(sent.tempId);
    this.entries = this.entries.map((e, i) => (i === mine ? { ...entry, key: e.key } : e));
    return 'confirmed';
  }

  /** Keeps the newest `kept` messages: true when older ones left (scrolling up brings them back). */
  trim(): boolean {
    if (this.entries.length <= this.kept) return false;
    this.entries = this.entries.slice(this.entries.length - this.kept);
    return true;
  }

  /**
   * A page the server sent becomes the list. What was here and is not in it stays after it when `keep` says
   * so (messages sent or received while the page was on its way).
   */
  load(page: readonly ChatEntry[], keep: (entry: ChatEntry) => boolean = () => true) {
    const ids = new Set(page.map((entry) => entry.id));
    this.entries = [...page, ...this.entries.filter((entry) => keep(entry) && !ids.has(entry.id))];
  }

  /** An older page goes on top, without the messages already here. */
  prepend(page: readonly ChatEntry[]) {
    const ids = new Set(this.entries.map((entry) => entry.id));
    this.entries = [...page.filter((entry) => !ids.has(entry.id)), ...this.entries];
  }

  /** The message sent with this tempId failed (refused, or no echo in time), if it is here and still waiting. */
  fail(tempId: string) {
    this.clearTimer(tempId);
    if (!this.entries.some((entry) => entry.tempId === tempId)) return;
    this.entries = this.entries.map((entry) =>
      entry.tempId === tempId && entry.status === 'optimistic' ? { ...entry, status: 'failed' } : entry,
    );
  }

  /** Sends the failed message with this tempId again, with a new one; false when it is not here. */
  retry(tempId: string): boolean {
    const failed = this.entries.find((entry) => entry.tempId === tempId && entry.status === 'failed');
    if (!failed) return false;
    const fresh = crypto.randomUUID();
    this.entries = this.entries.map((entry) =>
      entry === failed ? { ...entry, tempId: fresh, status: 'optimistic' } : entry,
    );
    this.transmit(failed.content, fresh);
    return true;
  }

  /** Forgets every message, and stops waiting for the echoes of those sent. */
  clear() {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.entries = [];
  }

  private transmit(content: string, tempId: string) {
    this.sendMessage(content, tempId);
    this.timers.set(
      tempId,
      setTimeout(() => this.fail(tempId), CHAT_SEND_TIMEOUT_MS),
    );
  }

  private clearTimer(tempId: string) {
    const timer = this.timers.get(tempId);
    if (timer) clearTimeout(timer);
    this.timers.delete(tempId);
  }
}
