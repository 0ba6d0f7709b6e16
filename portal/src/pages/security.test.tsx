import {
  UNDISCLOSED_FINDING_TITLE,
  VULNERABILITY_CATEGORIES,
  VULNERABILITY_REPORT_MESSAGES as M,
} from '@exploit-grid/api/contracts/security-constants';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { log } from '../logging.ts';
import { toast } from '../notifications/toast.ts';
import {
  ACKNOWLEDGEMENT_NOTE,
  AFFECTED_URL_LABEL,
  AFFECTED_VERSION_LABEL,
  ALTERNATIVE_CONTACT,
  ANONYMOUS_LABEL,
  CATEGORY_LABEL,
  CATEGORY_LABELS,
  DESCRIPTION_LABEL,
  FIX_LABEL,
  HALL_OF_FAME_EMPTY_TITLE,
  HALL_OF_FAME_LINK,
  HALL_OF_FAME_TITLE,
  IMPACT_ASSESSMENT_LABEL,
  PGP_KEY_LINK,
  PROOF_OF_CONCEPT_LABEL,
  REFERRAL_SOURCE_LABEL,
  REPORTER_EMAIL_LABEL,
  REPORTER_HANDLE_LABEL,
  REPORTER_LINKEDIN_LABEL,
  REPORTER_NAME_LABEL,
  REPORTER_TWITTER_LABEL,
  REPORTER_WEBSITE_LABEL,
  REPORT_DIALOG_TITLE,
  REPORT_FAILED,
  REPORT_VULNERABILITY,
  REPRODUCTION_STEPS_LABEL,
  RESPONSE_LABEL,
  SECURITY_POLICY_LINK,
  SECURITY_TITLE,
  SEVERITY_LABEL,
  STAT_CRITICAL,
  STAT_REPORTS,
  STAT_RESEARCHERS,
  SUBMITTING,
  SUBMIT_REPORT,
  SUGGESTED_FIX_LABEL,
  TITLE_LABEL,
  reportSubmitted,
} from '../strings/security.ts';
import { SECURITY_EMAIL } from '../strings/site.ts';
import { deferred, fail, fakeApi, reply, type FakeReply } from '../testing/fakeApi.ts';
import { renderRoute } from '../test-utils.tsx';

vi.setConfig({ testTimeout: 20_000 });
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const required = (label: string) => `${label} *`;
const TRACKING_ID = 'EG-VR-7K2M-9XQ4-ABCD-EF01';

async function securityPage(routes: Parameters<typeof fakeApi>[0] = {}) {
  const api = fakeApi(routes);
  renderRoute('/security');
  await screen.findByRole('heading', { level: 1, name: SECURITY_TITLE });
  return api;
}

async function openModal() {
  fireEvent.click(screen.getByRole('button', { name: REPORT_VULNERABILITY }));
  return screen.findByRole('dialog', { name: REPORT_DIALOG_TITLE });
}

const box = (name: string) => screen.getByRole('textbox', { name }) as HTMLInputElement;
const type = (name: string, value: string) => fireEvent.change(box(name), { target: { value } });
const select = (name: string) => screen.getByRole('combobox', { name }) as HTMLSelectElement;
const submit = () => fireEvent.click(screen.getByRole('button', { name: SUBMIT_REPORT }));

/** The reporter's fields and the referral source: what anonymous reporting clears. */
const reporterFields = [
  REPORTER_NAME_LABEL,
  REPORTER_EMAIL_LABEL,
  REPORTER_HANDLE_LABEL,
  REPORTER_WEBSITE_LABEL,
  REPORTER_TWITTER_LABEL,
  REPORTER_LINKEDIN_LABEL,
  REFERRAL_SOURCE_LABEL,
];
const labelOf = (label: string) =>
  label === REPORTER_NAME_LABEL || label === REPORTER_EMAIL_LABEL ? required(label) : label;

