import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  AWAITING_TITLE,
  BACK_TO_LOGIN,
  RESEND,
  RESEND_OK,
  awaitingText,
  resendFailed,
} from '../../strings/auth.ts';
import { fail, fakeApi, reply } from '../../testing/fakeApi.ts';
import { locationOf, renderRoute } from '../../test-utils.tsx';

const state = { email: 'pending@example.com' };

describe('awaiting confirmation page', () => {
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

  it("reports a failed resend with 'Please try again.' when there is no message", async () => {
    fakeApi({ 'POST /auth/resend-verification': reply(503) });
    renderRoute('/awaiting-verification', { state });
    fireEvent.click(await screen.findByRole('button', { name: RESEND }));
    expect(await screen.findByText('Failed to resend email: Please try again.')).toBeTruthy();
  });
});
