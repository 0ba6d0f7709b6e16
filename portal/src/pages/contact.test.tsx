import {
  CONTACT_MESSAGE_REQUIRED,
  CONTACT_NAME_REQUIRED,
  CONTACT_SENT,
  CONTACT_SUBJECT_REQUIRED,
} from '@exploit-grid/api/contracts/contact-constants';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../notifications/toast.ts';
import {
  CONTACT_EMAIL,
  CONTACT_EMAIL_INVALID,
  CONTACT_EMAIL_REQUIRED,
  CONTACT_FAILED,
  CONTACT_INQUIRY_TYPE,
  CONTACT_MESSAGE,
  CONTACT_NAME,
  CONTACT_SEND,
  CONTACT_SENDING,
  CONTACT_SUBJECT,
  CONTACT_TITLE,
  INQUIRY_LABELS,
} from '../strings/contact.ts';
import { deferred, fail, fakeApi, reply, type FakeReply } from '../testing/fakeApi.ts';
import { renderRoute } from '../test-utils.tsx';

vi.setConfig({ testTimeout: 20_000 });
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

async function contactPage(routes: Parameters<typeof fakeApi>[0] = {}) {
  const api = fakeApi(routes);
  renderRoute('/contact');
  await screen.findByRole('heading', { level: 1, name: CONTACT_TITLE });
  return api;
}

const box = (name: string) => screen.getByRole('textbox', { name }) as HTMLInputElement;
const type = (name: string, value: string) => fireEvent.change(box(name), { target: { value } });
const send = () => fireEvent.click(screen.getByRole('button', { name: CONTACT_SEND }));

function fillIn() {
  type(CONTACT_NAME, '  Ada Lovelace ');
  type(CONTACT_EMAIL, 'ada@example.com');
  type(CONTACT_SUBJECT, 'Team accounts');
  type(CONTACT_MESSAGE, 'Can a class of 30 share a TEAM tier?\n');
}

describe('/contact', () => {
  it('offers the four inquiry types, General first', async () => {
    await contactPage();
    const select = screen.getByRole('combobox', { name: CONTACT_INQUIRY_TYPE }) as HTMLSelectElement;
    expect([...select.options].map((o) => [o.value, o.text])).toEqual([
      ['general', INQUIRY_LABELS.general],
      ['technical', INQUIRY_LABELS.technical],
      ['business', INQUIRY_LABELS.business],
      ['press', INQUIRY_LABELS.press],
    ]);
    expect(select.value).toBe('general');
  });

  it('says what is missing and sends nothing', async () => {
    const api = await contactPage();
    send();
    expect(await screen.findByText(CONTACT_NAME_REQUIRED)).toBeTruthy();
    expect(screen.getByText(CONTACT_EMAIL_REQUIRED)).toBeTruthy();
    expect(screen.getByText(CONTACT_SUBJECT_REQUIRED)).toBeTruthy();
    expect(screen.getByText(CONTACT_MESSAGE_REQUIRED)).toBeTruthy();
    type(CONTACT_EMAIL, 'ada@nowhere');
    send();
    expect(await screen.findByText(CONTACT_EMAIL_INVALID)).toBeTruthy();
    expect(api.callsTo('POST /contact')).toHaveLength(0);
  });

  it('sends the trimmed form with the chosen type, shows the spec success toast and clears the form', async () => {
    const answer = deferred<FakeReply>();
    const api = await contactPage({ 'POST /contact': () => answer.promise });
    const success = vi.spyOn(toast, 'success');
    fillIn();
    fireEvent.change(screen.getByRole('combobox', { name: CONTACT_INQUIRY_TYPE }), {
      target: { value: 'business' },
    });
    send();
    // Busy: one message, however many clicks.
    const busy = (await screen.findByRole('button', { name: CONTACT_SENDING })) as HTMLButtonElement;
    expect(busy.disabled).toBe(true);
    fireEvent.click(busy);
    answer.resolve(reply(201, { message: CONTACT_SENT }));
    await waitFor(() => expect(success).toHaveBeenCalledWith(CONTACT_SENT));
    expect(api.callsTo('POST /contact')).toHaveLength(1);
    expect(api.callsTo('POST /contact')[0]!.body).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      subject: 'Team accounts',
      message: 'Can a class of 30 share a TEAM tier?',
      inquiryType: 'business',
    });
    expect(api.callsTo('POST /contact')[0]!.authorization).toBeNull();
    await waitFor(() => expect(box(CONTACT_NAME).value).toBe(''));
    expect(box(CONTACT_MESSAGE).value).toBe('');
  });

  it("shows the server's message, else the spec's failure text, and keeps what was typed", async () => {
    const api = await contactPage({
      'POST /contact': fail(429, 'Too many messages sent from your network. Try again in 59 minutes.'),
    });
    const error = vi.spyOn(toast, 'error');
    fillIn();
    send();
    await waitFor(() =>
      expect(error).toHaveBeenCalledWith(
        'Too many messages sent from your network. Try again in 59 minutes.',
      ),
    );
    expect(box(CONTACT_SUBJECT).value).toBe('Team accounts');

    api.on('POST /contact', () => {
      throw new TypeError('Failed to fetch');
    });
    send();
    await waitFor(() => expect(error).toHaveBeenCalledWith(CONTACT_FAILED));
  });

  it('points vulnerability reports to /security', async () => {
    await contactPage();
    expect(screen.getByRole('link', { name: 'Report a Vulnerability' }).getAttribute('href')).toBe(
      '/security',
    );
  });
});
