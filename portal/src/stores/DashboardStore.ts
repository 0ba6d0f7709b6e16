import {
  attackHistoryItemSchema,
  userStatsSchema,
  type AttackHistoryItem,
  type UserStats,
} from '@exploit-grid/api/contracts';
import { action, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { z } from 'zod';
import { log } from '../logging.ts';
import { RECENT_ATTACKS_LIMIT } from '../strings/dashboard.ts';
import type { RootStore } from './RootStore.ts';

export type StatsStatus = 'idle' | 'loading' | 'ready' | 'failed';
export type RecentStatus = 'idle' | 'loading' | 'ready' | 'failed';

const recentAnswer = z.array(attackHistoryItemSchema);

/**
 * What the dashboard shows besides the user and the box: the operator's stats (GET /user/stats) and their
 * recent attacks (GET /attack/history/all?limit=3).
 */
export class DashboardStore {
  stats: UserStats | null = null;
  statsStatus: StatsStatus = 'idle';
  recentAttacks: readonly AttackHistoryItem[] = [];
  recentStatus: RecentStatus = 'idle';

  private readonly root: RootStore;
  /** Bumped by every load of the recent attacks and by a reset, so that an overtaken answer is dropped. */
  private recentRevision = 0;

  constructor(root: RootStore) {
    this.root = root;
    makeObservable<this, 'reset'>(this, {
      stats: observableRef,
      statsStatus: observable,
      recentAttacks: observableRef,
      recentStatus: observable,
      reset: action,
    });
    // Another account (or none): nothing of the previous one stays.
    reaction(
      () => this.root.auth.user?.id ?? null,
      () => this.reset(),
    );
  }

  /** Failures are not shown (core-app section 8): the cards keep their defaults. */
  async loadStats(): Promise<void> {
    runInAction(() => (this.statsStatus = 'loading'));
    try {
      const stats = await this.root.api.get('/user/stats', userStatsSchema);
      runInAction(() => {
        this.stats = stats;
        this.statsStatus = 'ready';
      });
    } catch (error) {
      log.warn('Could not load stats', error);
      runInAction(() => (this.statsStatus = 'failed'));
    }
  }

  /** 'Recent Grid Activity': the last 3 attacks. Failures are only logged (core-app section 8). */
  async loadRecentAttacks(): Promise<void> {
    const revision = ++this.recentRevision;
    runInAction(() => (this.recentStatus = 'loading'));
    try {
      const attacks = await this.root.api.get(
        `/attack/history/all?limit=${RECENT_ATTACKS_LIMIT}`,
        recentAnswer,
      );
      if (revision !== this.recentRevision) return;
      runInAction(() => {
        this.recentAttacks = attacks;
        this.recentStatus = 'ready';
      });
    } catch (error) {
      if (revision !== this.recentRevision) return;
      log.warn('Could not load the recent attacks', error);
      runInAction(() => (this.recentStatus = 'failed'));
    }
  }

  private reset() {
    this.recentRevision += 1;
    this.stats = null;
    this.statsStatus = 'idle';
    this.recentAttacks = [];
    this.recentStatus = 'idle';
  }
}
