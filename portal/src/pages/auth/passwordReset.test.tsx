import {
  EMAIL_INVALID,
  FORGOT_PASSWORD_ACCEPTED,
  MAIL_COOLDOWN_SECONDS,
  PASSWORDS_DO_NOT_MATCH,
  PASSWORD_TOO_GUESSABLE,
  PASSWORD_TOO_SHORT,
} from '@exploit-grid/api/contracts/constants';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BACK_TO_LOGIN,
  CONFIRM_PASSWORD_LABEL,
  EMAIL_LABEL,
  NEW_PASSWORD_LABEL,
  RESET_FAILED_DEFAULT,
  RESET_PASSWORD,
  RESET_TOKEN_MISSING,
  SEND_AGAIN,
  SEND_RESET_LINK,
  sendAgainIn,
} from '../../strings/auth.ts';
import { fail, fakeApi, reply } from '../../testing/fakeApi.ts';
import { locationOf, renderRoute } from '../../test-utils.tsx';

const robots = () => document.head.querySelector<HTMLMetaElement>('meta[name="robots"]')?.content;

describe('forgot password page', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  async function requestLink(email: string) {
    fireEvent.change(await screen.findByLabelText(EMAIL_LABEL), { target: { value: email } });
    fireEvent.click(screen.getByRole('button', { name: SEND_RESET_LINK }));
  }

  it("is titled 'Forgot Password | Exploit Grid' and noindex", async () => {
    fakeApi();
    renderRoute('/forgot-password');
    await waitFor(() => expect(document.title).toBe('Forgot Password | Exploit Grid'));
    expect(robots()).toBe('noindex, nofollow');
  });

  it('checks the email format', async () => {
    const api = fakeApi();
    renderRoute('/forgot-password');
    await requestLink('nope');
    expect(await screen.findByText(EMAIL_INVALID)).toBeTruthy();
    expect(api.callsTo('POST /auth/forgot-password')).toHaveLength(0);
  });

  it('confirms neutrally and links back to login', async () => {
    const api = fakeApi({ 'POST /auth/forgot-password': reply(200, { message: FORGOT_PASSWORD_ACCEPTED }) });
    renderRoute('/forgot-password');
    await requestLink('zero@example.com');
    expect(await screen.findByText(FORGOT_PASSWORD_ACCEPTED)).toBeTruthy();
    expect(api.callsTo('POST /auth/forgot-password')[0]?.body).toEqual({ email: 'zero@example.com' });
    expect(screen.getByRole('link', { name: BACK_TO_LOGIN }).getAttribute('href')).toBe('/login');
  });

  it('shows the same confirmation when the request fails', async () => {
    fakeApi({ 'POST /auth/forgot-password': fail(429, 'Too many attempts.') });
    renderRoute('/forgot-password');
    await requestLink('zero@example.com');
    expect(await screen.findByText(FORGOT_PASSWORD_ACCEPTED)).toBeTruthy();
    expect(screen.queryByText('Too many attempts.')).toBeNull();
  });

  it("offers 'Send again', counting down the minute before the API would send another link", async () => {
    // Only the clock and timeouts: React's scheduler (setImmediate) must run its effects as usual.
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const api = fakeApi({ 'POST /auth/forgot-password': reply(200, { message: FORGOT_PASSWORD_ACCEPTED }) });
    renderRoute('/forgot-password');
    await requestLink('Zero@Example.com');
    const waiting = await screen.findByRole('button', { name: sendAgainIn(MAIL_COOLDOWN_SECONDS) });
    expect(waiting.hasAttribute('disabled')).toBe(true);
    act(() => vi.advanceTimersByTime(MAIL_COOLDOWN_SECONDS * 1000));
    fireEvent.click(screen.getByRole('button', { name: SEND_AGAIN }));
    await waitFor(() => expect(api.callsTo('POST /auth/forgot-password')).toHaveLength(2));
    expect(api.callsTo('POST /auth/forgot-password')[1]?.body).toEqual({ email: 'zero@example.com' });
    expect(await screen.findByRole('button', { name: sendAgainIn(MAIL_COOLDOWN_SECONDS) })).toBeTruthy();
  });

  it('counts down for as long as Retry-After says after a 429, and still confirms neutrally', async () => {
    fakeApi({
      'POST /auth/forgot-password': fail(429, 'Try again in 42 seconds.', { 'Retry-After': '42' }),
    });
    renderRoute('/forgot-password');
    await requestLink('zero@example.com');
    expect(await screen.findByText(FORGOT_PASSWORD_ACCEPTED)).toBeTruthy();
    expect(screen.getByRole('button', { name: sendAgainIn(42) }).hasAttribute('disabled')).toBe(true);
    expect(screen.queryByText(/Try again/)).toBeNull();
  });
});

