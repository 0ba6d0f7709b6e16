import {
  LEADERBOARD_PAGE_SIZE,
  leaderboardPageSchema,
  type LeaderboardRow,
  type LeaderboardSortField,
} from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { log } from '../logging.ts';
import { toast } from '../notifications/toast.ts';
import { LEADERBOARD_LOAD_FAILED, SEARCH_DEBOUNCE_MS } from '../strings/leaderboard.ts';
import type { RootStore } from './RootStore.ts';

export type LeaderboardStatus = 'idle' | 'loading' | 'ready' | 'failed';
export type SortOrder = 'asc' | 'desc';

/** The order a column starts in when first clicked: rank and handle ascending, the numbers best first. */
export function defaultOrderOf(field: LeaderboardSortField): SortOrder {
  return field === 'rank' || field === 'handle' ? 'asc' : 'desc';
}

const DEFAULT_SORT: LeaderboardSortField = 'rank';

/**
 * The leaderboard (commerce-and-content spec, Leaderboard screen): one page of 15 operators at a time
 * (GET /leaderboard?search&sortBy&sortOrder&page&limit → {data, total}), searched by handle, sorted by any
 * column, rank ascending by default. Every visit is logged as LEADERBOARD_VIEW (POST /user-activity/log).
 */
export class LeaderboardStore {
  rows: readonly LeaderboardRow[] = [];
  total = 0;
  status: LeaderboardStatus = 'idle';
  /** What the search box shows; the server is asked once typing pauses (`search` is what it was asked). */
  searchText = '';
  search = '';
  sortBy: LeaderboardSortField = DEFAULT_SORT;
  sortOrder: SortOrder = defaultOrderOf(DEFAULT_SORT);
  page = 1;

  private readonly root: RootStore;
  /** Bumped by every load and reset, so that an overtaken answer is dropped. */
  private revision = 0;
  /** Bumped by every enter and leave: a visit starts only if the page is still shown a moment later. */
  private visit = 0;
  private searchTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(root: RootStore) {
    this.root = root;
    makeObservable<this, 'reset' | 'restart'>(this, {
      rows: observableRef,
      total: observable,
      status: observable,
      searchText: observable,
      search: observable,
      sortBy: observable,
      sortOrder: observable,
      page: observable,
      pageCount: computed,
      loading: computed,
      setSearchText: action,
      applySearch: action,
      sort: action,
      goToPage: action,
      reset: action,
      restart: action,
    });
    // Another account (or none): nothing of the previous one stays.
    reaction(
      () => this.root.auth.user?.id ?? null,
      () => this.reset(),
    );
  }

  /** The signed-in operator's id: their own row is highlighted. */
  get viewerId(): string | null {
    return this.root.auth.user?.id ?? null;
  }

  /** Pages of the current search, at least 1 ('Page 1 of 1' when nobody matches). */
  get pageCount(): number {
    return Math.max(1, Math.ceil(this.total / LEADERBOARD_PAGE_SIZE));
  }

  get loading(): boolean {
    return this.status === 'idle' || this.status === 'loading';
  }

  /**
   * The page is shown: start from the first page by rank, load it and log the view. Deferred to a microtask
   * and dropped when `leave()` came first, so that React's development double mount counts as one view.
   */
  enter(): void {
    const visit = ++this.visit;
    queueMicrotask(() => {
      if (visit !== this.visit) return;
      this.restart();
      void this.load();
      void this.logView();
    });
  }

  /** The page is gone: a pending search is dropped, and so is any answer still on its way. */
  leave(): void {
    this.visit += 1;
    this.revision += 1;
    this.clearSearchTimer();
  }

  /** The search box changed: the server is asked after a 300 ms pause, from page 1. */
  setSearchText(text: string) {
    this.searchText = text;
    this.clearSearchTimer();
    this.searchTimer = setTimeout(() => {
      this.searchTimer = null;
      this.applySearch();
    }, SEARCH_DEBOUNCE_MS);
  }

  /** Asks for the search box's handle now (a pause in typing, or Enter). Same search: nothing to ask. */
  applySearch() {
    this.clearSearchTimer();
    const search = this.searchText.trim();
    if (search === this.search) return;
    this.search = search;
    this.page = 1;
    void this.load();
  }

  /** A column header was clicked: the same column flips its order, another starts in its own, from page 1. */
  sort(field: LeaderboardSortField) {
    if (field === this.sortBy) {
      this.sortOrder = this.sortOrder === 'asc' ? 'desc' : 'asc';
    } else {
      this.sortBy = field;
      this.sortOrder = defaultOrderOf(field);
    }
    this.page = 1;
    void this.load();
  }

  goToPage(page: number) {
    const target = Math.min(Math.max(1, page), this.pageCount);
    if (target === this.page) return;
    this.page = target;
    void this.load();
  }

  /** GET /leaderboard for the current search, sort and page; a failure toasts 'Failed to load leaderboard.' */
  async load(): Promise<void> {
    const revision = ++this.revision;
    const params = new URLSearchParams();
    if (this.search) params.set('search', this.search);
    params.set('sortBy', this.sortBy);
    params.set('sortOrder', this.sortOrder);
    params.set('page', String(this.page));
    params.set('limit', String(LEADERBOARD_PAGE_SIZE));
    runInAction(() => (this.status = 'loading'));
    try {
      const answer = await this.root.api.get(`/leaderboard?${params.toString()}`, leaderboardPageSchema);
      if (revision !== this.revision) return;
      const lastPage = Math.max(1, Math.ceil(answer.total / LEADERBOARD_PAGE_SIZE));
      if (answer.data.length === 0 && this.page > lastPage) {
        // The board shrank under us: show its last page instead of an empty one.
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
      log.warn('Could not load the leaderboard', error);
      runInAction(() => (this.status = 'failed'));
      toast.error(LEADERBOARD_LOAD_FAILED);
    }
  }

  /** POST /user-activity/log {activityType: 'LEADERBOARD_VIEW'}; a failure is only logged. */
  async logView(): Promise<void> {
    try {
      await this.root.api.send('POST', '/user-activity/log', { body: { activityType: 'LEADERBOARD_VIEW' } });
    } catch (error) {
      log.warn('Could not log the leaderboard view', error);
    }
  }

  /** Back to the first page by rank, no search. */
  private restart() {
    this.clearSearchTimer();
    this.searchText = '';
    this.search = '';
    this.sortBy = DEFAULT_SORT;
    this.sortOrder = defaultOrderOf(DEFAULT_SORT);
    this.page = 1;
  }

  private reset() {
    this.revision += 1;
    this.restart();
    this.rows = [];
    this.total = 0;
    this.status = 'idle';
  }

  private clearSearchTimer() {
    if (this.searchTimer === null) return;
    clearTimeout(this.searchTimer);
    this.searchTimer = null;
  }
}
