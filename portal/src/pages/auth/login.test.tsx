import { EMAIL_INVALID, EMAIL_NOT_VERIFIED } from '@exploit-grid/api/contracts/constants';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  CONTINUE_WITH,
  EMAIL_LABEL,
  EMAIL_NOT_VERIFIED_NOTICE,
  EXCHANGING_SOCIAL_TOKEN,
  FORGOT_PASSWORD_LINK,
  LOGIN_FAILED_DEFAULT,
  LOG_IN,
  OR,
  PASSWORD_LABEL,
  SIGNUP_LINK,
  SOCIAL_LOGIN_FAILED,
  SOCIAL_TOKEN_INVALID,
  STAY_SIGNED_IN,
  SWITCH_ACCOUNT,
  VERIFIED_OK,
  VERIFY_EXPIRED_OR_INVALID,
  VERIFY_UNKNOWN_ANOMALY,
  alreadySignedInAs,
  awaitingText,
  loginFailed,
} from '../../strings/auth.ts';
import { WELCOME_BACK } from '../../strings/dashboard.ts';
import { RootStore } from '../../stores/RootStore.ts';
import {
  deferred,
  fail,
  fakeApi,
  reply,
  testBox,
  testUser,
  tokenAnswer,
  type FakeReply,
} from '../../testing/fakeApi.ts';
import { fakeSockets } from '../../testing/fakeSockets.ts';
import { locationOf, renderRoute } from '../../test-utils.tsx';

const signedInRoutes = {
  'GET /users/me': reply(200, testUser),
  'GET /user/stats': reply(200, { rank: null, attacksWon: 0, defensesWon: 0 }),
  'GET /boxes/my': reply(200, null),
};

async function logIn(email = 'zero@example.com', password = 'hunter22') {
  fireEvent.change(await screen.findByLabelText(EMAIL_LABEL), { target: { value: email } });
  fireEvent.change(screen.getByLabelText(PASSWORD_LABEL), { target: { value: password } });
  fireEvent.click(screen.getByRole('button', { name: LOG_IN }));
}

