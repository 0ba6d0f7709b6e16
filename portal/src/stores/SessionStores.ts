import { AI_API_BASE, API_BASE } from '@exploit-grid/api/contracts/constants';
import { HttpClient, type Session } from '../api/http.ts';
import { AuthStore, type RefreshLocks } from './AuthStore.ts';
import type { RootStore, RootStoreOptions } from './RootStore.ts';

/**
 * The session and what talks to the API: the two HTTP clients (main API and AI API) that share it (one
 * token, one refresh at a time, one way out when the session cannot be renewed) and the AuthStore. Their
 * code loads with the pages that need it, the sign-in pages, /pricing and the authenticated layout; the home page and the other content pages never download it. It
 * reads answers with the API's schemas, which load on first use (api/contracts.ts), so that the public pages
 * download no zod.
 */
export class SessionStores {
  readonly api: HttpClient;
  readonly ai: HttpClient;
  readonly auth: AuthStore;

  constructor(root: RootStore, options: RootStoreOptions) {
    const session: Session = {
      accessToken: () => this.auth.accessToken,
      refreshInFlight: () => this.auth.refreshInFlight(),
      refresh: () => this.auth.refresh(),
      expired: () => void root.endExpiredSession(),
    };
    this.api = new HttpClient(API_BASE, session);
    this.ai = new HttpClient(AI_API_BASE, session);
    this.auth = new AuthStore(
      root,
      options.storage ?? localStorage,
      options.redirectStorage ?? sessionStorage,
      options.locks === undefined ? browserLocks() : options.locks,
    );
  }
}

/** The browser's Web Locks, where it has them (not in older browsers, nor in jsdom). */
function browserLocks(): RefreshLocks | null {
  return typeof navigator === 'undefined' ? null : ((navigator.locks as LockManager | undefined) ?? null);
}
