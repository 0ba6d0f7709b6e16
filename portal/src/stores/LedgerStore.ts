import { LEDGER_PAGE_SIZE, ledgerPageSchema, type LedgerEntryView } from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { log } from '../logging.ts';
import { toast } from '../notifications/toast.ts';
import { HISTORY_LOAD_FAILED } from '../strings/credits.ts';
import type { RootStore } from './RootStore.ts';

export type LedgerStatus = 'idle' | 'loading' | 'ready' | 'failed';

/**
 * The player's credit history (issue 18, 'Where my credits went'): GET /credits/ledger?page&limit →
 * {data, total}, newest first, 20 rows a page. A balance that changes while the page is open (the grid's
 * `balance` event) brings the first page up to date.
 */
export class LedgerStore {
  rows: readonly LedgerEntryView[] = [];
  total = 0;
  status: LedgerStatus = 'idle';
  page = 1;

  private readonly root: RootStore;
  /** Bumped by every load and reset, so that an overtaken answer is dropped. */
  private revision = 0;
  private visit = 0;
  private shown = false;

  constructor(root: RootStore) {
    this.root = root;
    makeObservable<this, 'reset'>(this, {
      rows: observableRef,
      total: observable,
      status: observable,
      page: observable,
      pageCount: computed,
      loading: computed,
      goToPage: action,
      reset: action,
    });
    reaction(
      () => this.root.auth.user?.id ?? null,
      () => this.reset(),
    );
    // A new movement lands at the top: the first page, when shown, reloads.
    reaction(
      () => [this.root.auth.user?.credits, this.root.auth.user?.freeCredits],
      () => {
        if (this.shown && this.page === 1) void this.load();
      },
      { equals: (a, b) => a[0] === b[0] && a[1] === b[1] },
    );
  }

  get pageCount(): number {
    return Math.max(1, Math.ceil(this.total / LEDGER_PAGE_SIZE));
  }

  get loading(): boolean {
    return this.status === 'idle' || this.status === 'loading';
  }

  /** The page is shown: its first page, newest first (deferred like the leaderboard's, for the double mount). */
  enter(): void {
    const visit = ++this.visit;
    queueMicrotask(() => {
      if (visit !== this.visit) return;
      this.shown = true;
      runInAction(() => (this.page = 1));
      void this.load();
    });
  }

  leave(): void {
    this.visit += 1;
    this.revision += 1;
    this.shown = false;
  }

  goToPage(page: number) {
    const target = Math.min(Math.max(1, page), this.pageCount);
    if (target === this.page) return;
    this.page = target;
    void this.load();
  }

  /** GET /credits/ledger for the current page; a failure toasts 'Failed to load credit history.' */
  async load(): Promise<void> {
    const revision = ++this.revision;
    const params = new URLSearchParams({ page: String(this.page), limit: String(LEDGER_PAGE_SIZE) });
    runInAction(() => (this.status = 'loading'));
    try {
      const answer = await this.root.api.get(`/credits/ledger?${params.toString()}`, ledgerPageSchema);
      if (revision !== this.revision) return;
      const lastPage = Math.max(1, Math.ceil(answer.total / LEDGER_PAGE_SIZE));
      if (answer.data.length === 0 && this.page > lastPage) {
        runInAction(() => (this.page = lastPage));
        return await this.load();
      }
      runInAction(() => {
        this.rows = answer.data;
        this.total = answer.total;
        this.status = 'ready';
      });
    } catch (error) {
      if (revision !== this.revision) return;
      log.warn('Could not load the credit history', error);
      runInAction(() => (this.status = 'failed'));
      toast.error(HISTORY_LOAD_FAILED);
    }
  }

  private reset() {
    this.revision += 1;
    this.rows = [];
    this.total = 0;
    this.status = 'idle';
    this.page = 1;
  }
}
