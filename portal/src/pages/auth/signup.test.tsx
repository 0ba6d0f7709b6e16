import {
  AGE_CONFIRMATION_REQUIRED,
  HANDLE_RULE,
  MAIL_COOLDOWN_SECONDS,
  PASSWORD_TOO_GUESSABLE,
  PASSWORD_TOO_SHORT,
  TERMS_ACCEPTANCE_REQUIRED,
} from '@exploit-grid/api/contracts/constants';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  AGE_CONFIRM_LABEL,
  EMAIL_LABEL,
  HANDLE_LABEL,
  LOGIN_LINK,
  PASSWORD_LABEL,
  REGISTRATION_FAILED_DEFAULT,
  SIGN_UP,
  SIGN_UP_WITH,
  PRIVACY_LINK,
  SOCIAL_CONSENT_REQUIRED,
  SOCIAL_NEEDS_CONSENT,
  TERMS_LINK,
  registrationFailed,
  resendIn,
} from '../../strings/auth.ts';
import { fail, fakeApi, reply } from '../../testing/fakeApi.ts';
import { locationOf, renderRoute } from '../../test-utils.tsx';

const TERMS_CHECKBOX = `I accept the ${TERMS_LINK} and the ${PRIVACY_LINK}.`;

/** Ticks the box unless it is already as wanted. */
function tick(label: string, checked = true) {
  const box = screen.getByRole('checkbox', { name: label }) as HTMLInputElement;
  if (box.checked !== checked) fireEvent.click(box);
}

async function signUp({
  email = 'new@example.com',
  handle = 'acid_burn',
  password = 'hunter22',
  ageConfirmed = true,
  termsAccepted = true,
} = {}) {
  fireEvent.change(await screen.findByLabelText(EMAIL_LABEL), { target: { value: email } });
  fireEvent.change(screen.getByLabelText(HANDLE_LABEL), { target: { value: handle } });
  fireEvent.change(screen.getByLabelText(PASSWORD_LABEL), { target: { value: password } });
  tick(AGE_CONFIRM_LABEL, ageConfirmed);
  tick(TERMS_CHECKBOX, termsAccepted);
  fireEvent.click(screen.getByRole('button', { name: SIGN_UP }));
}