function fillReporter() {
  type(required(REPORTER_NAME_LABEL), ' Grace Hopper ');
  type(required(REPORTER_EMAIL_LABEL), 'grace@example.com');
  type(REPORTER_HANDLE_LABEL, 'amazing_grace');
  type(REPORTER_WEBSITE_LABEL, 'https://grace.example.com');
  type(REPORTER_TWITTER_LABEL, 'https://twitter.com/grace');
  type(REPORTER_LINKEDIN_LABEL, 'https://www.linkedin.com/in/grace');
  type(REFERRAL_SOURCE_LABEL, 'https://news.example.com/bounties');
}

function fillVulnerability() {
  type(required(TITLE_LABEL), 'Stored XSS in the global chat');
  fireEvent.change(select(required(CATEGORY_LABEL)), { target: { value: 'XSS' } });
  fireEvent.change(select(required(SEVERITY_LABEL)), { target: { value: 'HIGH' } });
  type(AFFECTED_URL_LABEL, 'https://grid.test/chats');
  type(AFFECTED_VERSION_LABEL, '0.1.0');
  type(required(DESCRIPTION_LABEL), 'The chat renders HTML.');
  type(required(REPRODUCTION_STEPS_LABEL), '1. Send <img src=x onerror=alert(1)>\n2. Watch');
  type(PROOF_OF_CONCEPT_LABEL, '<img src=x onerror=alert(1)>');
  type(required(IMPACT_ASSESSMENT_LABEL), 'Session theft.');
  type(SUGGESTED_FIX_LABEL, 'Render text.');
}

describe('/security', () => {
  it('shows the response-time cards of spec section 9 and the acknowledgement target', async () => {
    await securityPage();
    const cards = [
      ['Critical', '4-8 hours', '24-72 hours'],
      ['High', '24 hours', '3-7 days'],
      ['Medium', '48 hours', '1-2 weeks'],
      ['Low', '72 hours', '2-4 weeks'],
    ];
    for (const [severity, response, fix] of cards) {
      const card = screen.getByRole('article', { name: severity });
      expect(within(card).getByRole('heading', { name: severity })).toBeTruthy();
      const terms = within(card)
        .getAllByRole('term')
        .map((t) => t.textContent);
      const values = within(card)
        .getAllByRole('definition')
        .map((d) => d.textContent);
      expect(terms).toEqual([RESPONSE_LABEL, FIX_LABEL]);
      expect(values).toEqual([response, fix]);
    }
    expect(screen.getByText(ACKNOWLEDGEMENT_NOTE).textContent).toContain('24-48 hours');
  });

  it('links the PGP key, the policy, the hall of fame and the alternative contact request', async () => {
    await securityPage();
    expect(screen.getByRole('link', { name: PGP_KEY_LINK }).getAttribute('href')).toBe('/pgp-key.asc');
    expect(screen.getByRole('link', { name: SECURITY_POLICY_LINK }).getAttribute('href')).toBe(
      '/security-policy',
    );
    expect(screen.getByRole('link', { name: HALL_OF_FAME_LINK }).getAttribute('href')).toBe(
      '/security/hall-of-fame',
    );
    const mail = screen.getByRole('link', { name: ALTERNATIVE_CONTACT }).getAttribute('href')!;
    expect(SECURITY_EMAIL).toBe('security@exploitgrid.io');
    expect(mail).toBe('mailto:security@exploitgrid.io?subject=Alternative%20Contact%20Request');
  });
});