describe('login page', () => {
  it("is titled 'Log In | Exploit Grid', noindex, and links to forgot password and signup", async () => {
    fakeApi({ 'GET /auth/providers': reply(200, { providers: [] }) });
    renderRoute('/login');
    expect((await screen.findByRole('link', { name: FORGOT_PASSWORD_LINK })).getAttribute('href')).toBe(
      '/forgot-password',
    );
    expect(screen.getByRole('link', { name: SIGNUP_LINK }).getAttribute('href')).toBe('/signup');
    await waitFor(() => expect(document.title).toBe('Log In | Exploit Grid'));
    expect(document.head.querySelector<HTMLMetaElement>('meta[name="robots"]')?.content).toBe(
      'noindex, nofollow',
    );
  });

  it("offers 'Continue with' buttons under an 'Or' divider for the enabled providers only", async () => {
    fakeApi({ 'GET /auth/providers': reply(200, { providers: ['github', 'linkedin'] }) });
    renderRoute('/login');
    const github = await screen.findByRole('link', { name: `${CONTINUE_WITH} GitHub` });
    expect(github.getAttribute('href')).toBe('/api/v1/auth/github');
    expect(screen.getByRole('link', { name: `${CONTINUE_WITH} LinkedIn` }).getAttribute('href')).toBe(
      '/api/v1/auth/linkedin',
    );
    expect(screen.queryByRole('link', { name: `${CONTINUE_WITH} Google` })).toBeNull();
    expect(screen.getByText(OR)).toBeTruthy();
  });

  it('shows neither divider nor social buttons when no provider is enabled', async () => {
    fakeApi({ 'GET /auth/providers': reply(200, { providers: [] }) });
    renderRoute('/login');
    await screen.findByLabelText(EMAIL_LABEL);
    expect(screen.queryByText(OR)).toBeNull();
    expect(screen.queryByRole('link', { name: new RegExp(CONTINUE_WITH) })).toBeNull();
  });

  it('checks the email format before calling the API', async () => {
    const api = fakeApi();
    renderRoute('/login');
    await logIn('not-an-email', 'hunter22');
    expect(await screen.findByText(EMAIL_INVALID)).toBeTruthy();
    expect(api.callsTo('POST /auth/login')).toHaveLength(0);
  });

  it('stores the token, loads the user and goes to /dashboard', async () => {
    const api = fakeApi({ 'POST /auth/login': tokenAnswer('token-1'), ...signedInRoutes });
    const { router, store } = renderRoute('/login');
    await logIn();
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard'));
    expect(api.callsTo('POST /auth/login')[0]?.body).toEqual({
      email: 'zero@example.com',
      password: 'hunter22',
    });
    expect(store.auth.accessToken).toBe('token-1');
    expect(store.auth.user).toEqual(testUser);
    expect(await screen.findByRole('heading', { name: new RegExp(WELCOME_BACK) })).toBeTruthy();
  });

  it('goes to the remembered page after login', async () => {
    fakeApi({ 'POST /auth/login': tokenAnswer('token-1'), ...signedInRoutes });
    sessionStorage.setItem('exploit-grid.redirect', '/history?page=2');
    const { router } = renderRoute('/login');
    await logIn();
    await waitFor(() => expect(locationOf(router)).toBe('/history?page=2'));
  });

  it('sends an unverified operator to /awaiting-verification with the email', async () => {
    fakeApi({ 'POST /auth/login': fail(403, EMAIL_NOT_VERIFIED) });
    const { router } = renderRoute('/login');
    await logIn('pending@example.com');
    expect(await screen.findByText(EMAIL_NOT_VERIFIED_NOTICE)).toBeTruthy();
    await waitFor(() => expect(locationOf(router)).toBe('/awaiting-verification'));
    expect(router.state.location.state).toEqual({ email: 'pending@example.com' });
    expect(await screen.findByText(awaitingText('pending@example.com'))).toBeTruthy();
  });

  it("shows 'Authentication failed: {message}' for other refusals", async () => {
    fakeApi({ 'POST /auth/login': fail(401, 'Invalid credentials.') });
    const { router } = renderRoute('/login');
    await logIn();
    expect(await screen.findByText(loginFailed('Invalid credentials.'))).toBeTruthy();
    expect(locationOf(router)).toBe('/login');
  });

  it("shows 'Invalid credentials.' when the failure carries no message", async () => {
    fakeApi();
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
    renderRoute('/login');
    await logIn();
    expect(await screen.findByText(LOGIN_FAILED_DEFAULT)).toBeTruthy();
  });

  it.each([
    ['?verified=true', VERIFIED_OK],
    ['?verified=false&reason=expired_or_invalid', VERIFY_EXPIRED_OR_INVALID],
    ['?verified=false&reason=something_else', VERIFY_UNKNOWN_ANOMALY],
  ])('after email verification (%s) says so', async (query, text) => {
    fakeApi();
    renderRoute(`/login${query}`);
    expect(await screen.findByText(text)).toBeTruthy();
  });

  it('exchanges a social sign-in token once, then goes to /dashboard', async () => {
    const api = fakeApi({ 'POST /auth/social/exchange': tokenAnswer('token-social'), ...signedInRoutes });
    const { router, store } = renderRoute('/login?token=one-time-code');
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard'));
    expect(api.callsTo('POST /auth/social/exchange').map((c) => c.body)).toEqual([{ code: 'one-time-code' }]);
    expect(store.auth.accessToken).toBe('token-social');
  });

  it("says 'Invalid or expired token.' when the social token is refused, and drops it from the address", async () => {
    fakeApi({ 'POST /auth/social/exchange': fail(401, 'Invalid or expired token.') });
    const { router } = renderRoute('/login?token=used-code');
    expect(await screen.findByText(SOCIAL_TOKEN_INVALID)).toBeTruthy();
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(screen.getByLabelText(EMAIL_LABEL)).toBeTruthy();
  });

  it("says 'Failed to authenticate with social login.' for any other failure", async () => {
    fakeApi({ 'POST /auth/social/exchange': fail(500, 'Boom') });
    renderRoute('/login?token=code');
    expect(await screen.findByText(SOCIAL_LOGIN_FAILED)).toBeTruthy();
  });

  it('takes the social code out of the address as soon as it is read', async () => {
    const exchange = deferred<FakeReply>();
    fakeApi({ 'POST /auth/social/exchange': () => exchange.promise, ...signedInRoutes });
    const { router } = renderRoute('/login?token=one-time-code');
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(router.state.historyAction).toBe('REPLACE');
    expect(screen.getByText(EXCHANGING_SOCIAL_TOKEN)).toBeTruthy();
    exchange.resolve(tokenAnswer('token-social'));
    await waitFor(() => expect(locationOf(router)).toBe('/dashboard'));
  });

  describe('with a session open already', () => {
    const otherUser = { ...testUser, id: '5f0c3c1e-9a51-4d0e-8f1b-2a6c7d8e9f00', handle: 'acid_burn' };

    function signedInStore() {
      const store = new RootStore({ socketFactory: fakeSockets().factory });
      store.auth.setAccessToken('token-1');
      store.auth.setUser(testUser);
      store.auth.setBox(testBox);
      return store;
    }

    it('asks before switching accounts and does not exchange the code meanwhile', async () => {
      const api = fakeApi({ 'POST /auth/social/exchange': tokenAnswer('token-social') });
      const { router } = renderRoute('/login?token=one-time-code', { store: signedInStore() });
      const dialog = await screen.findByRole('dialog');
      expect(within(dialog).getByText(alreadySignedInAs('zero_cool'))).toBeTruthy();
      expect(within(dialog).getByRole('button', { name: STAY_SIGNED_IN })).toBeTruthy();
      expect(within(dialog).getByRole('button', { name: SWITCH_ACCOUNT })).toBeTruthy();
      await waitFor(() => expect(locationOf(router)).toBe('/login'));
      expect(api.callsTo('POST /auth/social/exchange')).toHaveLength(0);
    });

    it("'Stay signed in' drops the code and goes to /dashboard", async () => {
      const api = fakeApi({ 'POST /auth/social/exchange': tokenAnswer('token-social'), ...signedInRoutes });
      const { router, store } = renderRoute('/login?token=one-time-code', { store: signedInStore() });
      fireEvent.click(await screen.findByRole('button', { name: STAY_SIGNED_IN }));
      await waitFor(() => expect(locationOf(router)).toBe('/dashboard'));
      expect(await screen.findByRole('heading', { name: new RegExp(WELCOME_BACK) })).toBeTruthy();
      expect(api.callsTo('POST /auth/social/exchange')).toHaveLength(0);
      expect(store.auth.accessToken).toBe('token-1');
    });

    it("'Switch account' exchanges the code for the new account", async () => {
      const api = fakeApi({
        'POST /auth/social/exchange': tokenAnswer('token-social'),
        ...signedInRoutes,
        'GET /users/me': reply(200, otherUser),
        // The dashboard's box load never answers: only the switch itself may drop the old box.
        'GET /boxes/my': () => new Promise<never>(() => undefined),
      });
      const { router, store } = renderRoute('/login?token=one-time-code', { store: signedInStore() });
      fireEvent.click(await screen.findByRole('button', { name: SWITCH_ACCOUNT }));
      await waitFor(() => expect(locationOf(router)).toBe('/dashboard'));
      expect(api.callsTo('POST /auth/social/exchange').map((c) => c.body)).toEqual([
        { code: 'one-time-code' },
      ]);
      expect(store.auth.accessToken).toBe('token-social');
      expect(store.auth.user).toEqual(otherUser);
      expect(store.auth.box).toBeNull();
    });

    it("still says 'Invalid or expired token.' when the switch is refused, keeping the session", async () => {
      fakeApi({ 'POST /auth/social/exchange': fail(401, 'Invalid or expired token.') });
      const { store } = renderRoute('/login?token=used-code', { store: signedInStore() });
      fireEvent.click(await screen.findByRole('button', { name: SWITCH_ACCOUNT }));
      expect(await screen.findByText(SOCIAL_TOKEN_INVALID)).toBeTruthy();
      expect(store.auth.accessToken).toBe('token-1');
    });
  });
});
