import type {
  BalancePayload,
  Box,
  ProvidersResponse,
  SignupRequest,
  SocialProvider,
  User,
} from '@exploit-grid/api/contracts';
import { SOCIAL_PROVIDERS } from '@exploit-grid/api/contracts/constants';
import { action, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { loadContracts, loadedContracts } from '../api/contracts.ts';
import type { Parser } from '../api/http.ts';
import { log } from '../logging.ts';
import { paths } from '../routes/paths.ts';
import { MailCooldowns } from './MailCooldowns.ts';
import type { RootStore } from './RootStore.ts';
import { AUTH_STORAGE_KEY, AUTH_STORAGE_VERSION } from './storedSession.ts';

/** localStorage key of the persisted session and its version (core-app sections 3 and 9). */
export { AUTH_STORAGE_KEY, AUTH_STORAGE_VERSION };
/** sessionStorage key of the path to return to after logging in. */
export const REDIRECT_STORAGE_KEY = 'exploit-grid.redirect';
/** Web Lock held while a tab refreshes: the tabs of one browser share the refresh cookie. */
export const REFRESH_LOCK = 'exploit-grid.refresh';

/** The part of the Web Locks API (`navigator.locks`) that serialises refreshes across tabs. */
export type RefreshLocks = {
  request<T>(name: string, callback: LockGrantedCallback<T>): Promise<T>;
};

/**
 * The envelope of a saved session, which decides whether it is usable (its version, a token or null); user and
 * box are only a head start, checked against their schemas when the contracts are here.
 */
function persistedEnvelope(
  stored: unknown,
): { accessToken: string | null; user: unknown; box: unknown } | null {
  if (typeof stored !== 'object' || stored === null) return null;
  const { version, state } = stored as Record<string, unknown>;
  if (version !== AUTH_STORAGE_VERSION || typeof state !== 'object' || state === null) return null;
  const { accessToken, user, box } = state as Record<string, unknown>;
  if (accessToken !== null && typeof accessToken !== 'string') return null;
  return { accessToken, user, box };
}
type PersistedState = { accessToken: string | null; user: User | null; box: Box | null };
type PersistedAuth = { version: typeof AUTH_STORAGE_VERSION; state: PersistedState };
const signedOut: PersistedState = { accessToken: null, user: null, box: null };

/**
 * GET /auth/providers, read without zod: the sign-in pages ask at once, before anyone touches the form. A
 * provider this portal does not know (a newer server) is left out rather than failing the list.
 */
export const providersAnswer: Parser<ProvidersResponse> = {
  parse(data) {
    const list = typeof data === 'object' && data !== null && 'providers' in data ? data.providers : null;
    if (!Array.isArray(list)) throw new Error('GET /auth/providers: no list of providers');
    const known: readonly unknown[] = SOCIAL_PROVIDERS;
    return { providers: list.filter((name): name is SocialProvider => known.includes(name)) };
  },
};

export type UserStatus = 'idle' | 'loading' | 'ready' | 'failed';

/** Pages a redirect after login must never lead back to. */
const authPages: ReadonlySet<string> = new Set([
  paths.login,
  paths.signup,
  paths.forgotPassword,
  paths.resetPassword,
  paths.awaitingVerification,
]);

/**
 * The session (access token, user, box) persisted under one localStorage key, and every account call.
 * The refresh token never reaches script: it is an httpOnly cookie the API sets, shared by every tab of the
 * browser. The tabs share the persisted session too: each follows what another writes (a renewed token, a
 * logout), and refreshes take a Web Lock so that two tabs never present the same refresh token (the server
 * would take that for a stolen token and end the session).
 */
export class AuthStore {
  accessToken: string | null = null;
  user: User | null = null;
  /** The operator's box as last seen (the BoxStore keeps it current); null when they have none. */
  box: Box | null = null;
  userStatus: UserStatus = 'idle';
  /** Social sign-in providers the API has enabled. */
  providers: readonly SocialProvider[] = [];
  /** When the verification and reset links may be asked for again, per address. */
  readonly mailCooldowns = new MailCooldowns();

  private readonly root: RootStore;
  private readonly storage: Storage;
  private readonly redirectStorage: Storage;
  private readonly locks: RefreshLocks | null;
  private refreshing: Promise<string> | null = null;
  private loadingUser: Promise<User> | null = null;
  /** The last balance the grid pushed while GET /users/me was on its way: newer than what that answers. */
  private balanceWhileLoading: BalancePayload | null = null;
  private loggingOut: Promise<void> | null = null;
  private readonly exchanges = new Map<string, Promise<void>>();

  constructor(
    root: RootStore,
    storage: Storage,
    redirectStorage: Storage,
    locks: RefreshLocks | null = null,
  ) {
    this.root = root;
    this.storage = storage;
    this.redirectStorage = redirectStorage;
    this.locks = locks;
    makeObservable<this>(this, {
      accessToken: observable,
      user: observableRef,
      box: observableRef,
      userStatus: observable,
      providers: observableRef,
      setAccessToken: action,
      setUser: action,
      setBox: action,
      applyBalance: action,
      clear: action,
    });
    this.restore();
    reaction(
      () => ({ accessToken: this.accessToken, user: this.user, box: this.box }),
      (state) => this.persist({ version: AUTH_STORAGE_VERSION, state }),
    );
    if (typeof window !== 'undefined') window.addEventListener('storage', this.onStorage);
  }

  /** Stops following the other tabs (the app's store lives as long as the page; tests make many). */
  dispose() {
    if (typeof window !== 'undefined') window.removeEventListener('storage', this.onStorage);
  }

  get signedIn(): boolean {
    return this.accessToken !== null;
  }

  /** Clearing the token ends the session: user and box go with it. */
  setAccessToken(token: string | null) {
    this.accessToken = token;
    if (token === null) {
      this.user = null;
      this.box = null;
      this.userStatus = 'idle';
    }
  }

  setUser(user: User | null) {
    this.user = user;
  }

  setBox(box: Box | null) {
    this.box = box;
  }

  /**
   * The grid said the balances changed (a purchase credited, a gift, a refund, box time): the sidebar and
   * the pages that show them follow without reloading the user.
   */
  applyBalance(balance: BalancePayload) {
    if (this.loadingUser) this.balanceWhileLoading = balance;
    if (!this.user) return;
    this.user = { ...this.user, credits: balance.credits, freeCredits: balance.freeCredits };
  }

  clear() {
    this.setAccessToken(null);
  }

  /** POST /auth/login, then the current user. Rejects with the API's error. */
  async login(email: string, password: string): Promise<void> {
    const { accessTokenResponse } = await loadContracts();
    const answer = await this.root.api.post('/auth/login', accessTokenResponse, {
      body: { email, password },
    });
    this.startSession(answer.access_token);
    await this.loadUser();
  }

  /**
   * Trades the one-time code of a social sign-in for a session, replacing any session this tab had. The
   * same code is exchanged only once.
   */
  exchangeSocialCode(code: string): Promise<void> {
    let exchange = this.exchanges.get(code);
    if (!exchange) {
      exchange = loadContracts()
        .then(({ accessTokenResponse }) =>
          this.root.api.post('/auth/social/exchange', accessTokenResponse, { body: { code } }),
        )
        .then(async (answer) => {
          this.startSession(answer.access_token);
          await this.loadUser();
        });
      this.exchanges.set(code, exchange);
    }
    return exchange;
  }

  /** POST /auth/signup. Its verification mail counts against the cooldown of Resend. */
  async signup(request: Required<SignupRequest>): Promise<string> {
    const { messageResponse } = await loadContracts();
    const { message } = await this.root.api.post('/auth/signup', messageResponse, { body: request });
    this.mailCooldowns.sent('verify', request.email);
    return message;
  }

  forgotPassword(email: string): Promise<string> {
    return this.mailCooldowns.track('reset', email, async () => {
      const { messageResponse } = await loadContracts();
      return (await this.root.api.post('/auth/forgot-password', messageResponse, { body: { email } }))
        .message;
    });
  }

  async resetPassword(token: string, password: string): Promise<string> {
    const { messageResponse } = await loadContracts();
    return (await this.root.api.post('/auth/reset-password', messageResponse, { body: { token, password } }))
      .message;
  }

  resendVerification(email: string): Promise<string> {
    return this.mailCooldowns.track('verify', email, async () => {
      const { messageResponse } = await loadContracts();
      return (await this.root.api.post('/auth/resend-verification', messageResponse, { body: { email } }))
        .message;
    });
  }

  /** GET /auth/providers; on failure no social buttons are offered. */
  async loadProviders(): Promise<void> {
    try {
      const { providers } = await this.root.api.get('/auth/providers', providersAnswer);
      runInAction(() => (this.providers = providers));
    } catch (error) {
      log.warn('Could not load social sign-in providers', error);
    }
  }

  /**
   * GET /users/me. Concurrent calls share one request. A user already loaded in this page stays `ready`
   * while it reloads; otherwise the status is `loading` until the answer.
   */
  loadUser(): Promise<User> {
    if (!this.loadingUser) {
      if (this.userStatus !== 'ready') runInAction(() => (this.userStatus = 'loading'));
      this.balanceWhileLoading = null;
      this.loadingUser = loadContracts()
        .then(({ userSchema }) => this.root.api.get('/users/me', userSchema))
        .then(
          (answer) => {
            // The answer may have been read before a change the grid has already reported.
            const pushed = this.balanceWhileLoading;
            const user = pushed
              ? { ...answer, credits: pushed.credits, freeCredits: pushed.freeCredits }
              : answer;
            runInAction(() => {
              if (this.accessToken === null) return;
              this.user = user;
              this.userStatus = 'ready';
            });
            return user;
          },
          (error: unknown) => {
            runInAction(() => (this.userStatus = 'failed'));
            throw error;
          },
        )
        .finally(() => {
          this.loadingUser = null;
          this.balanceWhileLoading = null;
        });
    }
    return this.loadingUser;
  }

  refreshInFlight(): Promise<string> | null {
    return this.refreshing;
  }

  /**
   * Renews the access token; every caller in this tab during one refresh gets the same answer. With Web
   * Locks, one tab at a time: holding the lock, a tab first looks at the persisted session, and when another
   * tab has already stored a token other than the one refused here it takes that one instead of presenting
   * the refresh cookie again. Without Web Locks, one refresh at a time within this tab only.
   */
  refresh(): Promise<string> {
    this.refreshing ??= this.renewExclusively(this.accessToken).finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async renewExclusively(refused: string | null): Promise<string> {
    if (!this.locks) return this.renew();
    return await this.locks.request(REFRESH_LOCK, () => this.renewUnlessRenewed(refused));
  }

  /** Holding the refresh lock: a token another tab stored meanwhile is taken, not renewed again. */
  private async renewUnlessRenewed(refused: string | null): Promise<string> {
    // The saved session's user and box are read with the schemas (the renewal needs them anyway).
    await loadContracts();
    const stored = this.readPersisted();
    if (stored !== null && stored.accessToken !== null && stored.accessToken !== refused) {
      this.adopt(stored);
      return stored.accessToken;
    }
    return this.renew();
  }

  /** POST /auth/refresh with the cookie. */
  private async renew(): Promise<string> {
    const { accessTokenResponse } = await loadContracts();
    const answer = await this.root.api.post('/auth/refresh', accessTokenResponse);
    this.setAccessToken(answer.access_token);
    return answer.access_token;
  }

  /**
   * POST /auth/logout (a failure is only logged), then tell the grid, close both sockets and forget the
   * session (core-app section 4). Logging out while a logout is under way joins it.
   */
  logout(): Promise<void> {
    this.loggingOut ??= (async () => {
      try {
        await this.root.api.send('POST', '/auth/logout');
      } catch (error) {
        log.warn('Logout was not confirmed by the server', error);
      }
      this.root.closeRealtimeForLogout();
      this.clear();
    })().finally(() => (this.loggingOut = null));
    return this.loggingOut;
  }

  /** Where to go after the next login (path and query). Auth pages themselves are never remembered. */
  rememberRedirect(pathWithQuery: string) {
    const pathname = pathWithQuery.split(/[?#]/, 1)[0] ?? '';
    if (authPages.has(pathname) || !isLocalPath(pathWithQuery)) return;
    try {
      this.redirectStorage.setItem(REDIRECT_STORAGE_KEY, pathWithQuery);
    } catch (error) {
      log.warn('Could not remember the page to return to', error);
    }
  }

  /** The remembered post-login path, once; null when there is none. */
  takeRedirect(): string | null {
    try {
      const path = this.redirectStorage.getItem(REDIRECT_STORAGE_KEY);
      this.redirectStorage.removeItem(REDIRECT_STORAGE_KEY);
      return path !== null && isLocalPath(path) ? path : null;
    } catch {
      return null;
    }
  }

  /** A new session of this tab: the user and box of any previous one (maybe another account) go. */
  private startSession(token: string) {
    runInAction(() => {
      this.setAccessToken(null);
      this.setAccessToken(token);
    });
  }

  private restore() {
    const stored = this.readPersisted();
    if (stored === null) {
      this.persist({ version: AUTH_STORAGE_VERSION, state: signedOut });
      return;
    }
    if (stored.accessToken === null) return;
    this.accessToken = stored.accessToken;
    this.user = stored.user;
    this.box = stored.box;
  }

  /**
   * The session as persisted now (by this tab or another); signed out when nothing is saved, null when what
   * is saved is unreadable or of another version.
   */
  private readPersisted(): PersistedState | null {
    let raw: string | null = null;
    try {
      raw = this.storage.getItem(AUTH_STORAGE_KEY);
    } catch (error) {
      log.warn('Could not read the saved session', error);
    }
    if (raw === null) return signedOut;
    let stored: unknown = null;
    try {
      stored = JSON.parse(raw);
    } catch {
      // Unreadable: like any other unknown version.
    }
    const envelope = persistedEnvelope(stored);
    if (envelope === null) return null;
    const { accessToken, user, box } = envelope;
    if (accessToken === null) return signedOut;
    // A user or box saved by an older shape of the contract is dropped, not the session: the layout
    // loads the user again on entry anyway. Without the contracts (a public page, where a session saved
    // meanwhile by another tab is adopted) they wait for that load too.
    const contracts = loadedContracts();
    return {
      accessToken,
      user: contracts?.userSchema.safeParse(user).data ?? null,
      box: contracts?.boxSchema.safeParse(box).data ?? null,
    };
  }

  /**
   * Takes the session another tab persisted: its token, user and box, exactly, so that writing them back
   * changes nothing and the tabs never echo each other. Without a user (another tab has just signed in),
   * this tab loads it.
   */
  private adopt(stored: PersistedState) {
    if (stored.accessToken === null) {
      if (this.accessToken !== null) this.clear();
      return;
    }
    runInAction(() => {
      this.accessToken = stored.accessToken;
      this.user = stored.user;
      this.box = stored.box;
    });
    if (stored.user === null) {
      this.loadUser().catch((error: unknown) => log.warn('Could not load the current user', error));
    }
  }

  /**
   * Another tab wrote the session (a renewed token, a login, a logout, a fresher user) or cleared the
   * storage. What it wrote is read again from the storage (never trusted from the event); a value this
   * portal cannot read, such as one of another version, is ignored, and so is, for the same token, a user
   * it cannot read (a tab of an older build): otherwise the two would keep rewriting each other.
   */
  private readonly onStorage = (event: StorageEvent) => {
    if (event.key !== null && event.key !== AUTH_STORAGE_KEY) return;
    if (event.storageArea !== null && event.storageArea !== this.storage) return;
    if (loadedContracts() === null) {
      // This tab shows a public page and has no schemas yet: read what another tab saved once they are here,
      // so that taking its session never writes its user and box back as nothing.
      loadContracts().then(
        () => this.onStorage(event),
        (error: unknown) =>
          log.warn('Could not load the schemas to read the session another tab saved', error),
      );
      return;
    }
    const stored = this.readPersisted();
    if (stored === null) return;
    if (stored.accessToken !== this.accessToken) {
      this.adopt(stored);
      return;
    }
    const fresher =
      stored.user !== null &&
      JSON.stringify([stored.user, stored.box]) !== JSON.stringify([this.user, this.box]);
    if (fresher) this.adopt(stored);
  };

  private persist(value: PersistedAuth) {
    try {
      this.storage.setItem(AUTH_STORAGE_KEY, JSON.stringify(value));
    } catch (error) {
      log.warn('Could not save the session', error);
    }
  }
}

/** Same-origin paths only: a remembered redirect must never send the user to another site. */
function isLocalPath(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
}
