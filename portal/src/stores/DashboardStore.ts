import { userStatsSchema, type UserStats } from '@exploit-grid/api/contracts';
import { makeObservable, observable, observableRef, runInAction } from 'mobx';
import { log } from '../logging.ts';
import type { RootStore } from './RootStore.ts';

export type StatsStatus = 'idle' | 'loading' | 'ready' | 'failed';

/** What the dashboard shows besides the user: the operator's stats (GET /user/stats). */
export class DashboardStore {
  stats: UserStats | null = null;
  statsStatus: StatsStatus = 'idle';

  private readonly root: RootStore;

  constructor(root: RootStore) {
    this.root = root;
    makeObservable(this, { stats: observableRef, statsStatus: observable });
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
}
