import { API_BASE } from '@exploit-grid/api/contracts/constants';
import { HttpClient, type Session } from './http.ts';

/** No session: the calls of the public pages (contact, careers, security) are made by visitors. */
const noSession: Session = {
  accessToken: () => null,
  refreshInFlight: () => null,
  refresh: () => Promise.reject(new Error('The public pages have no session to refresh.')),
  expired: () => undefined,
};

/**
 * The API client of the public pages. A 401 cannot happen on their calls; were one to come, the failed
 * refresh rejects the call with an error that is not an ApiError, and the page shows its own failure text.
 */
export const publicApi = new HttpClient(API_BASE, noSession);