describe('the Report Vulnerability modal', () => {
  it('has every field of the spec, severity MEDIUM by default and the 17 categories', async () => {
    await securityPage();
    await openModal();
    for (const label of [
      ...reporterFields.map(labelOf),
      required(TITLE_LABEL),
      AFFECTED_URL_LABEL,
      AFFECTED_VERSION_LABEL,
      required(DESCRIPTION_LABEL),
      required(REPRODUCTION_STEPS_LABEL),
      PROOF_OF_CONCEPT_LABEL,
      required(IMPACT_ASSESSMENT_LABEL),
      SUGGESTED_FIX_LABEL,
    ])
      expect(box(label), label).toBeTruthy();
    expect(screen.getByRole('checkbox', { name: ANONYMOUS_LABEL })).toBeTruthy();
    const severity = select(required(SEVERITY_LABEL));
    expect(severity.value).toBe('MEDIUM');
    expect([...severity.options].map((o) => o.value)).toEqual([
      'CRITICAL',
      'HIGH',
      'MEDIUM',
      'LOW',
      'INFORMATIONAL',
    ]);
    const category = select(required(CATEGORY_LABEL));
    expect(category.value).toBe('');
    expect([...category.options].slice(1).map((o) => [o.value, o.text])).toEqual(
      VULNERABILITY_CATEGORIES.map((c) => [c, CATEGORY_LABELS[c]]),
    );
  });

  it('ticking anonymous disables and clears the reporter fields and the referral source; unticking gives them back empty', async () => {
    await securityPage();
    await openModal();
    fillReporter();
    type(required(TITLE_LABEL), 'Kept as it is');
    fireEvent.click(screen.getByRole('checkbox', { name: ANONYMOUS_LABEL }));
    for (const label of reporterFields) {
      const field = box(label);
      expect(field.value, label).toBe('');
      expect(field.disabled, label).toBe(true);
    }
    // Name and email are not required any more.
    expect(screen.queryByRole('textbox', { name: required(REPORTER_NAME_LABEL) })).toBeNull();
    expect(box(required(TITLE_LABEL)).value).toBe('Kept as it is');

    fireEvent.click(screen.getByRole('checkbox', { name: ANONYMOUS_LABEL }));
    for (const label of reporterFields.map(labelOf)) {
      expect(box(label).value, label).toBe('');
      expect(box(label).disabled, label).toBe(false);
    }
  });

  it('says what is missing or wrong, with the API’s own rules, and sends nothing', async () => {
    const api = await securityPage();
    await openModal();
    submit();
    expect(await screen.findByText(M.titleRequired)).toBeTruthy();
    for (const message of [
      M.descriptionRequired,
      M.reproductionStepsRequired,
      M.impactAssessmentRequired,
      M.category,
      M.reporterNameRequired,
      M.reporterEmailRequired,
    ])
      expect(screen.getByText(message), message).toBeTruthy();

    fillReporter();
    fillVulnerability();
    type(required(REPORTER_EMAIL_LABEL), 'grace@nowhere');
    type(REPORTER_WEBSITE_LABEL, 'javascript:alert(1)');
    type(REFERRAL_SOURCE_LABEL, 'ftp://news.example.com');
    type(AFFECTED_URL_LABEL, 'grid.test/chats');
    type(required(TITLE_LABEL), 'XSS');
    submit();
    expect(await screen.findByText(M.reporterEmailInvalid)).toBeTruthy();
    expect(screen.getByText(`Website ${M.url}`)).toBeTruthy();
    expect(screen.getByText(`Referral source ${M.url}`)).toBeTruthy();
    expect(screen.getByText(`Affected URL ${M.url}`)).toBeTruthy();
    expect(screen.getByText(M.titleTooShort)).toBeTruthy();
    expect(api.callsTo('POST /security/vulnerability-report')).toHaveLength(0);
  });

  it('sends the report, toasts the tracking id and shows it to copy', async () => {
    const answer = deferred<FakeReply>();
    const api = await securityPage({ 'POST /security/vulnerability-report': () => answer.promise });
    const success = vi.spyOn(toast, 'success');
    await openModal();
    fillReporter();
    fillVulnerability();
    submit();
    const busy = (await screen.findByRole('button', { name: SUBMITTING })) as HTMLButtonElement;
    expect(busy.disabled).toBe(true);
    answer.resolve(reply(200, { trackingId: TRACKING_ID }));
    await waitFor(() => expect(success).toHaveBeenCalledWith(reportSubmitted(TRACKING_ID)));
    expect(reportSubmitted(TRACKING_ID)).toBe(`Report submitted successfully! Tracking ID: ${TRACKING_ID}`);
    expect((await screen.findByTestId('tracking-id')).textContent).toBe(TRACKING_ID);

    const calls = api.callsTo('POST /security/vulnerability-report');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toEqual({
      isAnonymous: false,
      reporterName: 'Grace Hopper',
      reporterEmail: 'grace@example.com',
      reporterHandle: 'amazing_grace',
      reporterWebsite: 'https://grace.example.com',
      reporterTwitter: 'https://twitter.com/grace',
      reporterLinkedIn: 'https://www.linkedin.com/in/grace',
      referralSource: 'https://news.example.com/bounties',
      title: 'Stored XSS in the global chat',
      severity: 'HIGH',
      category: 'XSS',
      affectedUrl: 'https://grid.test/chats',
      affectedVersion: '0.1.0',
      description: 'The chat renders HTML.',
      reproductionSteps: '1. Send <img src=x onerror=alert(1)>\n2. Watch',
      proofOfConcept: '<img src=x onerror=alert(1)>',
      impactAssessment: 'Session theft.',
      suggestedFix: 'Render text.',
    });
    expect(calls[0]!.authorization).toBeNull();
  });

  it('sends an anonymous report with no reporter field at all', async () => {
    const api = await securityPage({
      'POST /security/vulnerability-report': reply(200, { trackingId: TRACKING_ID }),
    });
    await openModal();
    fillReporter();
    fillVulnerability();
    fireEvent.click(screen.getByRole('checkbox', { name: ANONYMOUS_LABEL }));
    submit();
    await screen.findByTestId('tracking-id');
    const body = api.callsTo('POST /security/vulnerability-report')[0]!.body as Record<string, unknown>;
    expect(body.isAnonymous).toBe(true);
    for (const field of [
      'reporterName',
      'reporterEmail',
      'reporterHandle',
      'reporterWebsite',
      'reporterTwitter',
      'reporterLinkedIn',
      'referralSource',
    ])
      expect(body, field).not.toHaveProperty(field);
    expect(body.title).toBe('Stored XSS in the global chat');
  });

  it("shows the server's message, else 'Failed to submit report', and keeps what was typed", async () => {
    const api = await securityPage({
      'POST /security/vulnerability-report': fail(
        429,
        'Too many vulnerability reports sent from your network. Try again in 59 minutes.',
      ),
    });
    const error = vi.spyOn(toast, 'error');
    await openModal();
    fillReporter();
    fillVulnerability();
    submit();
    await waitFor(() =>
      expect(error).toHaveBeenCalledWith(
        'Too many vulnerability reports sent from your network. Try again in 59 minutes.',
      ),
    );
    expect(box(required(TITLE_LABEL)).value).toBe('Stored XSS in the global chat');

    api.on('POST /security/vulnerability-report', () => {
      throw new TypeError('Failed to fetch');
    });
    submit();
    await waitFor(() => expect(error).toHaveBeenCalledWith(REPORT_FAILED));

    // A field the API refused goes under it, too.
    api.on(
      'POST /security/vulnerability-report',
      fail(400, 'affectedUrl: Affected URL must be at most 2000 characters.'),
    );
    submit();
    expect(await screen.findByText('Affected URL must be at most 2000 characters.')).toBeTruthy();
  });
});