describe('reset password page', () => {
  async function reset(password: string, confirm: string) {
    fireEvent.change(await screen.findByLabelText(NEW_PASSWORD_LABEL), { target: { value: password } });
    fireEvent.change(screen.getByLabelText(CONFIRM_PASSWORD_LABEL), { target: { value: confirm } });
    fireEvent.click(screen.getByRole('button', { name: RESET_PASSWORD }));
  }

  it("is titled 'Reset Password | Exploit Grid' and noindex", async () => {
    fakeApi();
    renderRoute('/reset-password?token=abc');
    await waitFor(() => expect(document.title).toBe('Reset Password | Exploit Grid'));
    expect(robots()).toBe('noindex, nofollow');
  });

  it('without a token says so and goes to /login', async () => {
    fakeApi();
    const { router } = renderRoute('/reset-password');
    expect(await screen.findByText(RESET_TOKEN_MISSING)).toBeTruthy();
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
  });

  it('takes the token out of the address (replacing the entry) and still uses it', async () => {
    const api = fakeApi({ 'POST /auth/reset-password': reply(200, { message: 'Password changed.' }) });
    const { router } = renderRoute('/reset-password?token=secret-token');
    await waitFor(() => expect(locationOf(router)).toBe('/reset-password'));
    expect(router.state.historyAction).toBe('REPLACE');
    expect(screen.getByLabelText(NEW_PASSWORD_LABEL)).toBeTruthy();
    expect(screen.queryByText(RESET_TOKEN_MISSING)).toBeNull();
    await reset('long-enough', 'long-enough');
    expect(await screen.findByText('Password changed.')).toBeTruthy();
    expect(api.callsTo('POST /auth/reset-password')[0]?.body).toEqual({
      token: 'secret-token',
      password: 'long-enough',
    });
  });

  it('refuses a password shorter than 8 characters', async () => {
    const api = fakeApi();
    renderRoute('/reset-password?token=abc');
    await reset('short', 'short');
    expect(await screen.findByText(PASSWORD_TOO_SHORT)).toBeTruthy();
    expect(api.callsTo('POST /auth/reset-password')).toHaveLength(0);
  });

  it('refuses passwords that do not match', async () => {
    const api = fakeApi();
    renderRoute('/reset-password?token=abc');
    await reset('long-enough', 'long-enougj');
    expect(await screen.findByText(PASSWORDS_DO_NOT_MATCH)).toBeTruthy();
    expect(api.callsTo('POST /auth/reset-password')).toHaveLength(0);
  });

  it('sets the new password, toasts the answer and goes to /login', async () => {
    const api = fakeApi({ 'POST /auth/reset-password': reply(200, { message: 'Password changed.' }) });
    const { router } = renderRoute('/reset-password?token=abc');
    await reset('long-enough', 'long-enough');
    expect(await screen.findByText('Password changed.')).toBeTruthy();
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(api.callsTo('POST /auth/reset-password')[0]?.body).toEqual({
      token: 'abc',
      password: 'long-enough',
    });
  });

  it("shows the server's message when the token is refused", async () => {
    fakeApi({ 'POST /auth/reset-password': fail(400, 'Invalid or expired token.') });
    const { router } = renderRoute('/reset-password?token=old');
    await reset('long-enough', 'long-enough');
    expect(await screen.findByText('Invalid or expired token.')).toBeTruthy();
    expect(locationOf(router)).toBe('/reset-password');
  });

  it("shows the API's reason under the new password when it is easy to guess, and the link still works", async () => {
    const reason = `${PASSWORD_TOO_GUESSABLE} Avoid your handle, your email address and the name of this site. Add more words that are less common.`;
    const api = fakeApi({ 'POST /auth/reset-password': fail(400, `password: ${reason}`) });
    const { router } = renderRoute('/reset-password?token=abc');
    await reset('zero_cool2024', 'zero_cool2024');
    const shown = await screen.findByText(reason);
    expect(screen.getByLabelText(NEW_PASSWORD_LABEL).getAttribute('aria-describedby')).toBe(shown.id);
    expect(screen.queryByText(`password: ${reason}`)).toBeNull();
    expect(locationOf(router)).toBe('/reset-password');
    api.on('POST /auth/reset-password', reply(200, { message: 'Password changed.' }));
    await reset('quartz violet harbor lantern', 'quartz violet harbor lantern');
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(api.callsTo('POST /auth/reset-password').map((c) => c.body)).toEqual([
      { token: 'abc', password: 'zero_cool2024' },
      { token: 'abc', password: 'quartz violet harbor lantern' },
    ]);
  });

  it("shows 'Failed to reset password.' when the failure carries no message", async () => {
    fakeApi({ 'POST /auth/reset-password': reply(502) });
    renderRoute('/reset-password?token=abc');
    await reset('long-enough', 'long-enough');
    expect(await screen.findByText(RESET_FAILED_DEFAULT)).toBeTruthy();
  });
});
