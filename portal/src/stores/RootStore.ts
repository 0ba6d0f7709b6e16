import { AI_API_BASE, API_BASE } from '@exploit-grid/api/contracts';
import { isUnauthorized } from '../api/ApiError.ts';
import { HttpClient, type Session } from '../api/http.ts';
import { log } from '../logging.ts';
import type { SocketFactory } from '../realtime/sockets.ts';
import { paths } from '../routes/paths.ts';
import { AuthStore, type RefreshLocks } from './AuthStore.ts';
import { BoxStore, type FileSaver } from './BoxStore.ts';
import { ChatStore } from './ChatStore.ts';
import { DashboardStore } from './DashboardStore.ts';
import { GridStore, type SoundPlayer } from './GridStore.ts';
import { HistoryStore } from './HistoryStore.ts';
import { LeaderboardStore } from './LeaderboardStore.ts';
import { LedgerStore } from './LedgerStore.ts';
import { OnboardingStore } from './OnboardingStore.ts';
import { PlansStore } from './PlansStore.ts';
import { RealtimeStore } from './RealtimeStore.ts';
import { RedeemStore } from './RedeemStore.ts';
import { UiStore } from './UiStore.ts';

/** The parts of a react-router data router the stores use to read the location and navigate. */
export interface Navigator {
  readonly state: { readonly location: { readonly pathname: string; readonly search: string } };
  navigate(to: string, options?: { replace?: boolean }): unknown;
}

export type RootStoreOptions = {
  /** Where the session is persisted; localStorage by default. */
  storage?: Storage;
  /** Where the post-login redirect is kept; sessionStorage by default. */
  redirectStorage?: Storage;
  /** Opens the realtime sockets; tests pass a fake. */
  socketFactory?: SocketFactory;
  /**
   * Makes refreshes exclusive across the tabs of this browser: `navigator.locks` (Web Locks) by default;
   * null where there is none, leaving one refresh at a time within this tab only.
   */
  locks?: RefreshLocks | null;
  /** Saves downloaded files (VPN configs); a Blob behind a temporary `<a download>` by default. */
  saveFile?: FileSaver;
  /** Plays the game's sounds; an HTMLAudioElement by default. */
  playSound?: SoundPlayer;
  /**
   * Loads another document (a payment provider's checkout, or the checkout page that needs its own
   * security policy): `window.location.assign` by default.
   */
  assignLocation?: (url: string) => void;
};

/**
 * Creates every store once, and the two HTTP clients (main API and AI API) that share the session:
 * one token, one refresh at a time, one way out when the session cannot be renewed.
 */
export class RootStore {
  readonly api: HttpClient;
  readonly ai: HttpClient;
  readonly ui: UiStore;
  readonly auth: AuthStore;
  readonly realtime: RealtimeStore;
  readonly dashboard: DashboardStore;
  readonly box: BoxStore;
  readonly history: HistoryStore;
  readonly grid: GridStore;
  readonly chat: ChatStore;
  readonly leaderboard: LeaderboardStore;
  readonly plans: PlansStore;
  readonly redeem: RedeemStore;
  readonly ledger: LedgerStore;
  readonly onboarding: OnboardingStore;
  /** Leaves the portal's page for another document (see `RootStoreOptions.assignLocation`). */
  readonly assignLocation: (url: string) => void;

  private navigator: Navigator | null = null;
  private ending: Promise<void> | null = null;

  constructor(options: RootStoreOptions = {}) {
    const session: Session = {
      accessToken: () => this.auth.accessToken,
      refreshInFlight: () => this.auth.refreshInFlight(),
      refresh: () => this.auth.refresh(),
      expired: () => void this.endExpiredSession(),
    };
    this.api = new HttpClient(API_BASE, session);
    this.ai = new HttpClient(AI_API_BASE, session);
    this.ui = new UiStore();
    this.auth = new AuthStore(
      this,
      options.storage ?? localStorage,
      options.redirectStorage ?? sessionStorage,
      options.locks === undefined ? browserLocks() : options.locks,
    );
    this.realtime = new RealtimeStore(this, options.socketFactory);
    this.box = new BoxStore(this, options.saveFile);
    this.dashboard = new DashboardStore(this);
    this.history = new HistoryStore(this);
    this.grid = new GridStore(this, options.storage ?? localStorage, options.playSound);
    this.leaderboard = new LeaderboardStore(this);
    this.chat = new ChatStore(this);
    this.plans = new PlansStore(this);
    this.redeem = new RedeemStore(this);
    this.ledger = new LedgerStore(this);
    this.onboarding = new OnboardingStore(this);
    this.assignLocation = options.assignLocation ?? ((url) => window.location.assign(url));
  }

  /** Stops following the session other tabs write (tests make many stores in one page). */
  dispose() {
    this.auth.dispose();
  }

  /** The router, once created, so that stores can navigate (a session that ends takes the user to /login). */
  attachRouter(navigator: Navigator) {
    this.navigator = navigator;
  }

  navigate(to: string, options?: { replace?: boolean }) {
    if (this.navigator) void this.navigator.navigate(to, options);
    else window.location.assign(to);
  }

  /** Path and query of the page shown now. */
  currentPath(): string {
    const { pathname, search } = this.navigator?.state.location ?? window.location;
    return pathname + search;
  }

  /**
   * Renews the access token. When the refresh is refused (401) the session ends as if an API call had been
   * refused; any other failure (429, 5xx, no answer) keeps the session and is only logged.
   */
  renewSession() {
    this.auth.refresh().catch((error: unknown) => {
      log.warn('Could not renew the session', error);
      if (isUnauthorized(error)) void this.endExpiredSession();
    });
  }

  /**
   * The refresh token was refused with 401 (core-app section 8): remember the page for after the next login, log
   * out, go to /login. Many requests failing together end the session once.
   */
  endExpiredSession(): Promise<void> {
    this.ending ??= (async () => {
      this.auth.rememberRedirect(this.currentPath());
      await this.auth.logout();
      this.navigate(paths.login, { replace: true });
    })().finally(() => (this.ending = null));
    return this.ending;
  }
}

/** The browser's Web Locks, where it has them (not in older browsers, nor in jsdom). */
function browserLocks(): RefreshLocks | null {
  return typeof navigator === 'undefined' ? null : ((navigator.locks as LockManager | undefined) ?? null);
}
