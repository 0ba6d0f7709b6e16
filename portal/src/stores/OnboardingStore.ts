import { onboardingSchema, type Onboarding, type OnboardingStep } from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { log } from '../logging.ts';
import type { RootStore } from './RootStore.ts';

export type OnboardingLoadStatus = 'idle' | 'loading' | 'ready' | 'failed';

/** While the dashboard shows an unfinished checklist, it is read again this often (an ssh login has no event). */
export const ONBOARDING_POLL_MS = 15_000;

/**
 * The first-hour checklist (GET /users/me/onboarding): every step as the server saw it, never as this page
 * guesses it. Read when the dashboard shows, and again while it does when something the steps depend on
 * changes (the box, the VPN connection) and every 15 s until the checklist is complete.
 */
export class OnboardingStore {
  status: Onboarding | null = null;
  loadStatus: OnboardingLoadStatus = 'idle';

  private readonly root: RootStore;
  private loading: Promise<void> | null = null;
  /** Bumped by a reset, so that an answer for the previous account is dropped. */
  private revision = 0;

  constructor(root: RootStore) {
    this.root = root;
    makeObservable<this, 'reset'>(this, {
      status: observableRef,
      loadStatus: observable,
      showChecklist: computed,
      firstVisit: computed,
      fought: computed,
      reset: action,
    });
    // Another account (or none): nothing of the previous one stays.
    reaction(
      () => this.root.auth.user?.id ?? null,
      () => this.reset(),
    );
  }

  /** The checklist is shown while it is known and not complete (it never comes back once complete). */
  get showChecklist(): boolean {
    return this.status !== null && !this.status.complete;
  }

  /**
   * Whether the player is still in their first hour (the checklist is not complete): the dashboard then says
   * 'Welcome' rather than 'Welcome Back'. Unknown (null) until the checklist is read; a failed read counts as a
   * returning player (the spec's greeting).
   */
  get firstVisit(): boolean | null {
    if (this.status) return !this.status.complete;
    return this.loadStatus === 'failed' ? false : null;
  }

  /** Whether the player has had a match (FIRST_MATCH); null while unknown or when the read failed. */
  get fought(): boolean | null {
    if (!this.status) return null;
    if (this.status.complete) return true;
    return this.isDone('FIRST_MATCH');
  }

  isDone(step: OnboardingStep): boolean {
    return this.status?.steps.find((s) => s.step === step)?.done ?? false;
  }

  /** GET /users/me/onboarding; concurrent calls share one request. Failures are only logged. */
  load(): Promise<void> {
    this.loading ??= this.fetch().finally(() => (this.loading = null));
    return this.loading;
  }

  private async fetch(): Promise<void> {
    const revision = this.revision;
    runInAction(() => {
      if (this.status === null) this.loadStatus = 'loading';
    });
    try {
      const status = await this.root.api.get('/users/me/onboarding', onboardingSchema);
      if (revision !== this.revision) return;
      runInAction(() => {
        this.status = status;
        this.loadStatus = 'ready';
      });
    } catch (error) {
      if (revision !== this.revision) return;
      log.warn('Could not load the first-hour checklist', error);
      runInAction(() => {
        if (this.status === null) this.loadStatus = 'failed';
      });
    }
  }

  /**
   * Reads the checklist now, then again when the box appears or goes, when the VPN connection changes, and
   * every 15 s, while it is not complete. Returns the function that stops (the dashboard calls it on unmount).
   */
  watch(): () => void {
    void this.load();
    const again = () => {
      if (this.status !== null && !this.status.complete) void this.load();
    };
    const disposers = [
      reaction(() => this.root.auth.box?.id ?? null, again),
      reaction(() => this.root.realtime.vpnConnected, again),
    ];
    const timer = setInterval(again, ONBOARDING_POLL_MS);
    return () => {
      clearInterval(timer);
      for (const dispose of disposers) dispose();
    };
  }

  private reset() {
    this.revision += 1;
    this.status = null;
    this.loadStatus = 'idle';
  }
}