describe('/security/hall-of-fame', () => {
  const finding = (n: number, status: 'ACCEPTED' | 'FIXED', severity = 'HIGH') => ({
    id: `00000000-0000-4000-8000-00000000000${n}`,
    title: status === 'FIXED' ? `Fixed finding ${n}` : UNDISCLOSED_FINDING_TITLE,
    submittedAt: `2026-0${n}-02T10:00:00.000Z`,
    status,
    severity,
  });

  it('shows the stats and a card per researcher: 3 findings, then +N more', async () => {
    fakeApi({
      'GET /security/hall-of-fame': reply(200, {
        researchers: [
          {
            id: 'r1',
            name: 'Ada Lovelace',
            // Whatever the answer says, the page fetches no picture from elsewhere.
            avatar: 'https://tracker.example/ada.png',
            handle: 'ada',
            totalReports: 5,
            firstSubmissionDate: '2026-01-02T10:00:00.000Z',
            recentVulnerabilities: [
              finding(5, 'ACCEPTED', 'CRITICAL'),
              finding(4, 'FIXED'),
              finding(3, 'FIXED', 'LOW'),
              finding(2, 'FIXED'),
              finding(1, 'FIXED'),
            ],
          },
          {
            id: 'r2',
            name: 'Linus',
            avatar: null,
            handle: null,
            totalReports: 1,
            firstSubmissionDate: '2026-02-15T10:00:00.000Z',
            recentVulnerabilities: [finding(2, 'ACCEPTED', 'MEDIUM')],
          },
        ],
        stats: { totalResearchers: 2, totalReports: 6, criticalFindingsCount: 1 },
      }),
    });
    renderRoute('/security/hall-of-fame');
    await screen.findByRole('heading', { level: 1, name: HALL_OF_FAME_TITLE });
    const ada = await screen.findByRole('listitem', { name: 'Ada Lovelace' });
    const stat = (label: string) => screen.getByText(label).previousElementSibling?.textContent;
    expect(stat(STAT_RESEARCHERS)).toBe('2');
    expect(stat(STAT_REPORTS)).toBe('6');
    expect(stat(STAT_CRITICAL)).toBe('1');

    expect(within(ada).getByText('@ada')).toBeTruthy();
    expect(within(ada).getByText('5 reports · Since Jan 2026')).toBeTruthy();
    const titles = within(ada)
      .getAllByRole('listitem')
      .map((item) => item.querySelector('p')?.textContent);
    expect(titles).toEqual([UNDISCLOSED_FINDING_TITLE, 'Fixed finding 4', 'Fixed finding 3']);
    expect(within(ada).getByText('+2 more')).toBeTruthy();
    expect(within(ada).getByText('Critical')).toBeTruthy();

    const linus = screen.getByRole('listitem', { name: 'Linus' });
    expect(within(linus).queryByText(/more$/)).toBeNull();
    expect(within(linus).getByText('1 report · Since Feb 2026')).toBeTruthy();
    // No picture from anywhere: initials.
    expect(within(ada).getByText('AL')).toBeTruthy();
    expect(within(ada).queryByRole('img')).toBeNull();
    expect(document.querySelector('img[src*="tracker"]')).toBeNull();
  });

  it('only logs a failed load, and shows the empty state', async () => {
    fakeApi({ 'GET /security/hall-of-fame': fail(500, 'Internal server error') });
    const warn = vi.spyOn(log, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(toast, 'error');
    renderRoute('/security/hall-of-fame');
    expect(await screen.findByText(HALL_OF_FAME_EMPTY_TITLE)).toBeTruthy();
    expect(warn).toHaveBeenCalledWith('Could not load the hall of fame', expect.anything());
    expect(error).not.toHaveBeenCalled();
    expect(screen.getByText(STAT_RESEARCHERS).previousElementSibling?.textContent).toBe('0');
  });

  it('shows the empty state when nobody has been thanked yet, and leads to the report form', async () => {
    fakeApi({
      'GET /security/hall-of-fame': reply(200, {
        researchers: [],
        stats: { totalResearchers: 0, totalReports: 0, criticalFindingsCount: 0 },
      }),
    });
    renderRoute('/security/hall-of-fame');
    expect(await screen.findByText(HALL_OF_FAME_EMPTY_TITLE)).toBeTruthy();
    expect(screen.getByRole('link', { name: REPORT_VULNERABILITY }).getAttribute('href')).toBe('/security');
  });
});
