import {
  attackEventSchema,
  attackHistoryItemSchema,
  commandLogSchema,
  type AttackEvent,
  type AttackHistoryItem,
  type CommandLog,
} from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { z } from 'zod';
import { log } from '../logging.ts';
import { toast } from '../notifications/toast.ts';
import { HISTORY_LIMIT, historyLoadFailed } from '../strings/history.ts';
import type { RootStore } from './RootStore.ts';

export type HistoryStatus = 'idle' | 'loading' | 'ready' | 'failed';

/** One row of an attack's timeline: a command the attacker ran, or an event of the attack. */
export type TimelineEntry =
  | { kind: 'command'; key: string; at: string; command: CommandLog }
  | { kind: 'event'; key: string; at: string; event: AttackEvent };

/** The attack whose timeline is open, and its two halves (null while loading or after a failure). */
export type Timeline = {
  attack: AttackHistoryItem;
  loading: boolean;
  commands: readonly CommandLog[] | null;
  events: readonly AttackEvent[] | null;
  commandsFailed: boolean;
  eventsFailed: boolean;
};

const historyAnswer = z.array(attackHistoryItemSchema);
const commandLogsAnswer = z.array(commandLogSchema);
const attackEventsAnswer = z.array(attackEventSchema);

/**
 * Kill Chains (core-app section 2 "History"): the operator's last 100 attacks, as attacker or defender, newest
 * first (GET /attack/history/all), and the timeline of one of them: its command logs (GET /attack/{id}/logs)
 * and its events (GET /attack/{id}/attack-logs), fetched together, each half failing on its own.
 */
export class HistoryStore {
  items: readonly AttackHistoryItem[] = [];
  status: HistoryStatus = 'idle';
  timeline: Timeline | null = null;

  private readonly root: RootStore;
  /** Bumped by every load and reset, so that an overtaken answer is dropped. */
  private revision = 0;

  constructor(root: RootStore) {
    this.root = root;
    makeObservable<this, 'reset'>(this, {
      items: observableRef,
      status: observable,
      timeline: observableRef,
      entries: computed,
      closeTimeline: action,
      reset: action,
    });
    // Another account (or none): nothing of the previous one stays.
    reaction(
      () => this.root.auth.user?.id ?? null,
      () => this.reset(),
    );
  }

  /** The signed-in operator's id: their role in each attack follows from it. */
  get viewerId(): string | null {
    return this.root.auth.user?.id ?? null;
  }

  /** GET /attack/history/all?limit=100; a failure shows 'Failed to load attack history: {msg}'. */
  async load(): Promise<void> {
    const revision = ++this.revision;
    runInAction(() => (this.status = 'loading'));
    try {
      const items = await this.root.api.get(`/attack/history/all?limit=${HISTORY_LIMIT}`, historyAnswer);
      if (revision !== this.revision) return;
      runInAction(() => {
        this.items = items;
        this.status = 'ready';
      });
    } catch (error) {
      if (revision !== this.revision) return;
      log.warn('Could not load the attack history', error);
      runInAction(() => (this.status = 'failed'));
      toast.error(historyLoadFailed(messageOf(error)));
    }
  }

  /** Opens the timeline of a finished attack and fetches both halves of it at once. */
  async openTimeline(attack: AttackHistoryItem): Promise<void> {
    const timeline: Timeline = {
      attack,
      loading: true,
      commands: null,
      events: null,
      commandsFailed: false,
      eventsFailed: false,
    };
    runInAction(() => (this.timeline = timeline));
    const id = encodeURIComponent(attack.id);
    const [commands, events] = await Promise.allSettled([
      this.root.api.get(`/attack/${id}/logs`, commandLogsAnswer),
      this.root.api.get(`/attack/${id}/attack-logs`, attackEventsAnswer),
    ]);
    if (commands.status === 'rejected') log.warn('Could not load the command logs', commands.reason);
    if (events.status === 'rejected') log.warn('Could not load the attack events', events.reason);
    runInAction(() => {
      // Closed, or another attack opened meanwhile.
      if (this.timeline !== timeline) return;
      this.timeline = {
        attack,
        loading: false,
        commands: commands.status === 'fulfilled' ? commands.value : null,
        events: events.status === 'fulfilled' ? events.value : null,
        commandsFailed: commands.status === 'rejected',
        eventsFailed: events.status === 'rejected',
      };
    });
  }

  closeTimeline() {
    this.timeline = null;
  }

  /** The open timeline's commands and events in time order. */
  get entries(): readonly TimelineEntry[] {
    const timeline = this.timeline;
    if (!timeline) return [];
    return mergeTimeline(timeline.commands ?? [], timeline.events ?? []);
  }

  private reset() {
    this.revision += 1;
    this.items = [];
    this.status = 'idle';
    this.timeline = null;
  }
}

/**
 * Commands (by `timestamp`) and events (by `createdAt`) in one list, oldest first; at the same instant a
 * command comes before the events it caused. Every command the box reports is stored twice, as a line of the
 * kill chain and as a COMMAND event carrying the same command (`details.message`): such an event is left out
 * when its command line is there, so each command shows once.
 */
export function mergeTimeline(
  commands: readonly CommandLog[],
  events: readonly AttackEvent[],
): TimelineEntry[] {
  const unmatched = new Map<string, number>();
  for (const command of commands) {
    const key = command.command.slice(0, 500);
    unmatched.set(key, (unmatched.get(key) ?? 0) + 1);
  }
  const rows: { entry: TimelineEntry; time: number; order: number }[] = [];
  for (const command of commands) {
    const entry: TimelineEntry = {
      kind: 'command',
      key: `command-${command.id}`,
      at: command.timestamp,
      command,
    };
    rows.push({ entry, time: Date.parse(command.timestamp), order: 0 });
  }
  for (const event of events) {
    if (event.type === 'COMMAND') {
      const left = unmatched.get(event.details.message) ?? 0;
      if (left > 0) {
        unmatched.set(event.details.message, left - 1);
        continue;
      }
    }
    const entry: TimelineEntry = { kind: 'event', key: `event-${event.id}`, at: event.createdAt, event };
    rows.push({ entry, time: Date.parse(event.createdAt), order: 1 });
  }
  // Array.prototype.sort is stable: each half keeps the server's order among equal times.
  rows.sort((a, b) => a.time - b.time || a.order - b.order);
  return rows.map((row) => row.entry);
}

/** The server's message, else the error's own ('Request failed with status 500', 'Failed to fetch'). */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