describe('signup page', () => {
  it("is titled 'Sign Up | Exploit Grid', noindex, links to login and offers 'Sign up with' buttons", async () => {
    fakeApi({ 'GET /auth/providers': reply(200, { providers: ['google'] }) });
    renderRoute('/signup');
    expect(await screen.findByRole('button', { name: `${SIGN_UP_WITH} Google` })).toBeTruthy();
    expect(screen.getByRole('link', { name: LOGIN_LINK }).getAttribute('href')).toBe('/login');
    await waitFor(() => expect(document.title).toBe('Sign Up | Exploit Grid'));
    expect(document.head.querySelector<HTMLMetaElement>('meta[name="robots"]')?.content).toBe(
      'noindex, nofollow',
    );
  });

  it('refuses a password shorter than 8 characters and a missing handle, without calling the API', async () => {
    const api = fakeApi();
    renderRoute('/signup');
    await signUp({ handle: '', password: 'short' });
    expect(await screen.findByText(PASSWORD_TOO_SHORT)).toBeTruthy();
    expect(screen.getByText(HANDLE_RULE)).toBeTruthy();
    expect(api.callsTo('POST /auth/signup')).toHaveLength(0);
  });

  it('sends UTM parameters and the referral code from the address, empty strings when absent', async () => {
    const api = fakeApi({ 'POST /auth/signup': reply(201, { message: 'ok' }) });
    renderRoute('/signup?utm_source=newsletter&ref=FRIEND42');
    await signUp();
    await waitFor(() => expect(api.callsTo('POST /auth/signup')).toHaveLength(1));
    expect(api.callsTo('POST /auth/signup')[0]?.body).toEqual({
      handle: 'acid_burn',
      email: 'new@example.com',
      password: 'hunter22',
      utmSource: 'newsletter',
      utmMedium: '',
      utmCampaign: '',
      referralCode: 'FRIEND42',
      ageConfirmed: true,
      termsAccepted: true,
    });
  });

  it('asks for both boxes: without them it says why under each and does not call the API', async () => {
    const api = fakeApi({ 'POST /auth/signup': reply(201, { message: 'ok' }) });
    renderRoute('/signup');
    await signUp({ ageConfirmed: false, termsAccepted: false });
    expect(await screen.findByText(AGE_CONFIRMATION_REQUIRED)).toBeTruthy();
    expect(screen.getByText(TERMS_ACCEPTANCE_REQUIRED)).toBeTruthy();
    const age = screen.getByRole('checkbox', { name: AGE_CONFIRM_LABEL });
    expect(age.getAttribute('aria-invalid')).toBe('true');
    expect(age.getAttribute('aria-describedby')).toBe(screen.getByText(AGE_CONFIRMATION_REQUIRED).id);
    expect(api.callsTo('POST /auth/signup')).toHaveLength(0);

    // One box is not enough either.
    tick(AGE_CONFIRM_LABEL);
    fireEvent.click(screen.getByRole('button', { name: SIGN_UP }));
    await waitFor(() => expect(screen.queryByText(AGE_CONFIRMATION_REQUIRED)).toBeNull());
    expect(screen.getByText(TERMS_ACCEPTANCE_REQUIRED)).toBeTruthy();
    expect(api.callsTo('POST /auth/signup')).toHaveLength(0);

    tick(TERMS_CHECKBOX);
    fireEvent.click(screen.getByRole('button', { name: SIGN_UP }));
    await waitFor(() => expect(api.callsTo('POST /auth/signup')).toHaveLength(1));
  });

  it('links the Terms of Service and the Privacy Policy, opening in a new tab so the form stays filled', async () => {
    renderRoute('/signup');
    for (const [name, href] of [
      [TERMS_LINK, '/terms-of-service'],
      [PRIVACY_LINK, '/privacy-policy'],
    ] as const) {
      const link = await screen.findByRole('link', { name });
      expect(link.getAttribute('href')).toBe(href);
      expect(link.getAttribute('target')).toBe('_blank');
      expect(link.getAttribute('rel')).toContain('noopener');
    }
  });

  it('enables the social sign-up buttons only with both boxes ticked, and sends the consent with them', async () => {
    fakeApi({ 'GET /auth/providers': reply(200, { providers: ['google', 'github'] }) });
    renderRoute('/signup');
    const google = await screen.findByRole('button', { name: `${SIGN_UP_WITH} Google` });
    expect(google.hasAttribute('disabled')).toBe(true);
    expect(screen.getByText(SOCIAL_NEEDS_CONSENT)).toBeTruthy();
    tick(AGE_CONFIRM_LABEL);
    expect(screen.getByRole('button', { name: `${SIGN_UP_WITH} GitHub` }).hasAttribute('disabled')).toBe(
      true,
    );
    tick(TERMS_CHECKBOX);
    expect(screen.getByRole('link', { name: `${SIGN_UP_WITH} Google` }).getAttribute('href')).toBe(
      '/api/v1/auth/google?consent=true',
    );
    expect(screen.getByRole('link', { name: `${SIGN_UP_WITH} GitHub` }).getAttribute('href')).toBe(
      '/api/v1/auth/github?consent=true',
    );
    expect(screen.queryByText(SOCIAL_NEEDS_CONSENT)).toBeNull();
    tick(AGE_CONFIRM_LABEL, false);
    expect(screen.getByRole('button', { name: `${SIGN_UP_WITH} Google` }).hasAttribute('disabled')).toBe(
      true,
    );
  });

  it('says why when a social sign-in came back here to create an account', async () => {
    renderRoute('/signup?reason=social_consent_required');
    expect(await screen.findByText(SOCIAL_CONSENT_REQUIRED)).toBeTruthy();
  });

  it("shows the API's refusal of a missing consent under its box", async () => {
    fakeApi({ 'POST /auth/signup': fail(400, `termsAccepted: ${TERMS_ACCEPTANCE_REQUIRED}`) });
    renderRoute('/signup');
    await signUp();
    const shown = await screen.findByText(TERMS_ACCEPTANCE_REQUIRED);
    expect(screen.getByRole('checkbox', { name: TERMS_CHECKBOX }).getAttribute('aria-describedby')).toBe(
      shown.id,
    );
  });

  it('goes to /awaiting-verification with the email on success', async () => {
    fakeApi({ 'POST /auth/signup': reply(201, { message: 'ok' }) });
    const { router } = renderRoute('/signup');
    await signUp();
    await waitFor(() => expect(locationOf(router)).toBe('/awaiting-verification'));
    expect(router.state.location.state).toEqual({ email: 'new@example.com' });
  });

  it("shows the API's reason under the password field when it is easy to guess, and stays", async () => {
    const reason = `${PASSWORD_TOO_GUESSABLE} This is a heavily used password. Add more words that are less common.`;
    fakeApi({ 'POST /auth/signup': fail(400, `password: ${reason}`) });
    const { router } = renderRoute('/signup');
    await signUp({ password: 'password' });
    const shown = await screen.findByText(reason);
    const field = screen.getByLabelText(PASSWORD_LABEL);
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(field.getAttribute('aria-describedby')).toBe(shown.id);
    expect(screen.queryByText(registrationFailed(`password: ${reason}`))).toBeNull();
    expect(locationOf(router)).toBe('/signup');
  });

  it('lands on Awaiting Confirmation with Resend counting down: the mail has just gone out', async () => {
    fakeApi({ 'POST /auth/signup': reply(201, { message: 'ok' }) });
    renderRoute('/signup');
    await signUp();
    const resend = await screen.findByRole('button', { name: resendIn(MAIL_COOLDOWN_SECONDS) });
    expect(resend.hasAttribute('disabled')).toBe(true);
  });

  it("shows 'Registration failed: {message}' when the API refuses", async () => {
    fakeApi({ 'POST /auth/signup': fail(409, 'That handle is taken.') });
    const { router } = renderRoute('/signup');
    await signUp();
    expect(await screen.findByText(registrationFailed('That handle is taken.'))).toBeTruthy();
    expect(locationOf(router)).toBe('/signup');
  });

  it("shows 'An unknown error occurred' when the failure carries no message", async () => {
    fakeApi({ 'POST /auth/signup': reply(500) });
    renderRoute('/signup');
    await signUp();
    expect(await screen.findByText(REGISTRATION_FAILED_DEFAULT)).toBeTruthy();
  });
});
