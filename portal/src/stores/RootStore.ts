import { runInAction } from 'mobx';
import type { HttpClient } from '../api/http.ts';
import { isUnauthorized } from '../api/ApiError.ts';
import { loadContracts } from '../api/contracts.ts';
import { log } from '../logging.ts';
import type { SoundPlayer } from '../notifications/sounds.ts';
import type { SocketFactory } from '../realtime/sockets.ts';
import { paths } from '../routes/paths.ts';
import type { AuthStore, RefreshLocks } from './AuthStore.ts';
import type { BoxStore, FileSaver } from './BoxStore.ts';
import type { ChatStore } from './ChatStore.ts';
import type { DashboardStore } from './DashboardStore.ts';
import type { GridStore } from './GridStore.ts';
import type { HistoryStore } from './HistoryStore.ts';
import type { LeaderboardStore } from './LeaderboardStore.ts';
import type { LedgerStore } from './LedgerStore.ts';
import type { MatchmakingStore } from './MatchmakingStore.ts';
import type { NotificationsStore } from './NotificationsStore.ts';
import type { OnboardingStore } from './OnboardingStore.ts';
import type * as PlansStoreCode from './PlansStore.ts';
import type { PlansStore } from './PlansStore.ts';
import type { RealtimeStore } from './RealtimeStore.ts';
import type { RedeemStore } from './RedeemStore.ts';
import type * as SessionStoresCode from './SessionStores.ts';
import type { SessionStores } from './SessionStores.ts';
import type * as SignedInStoresCode from './SignedInStores.ts';
import type { SignedInStores } from './SignedInStores.ts';
import { hasStoredSession } from './storedSession.ts';
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

/** The code of the store groups, once loaded: each is a chunk of its own. */
let sessionCode: typeof SessionStoresCode | null = null;
let signedInCode: typeof SignedInStoresCode | null = null;
let plansCode: typeof PlansStoreCode | null = null;

/**
 * Loads the code of the session's stores (auth and the HTTP clients) once. The routes of pages that use them
 * wait for it before they render.
 */
export async function loadSessionStores(): Promise<void> {
  // A saved session is restored at once, its user and box checked against the contracts: they come first
  // (without them, the user is loaded again). A visitor with no session downloads no zod here.
  const [code] = await Promise.all([
    import('./SessionStores.ts'),
    hasStoredSession()
      ? loadContracts().catch((error: unknown) => {
          log.warn('Could not load the schemas: the saved session comes back without its user', error);
          return null;
        })
      : null,
  ]);
  sessionCode ??= code;
}

/**
 * Loads the code of the signed-in stores (and socket.io-client with it) and of the session's, once. The
 * authenticated layout's route waits for it before it renders; the public pages never load it.
 */
export async function loadSignedInStores(): Promise<void> {
  // The signed-in stores read with the contracts' schemas, so the contracts load with them.
  const [, code] = await Promise.all([
    loadSessionStores(),
    import('./SignedInStores.ts'),
    loadContracts(),
    loadPlansStore(),
  ]);
  signedInCode ??= code;
}

/**
 * Loads the plans store's code once (with the session's): `/pricing` and the signed-in layout wait for it.
 * The sign-in pages do not, so they download neither it nor the plans' texts.
 */
export async function loadPlansStore(): Promise<void> {
  const [, code] = await Promise.all([loadSessionStores(), import('./PlansStore.ts')]);
  plansCode ??= code;
}

/**
 * The stores, each made once: the UI store at once, the others made on first use, whose code loads only
 * with the pages that need it (route-level code splitting reaching the stores): the session's
 * (`SessionStores`: api and ai clients, auth) after `loadSessionStores()`, the plans after
 * `loadPlansStore()`, the signed-in ones (`SignedInStores`: realtime, box, grid, matchmaking, chat, ...) after
 * `loadSignedInStores()`. Using a store whose code has not loaded throws.
 */
export class RootStore {
  readonly ui: UiStore;
  /** Leaves the portal's page for another document (see `RootStoreOptions.assignLocation`). */
  readonly assignLocation: (url: string) => void;

  private readonly options: RootStoreOptions;
  private sessionStores: SessionStores | null = null;
  private signedInStores: SignedInStores | null = null;
  private plansStore: PlansStore | null = null;
  private navigator: Navigator | null = null;
  private ending: Promise<void> | null = null;

  constructor(options: RootStoreOptions = {}) {
    this.options = options;
    this.ui = new UiStore();
    this.assignLocation = options.assignLocation ?? ((url) => window.location.assign(url));
  }

  get api(): HttpClient {
    return this.session.api;
  }

  get ai(): HttpClient {
    return this.session.ai;
  }

  get auth(): AuthStore {
    return this.session.auth;
  }

  /** The plans (`/pricing` and the signed-in pages), made on first use (its code: `loadPlansStore()`). */
  get plans(): PlansStore {
    if (!this.plansStore) {
      const code = plansCode;
      if (!code) throw new Error('The plans store was used before loadPlansStore()');
      runInAction(() => (this.plansStore = new code.PlansStore(this)));
    }
    return this.plansStore!;
  }

  get realtime(): RealtimeStore {
    return this.signedIn.realtime;
  }

  get dashboard(): DashboardStore {
    return this.signedIn.dashboard;
  }

  get box(): BoxStore {
    return this.signedIn.box;
  }

  get history(): HistoryStore {
    return this.signedIn.history;
  }

  get grid(): GridStore {
    return this.signedIn.grid;
  }

  get matchmaking(): MatchmakingStore {
    return this.signedIn.matchmaking;
  }

  get notifications(): NotificationsStore {
    return this.signedIn.notifications;
  }

  get chat(): ChatStore {
    return this.signedIn.chat;
  }

  get leaderboard(): LeaderboardStore {
    return this.signedIn.leaderboard;
  }

  get redeem(): RedeemStore {
    return this.signedIn.redeem;
  }

  get ledger(): LedgerStore {
    return this.signedIn.ledger;
  }

  get onboarding(): OnboardingStore {
    return this.signedIn.onboarding;
  }

  /** The session's stores, made on first use (their code must be loaded: `loadSessionStores()`). */
  private get session(): SessionStores {
    if (!this.sessionStores) {
      const code = sessionCode;
      if (!code) throw new Error('A session store was used before loadSessionStores()');
      // One MobX batch: the stores' reactions first run once the whole group is in place (the plans' reads
      // `auth`), as they did when the root made every store in its constructor.
      runInAction(() => (this.sessionStores = new code.SessionStores(this, this.options)));
    }
    return this.sessionStores!;
  }

  /** The signed-in stores, made on first use (their code must be loaded: `loadSignedInStores()`). */
  private get signedIn(): SignedInStores {
    if (!this.signedInStores) {
      const code = signedInCode;
      if (!code) throw new Error('A signed-in store was used before loadSignedInStores()');
      runInAction(() => (this.signedInStores = new code.SignedInStores(this, this.options)));
    }
    return this.signedInStores!;
  }

  /** Logging out: the sockets, if this page ever opened them, say so and close. */
  closeRealtimeForLogout() {
    this.signedInStores?.realtime.closeForLogout();
  }

  /** Stops following the session other tabs write (tests make many stores in one page). */
  dispose() {
    this.sessionStores?.auth.dispose();
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
