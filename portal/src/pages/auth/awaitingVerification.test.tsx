import { MAIL_COOLDOWN_SECONDS } from '@exploit-grid/api/contracts/constants';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AWAITING_TITLE,
  BACK_TO_LOGIN,
  RESEND,
  RESEND_OK,
  awaitingText,
  resendFailed,
  resendIn,
} from '../../strings/auth.ts';
import { fail, fakeApi, reply } from '../../testing/fakeApi.ts';
import { locationOf, renderRoute } from '../../test-utils.tsx';

const state = { email: 'pending@example.com' };

describe('awaiting confirmation page', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is titled 'Awaiting Confirmation', names the email and links to /login", async () => {
    fakeApi();
    renderRoute('/awaiting-verification', { state });
    expect(await screen.findByRole('heading', { name: AWAITING_TITLE })).toBeTruthy();
    expect(screen.getByText(awaitingText(state.email))).toBeTruthy();
    expect(screen.getByRole('link', { name: BACK_TO_LOGIN }).getAttribute('href')).toBe('/login');
    await waitFor(() => expect(document.title).toBe('Awaiting Confirmation | Exploit Grid'));
  });

  it('goes to /signup without an email in the navigation state', async () => {
    fakeApi();
    const { router } = renderRoute('/awaiting-verification');
    await waitFor(() => expect(locationOf(router)).toBe('/signup'));
  });

  it('resends the verification mail and confirms it', async () => {
    const api = fakeApi({ 'POST /auth/resend-verification': reply(200, { message: 'ok' }) });
    renderRoute('/awaiting-verification', { state });
    fireEvent.click(await screen.findByRole('button', { name: RESEND }));
    expect(await screen.findByText(RESEND_OK)).toBeTruthy();
    expect(api.callsTo('POST /auth/resend-verification')[0]?.body).toEqual(state);
  });

  it("reports a failed resend with the server's message", async () => {
    fakeApi({ 'POST /auth/resend-verification': fail(429, 'Too many attempts.') });
    renderRoute('/awaiting-verification', { state });
    fireEvent.click(await screen.findByRole('button', { name: RESEND }));
    expect(await screen.findByText(resendFailed('Too many attempts.'))).toBeTruthy();
  });

  it("counts down on Resend for the minute after a link went out ('Resend in 42 s'), then lets it be pressed", async () => {
    // Only the clock and timeouts: React's scheduler (setImmediate) must run its effects as usual.
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const api = fakeApi({ 'POST /auth/resend-verification': reply(200, { message: 'ok' }) });
    renderRoute('/awaiting-verification', { state });
    fireEvent.click(await screen.findByRole('button', { name: RESEND }));
    const waiting = await screen.findByRole('button', { name: resendIn(MAIL_COOLDOWN_SECONDS) });
    expect(waiting.hasAttribute('disabled')).toBe(true);
    act(() => vi.advanceTimersByTime(18_000));
    expect(screen.getByRole('button', { name: resendIn(42) }).hasAttribute('disabled')).toBe(true);
    act(() => vi.advanceTimersByTime(42_000));
    const ready = screen.getByRole('button', { name: RESEND });
    expect(ready.hasAttribute('disabled')).toBe(false);
    fireEvent.click(ready);
    await waitFor(() => expect(api.callsTo('POST /auth/resend-verification')).toHaveLength(2));
  });

  it('counts down for as long as Retry-After says when the API refuses with 429', async () => {
    const api = fakeApi({
      'POST /auth/resend-verification': fail(429, 'Try again in 42 seconds.', { 'Retry-After': '42' }),
    });
    renderRoute('/awaiting-verification', { state });
    fireEvent.click(await screen.findByRole('button', { name: RESEND }));
    expect(await screen.findByText(resendFailed('Try again in 42 seconds.'))).toBeTruthy();
    expect(screen.getByRole('button', { name: resendIn(42) }).hasAttribute('disabled')).toBe(true);
    expect(api.callsTo('POST /auth/resend-verification')).toHaveLength(1);
  });

  it('counts down from the sign-up, whose mail has just gone out', async () => {
    const api = fakeApi({ 'POST /auth/signup': reply(201, { message: 'ok' }) });
    const { store } = renderRoute('/awaiting-verification', { state });
    await store.auth.signup({
      handle: 'acid_burn',
      email: state.email,
      password: 'quartz violet harbor lantern',
      utmSource: '',
      utmMedium: '',
      utmCampaign: '',
      referralCode: '',
      ageConfirmed: true,
      termsAccepted: true,
    });
    expect(
      (await screen.findByRole('button', { name: resendIn(MAIL_COOLDOWN_SECONDS) })).hasAttribute('disabled'),
    ).toBe(true);
    expect(api.callsTo('POST /auth/resend-verification')).toHaveLength(0);
  });

  it("reports a failed resend with 'Please try again.' when there is no message", async () => {
    fakeApi({ 'POST /auth/resend-verification': reply(503) });
    renderRoute('/awaiting-verification', { state });
    fireEvent.click(await screen.findByRole('button', { name: RESEND }));
    expect(await screen.findByText('Failed to resend email: Please try again.')).toBeTruthy();
  });
});
