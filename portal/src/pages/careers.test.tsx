import {
  applicationRequest,
  jobCategoriesSchema,
  jobListSchema,
  jobSchema,
  type Job,
} from '@exploit-grid/api/contracts';
import { CAREERS_MESSAGES as M, RESUME_MAX_BYTES } from '@exploit-grid/api/contracts/careers-constants';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readCategories, readJobs } from '../components/careers/careersApi.ts';
import {
  EMPTY_APPLICATION,
  applicationErrors,
  applicationRequestOf,
  resumeFileProblem,
  salaryText,
} from '../components/careers/format.ts';
import { toast } from '../notifications/toast.ts';
import {
  ABOUT_THE_ROLE,
  ALL_CATEGORIES,
  APPLY_FAILED,
  APPLY_NOW,
  APPLY_SUCCEEDED,
  APPLY_TITLE,
  BACK,
  BACK_TO_CAREERS,
  BENEFITS,
  CANCEL,
  CAREERS_HEADLINE,
  CATEGORY_LABEL,
  CLEAR_ALL_FILTERS,
  CLEAR_FILTERS,
  KEY_SKILLS,
  LEVEL_LABEL,
  NO_POSITIONS_CONTACT,
  NO_POSITIONS_TITLE,
  PERFECT_ROLE_TITLE,
  PREFERRED,
  REMOTE_ONLY,
  REMOVE_RESUME,
  REQUIREMENTS,
  SEARCH_LABEL,
  SEARCH_PLACEHOLDER,
  SOURCE_LABELS,
  SOURCE_QUESTION,
  SUBMIT_APPLICATION,
  SUBMITTING,
  TYPE_LABEL,
  UPLOADING,
} from '../strings/careers.ts';
import { deferred, fail, fakeApi, reply, type FakeReply, type FakeRequest } from '../testing/fakeApi.ts';
import { locationOf, renderRoute } from '../test-utils.tsx';

vi.setConfig({ testTimeout: 20_000 });
beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const job = (over: Partial<Job> = {}): Job => ({
  id: '7d0f4a1e-0c55-4e1b-9a43-6b1f0f1d2a01',
  slug: 'red-team-operator',
  title: 'Red Team Operator',
  shortDescription: 'Break the arena before players do.',
  description: 'You attack the platform.\nThen you write it up.',
  requirements: '5 years of offensive work.',
  preferred: 'Container escapes.',
  category: 'RED_TEAM',
  type: 'FULL_TIME',
  level: 'SENIOR',
  remote: true,
  location: 'Lisbon',
  timezone: 'UTC±3',
  salaryMin: 12_000_000,
  salaryMax: 16_000_000,
  skills: ['Linux', 'Exploitation', 'Python', 'C', 'Reporting'],
  benefits: ['Remote-first', 'Conference budget'],
  applicationUrl: null,
  applicationEmail: null,
  publishedAt: '2026-11-20T10:00:00.000Z',
  createdAt: '2026-11-20T10:00:00.000Z',
  ...over,
});
const red = job();
const intern = job({
  id: '7d0f4a1e-0c55-4e1b-9a43-6b1f0f1d2a02',
  slug: 'blue-team-intern',
  title: 'Blue Team Intern',
  category: 'SECURITY',
  type: 'INTERNSHIP',
  level: 'ENTRY',
  remote: false,
  location: null,
  salaryMin: null,
  salaryMax: 4_000_000,
  skills: ['Networking'],
  preferred: undefined,
});
const categories = {
  categories: [
    { category: 'RED_TEAM', count: 1 },
    { category: 'SECURITY', count: 2 },
  ],
};

type Routes = Parameters<typeof fakeApi>[0];

/** /careers with an API answering `jobs` to every list call (or `list`), and the categories. */
async function careersPage(
  list: FakeReply | ((request: FakeRequest) => FakeReply) = reply(200, { jobs: [red, intern] }),
  routes: Routes = {},
) {
  const api = fakeApi({
    'GET /careers/categories': reply(200, categories),
    ...routes,
  });
  api.on('GET /careers', list);
  const rendered = renderRoute('/careers');
  await screen.findByRole('heading', { level: 1, name: CAREERS_HEADLINE });
  return { api, ...rendered };
}
/** The list calls made, by their query. */
const listQueries = (api: ReturnType<typeof fakeApi>) =>
  api.calls.filter((c) => c.method === 'GET' && /^\/careers(\?|$)/.test(c.path)).map((c) => c.path);
const select = (name: string) => screen.getByRole('combobox', { name }) as HTMLSelectElement;

describe('/careers', () => {
  it('shows the header, the count, the job cards (4 skills and +N more) and the careers mail block', async () => {
    await careersPage();
    expect(await screen.findByText('2 positions found')).toBeTruthy();
    const cards = screen.getAllByRole('article');
    expect(cards).toHaveLength(2);
    const first = within(cards[0]!);
    expect(first.getByRole('heading', { name: 'Red Team Operator' })).toBeTruthy();
    expect(first.getByRole('link', { name: 'Red Team Operator' }).getAttribute('href')).toBe(
      '/careers/jobs/red-team-operator',
    );
    expect(first.getByText('RED TEAM · Full Time · Senior')).toBeTruthy();
    expect(first.getByText('Remote')).toBeTruthy();
    expect(first.getByText('$120k - $160k')).toBeTruthy();
    const skills = within(first.getByLabelText('Skills'));
    expect(skills.getAllByText(/./).map((s) => s.textContent)).toEqual([
      'Linux',
      'Exploitation',
      'Python',
      'C',
      '+1 more',
    ]);
    const second = within(cards[1]!);
    // Not remote and no location: 'Office'. Only a maximum: 'Up to'.
    expect(second.getByText('Office')).toBeTruthy();
    expect(second.getByText('Up to $40k')).toBeTruthy();
    expect(second.queryByText(/more$/)).toBeNull();
    const role = screen.getByRole('complementary', { name: PERFECT_ROLE_TITLE });
    expect(within(role).getByRole('link', { name: 'careers@exploitgrid.io' }).getAttribute('href')).toBe(
      'mailto:careers@exploitgrid.io',
    );
    await waitFor(() => expect(document.title).toBe('Careers | Exploit Grid'));
  });

  it('shows three skeleton cards while the list loads', async () => {
    const answer = deferred<FakeReply>();
    await careersPage(() => answer.promise as unknown as FakeReply);
    expect(screen.getAllByTestId('job-skeleton')).toHaveLength(3);
    expect(screen.queryByText(/positions? found/)).toBeNull();
    await act(async () => answer.resolve(reply(200, [red])));
    expect(await screen.findByText('1 position found')).toBeTruthy();
    expect(screen.queryAllByTestId('job-skeleton')).toHaveLength(0);
  });

  it('offers the categories with their counts and the filters, and asks again on every change', async () => {
    const { api } = await careersPage();
    await screen.findByText('2 positions found');
    const category = select(CATEGORY_LABEL);
    await waitFor(() =>
      expect([...category.options].map((o) => o.textContent)).toEqual([
        ALL_CATEGORIES,
        'RED TEAM (1)',
        'SECURITY (2)',
      ]),
    );
    expect(screen.getByRole('searchbox', { name: SEARCH_LABEL }).getAttribute('placeholder')).toBe(
      SEARCH_PLACEHOLDER,
    );
    fireEvent.change(category, { target: { value: 'SECURITY' } });
    await waitFor(() => expect(listQueries(api)).toContain('/careers?category=SECURITY'));
    fireEvent.change(select(TYPE_LABEL), { target: { value: 'INTERNSHIP' } });
    await waitFor(() => expect(listQueries(api)).toContain('/careers?category=SECURITY&type=INTERNSHIP'));
    fireEvent.change(select(LEVEL_LABEL), { target: { value: 'ENTRY' } });
    fireEvent.click(screen.getByRole('checkbox', { name: REMOTE_ONLY }));
    await waitFor(() =>
      expect(listQueries(api)).toContain(
        '/careers?category=SECURITY&type=INTERNSHIP&level=ENTRY&remote=true',
      ),
    );
    fireEvent.click(screen.getByRole('button', { name: CLEAR_ALL_FILTERS }));
    await waitFor(() => expect(listQueries(api).at(-1)).toBe('/careers'));
    expect(select(CATEGORY_LABEL).value).toBe('');
    expect((screen.getByRole('checkbox', { name: REMOTE_ONLY }) as HTMLInputElement).checked).toBe(false);
  });

  it('waits for typing to pause before it searches, and sends the trimmed words once', async () => {
    const { api } = await careersPage();
    await screen.findByText('2 positions found');
    const before = listQueries(api).length;
    const search = screen.getByRole('searchbox', { name: SEARCH_LABEL });
    for (const text of ['r', 're', 'red', 'red ', 'red t', ' red team '])
      fireEvent.change(search, { target: { value: text } });
    await waitFor(() => expect(listQueries(api).at(-1)).toBe('/careers?search=red+team'));
    await new Promise((r) => setTimeout(r, 400));
    expect(listQueries(api).slice(before)).toEqual(['/careers?search=red+team']);
  });

  it('shows the empty state with a contact mail link, and Clear Filters asks for every job', async () => {
    const { api } = await careersPage((request) =>
      request.path === '/careers' ? reply(200, { jobs: [red] }) : reply(200, { jobs: [] }),
    );
    await screen.findByText('1 position found');
    fireEvent.change(select(TYPE_LABEL), { target: { value: 'CONTRACT' } });
    expect(await screen.findByRole('heading', { name: NO_POSITIONS_TITLE })).toBeTruthy();
    expect(screen.getByText('0 positions found')).toBeTruthy();
    expect(screen.getByRole('link', { name: NO_POSITIONS_CONTACT }).getAttribute('href')).toBe(
      'mailto:contact@exploitgrid.io',
    );
    fireEvent.click(screen.getByRole('button', { name: CLEAR_FILTERS }));
    expect(await screen.findByText('1 position found')).toBeTruthy();
    expect(listQueries(api).at(-1)).toBe('/careers');
    expect(select(TYPE_LABEL).value).toBe('');
  });

  it('shows no position when the list fails or answers an unexpected shape, and no category when they fail', async () => {
    await careersPage(fail(500, 'Internal server error'), {
      'GET /careers/categories': fail(500, 'Internal server error'),
    });
    expect(await screen.findByRole('heading', { name: NO_POSITIONS_TITLE })).toBeTruthy();
    expect([...select(CATEGORY_LABEL).options].map((o) => o.textContent)).toEqual([ALL_CATEGORIES]);
    cleanup();
    await careersPage(reply(200, { positions: [red] }));
    expect(await screen.findByRole('heading', { name: NO_POSITIONS_TITLE })).toBeTruthy();
    expect(console.warn).toHaveBeenCalled();
  });
});

describe('the readers of the careers answers agree with the contracts', () => {
  it('reads what the schemas accept, and leaves out what they refuse', () => {
    const valid = [red, intern, job({ applicationUrl: 'https://jobs.example.test/1', preferred: undefined })];
    expect(jobListSchema.parse({ jobs: valid }).jobs).toHaveLength(3);
    expect(readJobs({ jobs: valid })).toEqual(valid);
    expect(readJobs(valid)).toEqual(valid);
    for (const broken of [
      { ...red, type: 'FULLTIME' },
      { ...red, salaryMin: '120000' },
      { ...red, skills: 'Linux' },
      { ...red, remote: 'yes' },
      { ...red, id: undefined },
    ]) {
      expect(jobSchema.safeParse(broken).success).toBe(false);
      expect(readJobs([broken])).toEqual([]);
    }
    expect(jobCategoriesSchema.parse(categories).categories).toEqual(readCategories(categories));
    expect(readCategories(categories.categories)).toEqual(categories.categories);
    expect(readCategories({ nope: 1 })).toEqual([]);
  });
});

describe('salaries', () => {
  it('are whole thousands of dollars from cents', () => {
    expect(salaryText({ salaryMin: 12_000_000, salaryMax: 16_050_000 })).toBe('$120k - $161k');
    expect(salaryText({ salaryMin: 9_000_000, salaryMax: null })).toBe('From $90k');
    expect(salaryText({ salaryMin: null, salaryMax: 4_000_000 })).toBe('Up to $40k');
    expect(salaryText({ salaryMin: null, salaryMax: null })).toBeNull();
  });
});

async function jobPage(answer: FakeReply = reply(200, red), start = '/careers/jobs/red-team-operator') {
  const api = fakeApi({
    'GET /careers/red-team-operator': answer,
    'GET /careers/categories': reply(200, categories),
    'GET /careers': reply(200, { jobs: [red] }),
  });
  const rendered = renderRoute(start);
  return { api, ...rendered };
}

describe('/careers/jobs/{slug}', () => {
  it('shows the job: the line, the sections, the side column, and Back to Careers when opened directly', async () => {
    await jobPage();
    expect(await screen.findByRole('heading', { level: 1, name: 'Red Team Operator' })).toBeTruthy();
    expect(screen.getByText('RED TEAM · Full Time · Senior')).toBeTruthy();
    for (const title of [ABOUT_THE_ROLE, REQUIREMENTS, PREFERRED])
      expect(screen.getByRole('heading', { level: 2, name: title })).toBeTruthy();
    expect(screen.getByRole('region', { name: ABOUT_THE_ROLE }).textContent).toContain(
      'You attack the platform.',
    );
    const side = within(screen.getByRole('complementary', { name: 'Position details' }));
    expect(side.getByText('Remote')).toBeTruthy();
    expect(side.getByText('Senior')).toBeTruthy();
    expect(side.getByText('$120k - $160k')).toBeTruthy();
    expect(side.getByText('UTC±3')).toBeTruthy();
    expect(within(side.getByRole('region', { name: KEY_SKILLS })).getAllByText(/./)).toHaveLength(6);
    expect(within(side.getByRole('region', { name: BENEFITS })).getByText('Conference budget')).toBeTruthy();
    expect(screen.getByRole('link', { name: BACK_TO_CAREERS }).getAttribute('href')).toBe('/careers');
    expect(screen.queryByRole('link', { name: /@/ })).toBeNull();
    await waitFor(() => expect(document.title).toBe('Red Team Operator | Careers | Exploit Grid'));
  });

  it('leaves out Preferred, the salary and the timezone when the job has none, and shows the location', async () => {
    await jobPage(
      reply(
        200,
        job({ preferred: undefined, salaryMin: null, salaryMax: null, timezone: null, remote: false }),
      ),
    );
    await screen.findByRole('heading', { level: 1, name: 'Red Team Operator' });
    expect(screen.queryByRole('heading', { name: PREFERRED })).toBeNull();
    expect(screen.queryByText('Salary Range')).toBeNull();
    expect(screen.queryByText('Timezone')).toBeNull();
    expect(screen.getByText('Lisbon')).toBeTruthy();
  });

  it('says Back and goes back when the visitor came from /careers', async () => {
    const { router } = await careersPage(reply(200, { jobs: [red] }), {
      'GET /careers/red-team-operator': reply(200, red),
    });
    fireEvent.click(await screen.findByRole('link', { name: 'Red Team Operator' }));
    await screen.findByRole('heading', { level: 1, name: 'Red Team Operator' });
    fireEvent.click(screen.getByRole('button', { name: BACK }));
    await waitFor(() => expect(locationOf(router)).toBe('/careers'));
  });

  it('opens an http(s) application form in a new tab, and mails the application address', async () => {
    await jobPage(
      reply(
        200,
        job({ applicationUrl: 'https://jobs.example.test/apply/7', applicationEmail: 'jobs@example.test' }),
      ),
    );
    const apply = await screen.findByRole('link', { name: APPLY_NOW });
    expect(apply.getAttribute('href')).toBe('https://jobs.example.test/apply/7');
    expect(apply.getAttribute('target')).toBe('_blank');
    expect(apply.getAttribute('rel')).toBe('noopener noreferrer');
    expect(screen.getByRole('link', { name: 'jobs@example.test' }).getAttribute('href')).toBe(
      'mailto:jobs@example.test',
    );
  });

  it('opens the modal instead of an application address that is not http(s)', async () => {
    await jobPage(reply(200, job({ applicationUrl: 'javascript:alert(1)' })));
    const apply = await screen.findByRole('button', { name: APPLY_NOW });
    expect(screen.queryByRole('link', { name: APPLY_NOW })).toBeNull();
    fireEvent.click(apply);
    expect(await screen.findByRole('dialog', { name: new RegExp(APPLY_TITLE) })).toBeTruthy();
  });

  it('goes to /careers when the job cannot be loaded', async () => {
    const { router } = await jobPage(fail(404, 'Job not found.'));
    await waitFor(() => expect(locationOf(router)).toBe('/careers'));
    expect(await screen.findByRole('heading', { level: 1, name: CAREERS_HEADLINE })).toBeTruthy();
  });
});

describe('the Apply for Position modal', () => {
  const pdf = (size = 1000, name = 'Jane Doe CV.pdf', type = 'application/pdf') => {
    const file = new File(['%PDF-1.4'], name, { type });
    Object.defineProperty(file, 'size', { value: size });
    return file;
  };
  const uploaded = { resumeId: '5b7f0e2c-9d5a-4c1e-8f3a-2a1b3c4d5e6f', type: 'pdf', size: 1000 };

  async function openModal(routes: Routes = {}) {
    const api = fakeApi({
      'GET /careers/red-team-operator': reply(200, red),
      'POST /careers/resumes': reply(201, uploaded),
      [`POST /careers/${red.id}/apply`]: reply(201, {
        applicationId: '0d6f3b1a-1b2c-4d5e-8f90-a1b2c3d4e5f6',
      }),
      ...routes,
    });
    renderRoute('/careers/jobs/red-team-operator');
    fireEvent.click(await screen.findByRole('button', { name: APPLY_NOW }));
    const dialog = await screen.findByRole('dialog', { name: new RegExp(APPLY_TITLE) });
    return { api, dialog: within(dialog) };
  }
  const type = (dialog: ReturnType<typeof within>, label: RegExp, value: string) =>
    fireEvent.change(dialog.getByRole('textbox', { name: label }), { target: { value } });
  const choose = (file: File) =>
    fireEvent.change(document.querySelector('input[type="file"]')!, { target: { files: [file] } });

  it('shows the job title, the fields, the upload area and the source question with the spec labels', async () => {
    const { dialog } = await openModal();
    expect(dialog.getByText('Red Team Operator')).toBeTruthy();
    for (const label of [
      /^First Name/,
      /^Last Name/,
      /^Email/,
      /^Phone/,
      /^Location/,
      /^Portfolio URL/,
      /^LinkedIn URL/,
      /^GitHub URL/,
      /^Cover Letter/,
    ])
      expect(dialog.getByRole('textbox', { name: label })).toBeTruthy();
    expect(dialog.getByText(M.resumeHint)).toBeTruthy();
    const source = dialog.getByRole('combobox', { name: SOURCE_QUESTION }) as HTMLSelectElement;
    expect([...source.options].slice(1).map((o) => o.textContent)).toEqual(Object.values(SOURCE_LABELS));
    expect(SOURCE_LABELS.referral).toBe('Employee Referral');
    expect(SOURCE_LABELS.job_board).toBe('Job Board');
    expect(dialog.getByRole('button', { name: SUBMIT_APPLICATION })).toBeTruthy();
  });

  it('tells every rule of the spec before sending anything', async () => {
    const { api, dialog } = await openModal();
    fireEvent.click(dialog.getByRole('button', { name: SUBMIT_APPLICATION }));
    for (const message of [M.firstNameRequired, M.lastNameRequired, M.emailRequired, M.resumeRequired])
      expect(await dialog.findByText(message)).toBeTruthy();
    type(dialog, /^Email/, 'jane.doe');
    type(dialog, /^Portfolio URL/, 'portfolio');
    type(dialog, /^LinkedIn URL/, 'javascript:alert(1)');
    type(dialog, /^GitHub URL/, 'github.com/jane');
    fireEvent.click(dialog.getByRole('button', { name: SUBMIT_APPLICATION }));
    for (const message of [M.emailInvalid, M.portfolioInvalid, M.linkedinInvalid, M.githubInvalid])
      expect(await dialog.findByText(message)).toBeTruthy();
    expect(api.callsTo(`POST /careers/${red.id}/apply`)).toHaveLength(0);
  });

  it('refuses a file over 5 MB or of another type before uploading it', async () => {
    const error = vi.spyOn(toast, 'error');
    const { api, dialog } = await openModal();
    choose(pdf(RESUME_MAX_BYTES + 1));
    expect(await dialog.findByText(M.resumeTooLarge)).toBeTruthy();
    expect(error).toHaveBeenCalledWith(M.resumeTooLarge);
    choose(pdf(100, 'photo.png', 'image/png'));
    expect(await dialog.findByText(M.resumeWrongType)).toBeTruthy();
    expect(api.callsTo('POST /careers/resumes')).toHaveLength(0);
  });

  it('uploads a chosen resume, disables the buttons meanwhile, and offers to remove it', async () => {
    const answer = deferred<FakeReply>();
    const success = vi.spyOn(toast, 'success');
    const { api, dialog } = await openModal({
      'POST /careers/resumes': () => answer.promise as unknown as FakeReply,
    });
    choose(pdf());
    expect(await dialog.findByRole('button', { name: UPLOADING })).toBeTruthy();
    expect((dialog.getByRole('button', { name: SUBMIT_APPLICATION }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    expect((dialog.getByRole('button', { name: CANCEL, hidden: false }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    await act(async () => answer.resolve(reply(201, uploaded)));
    expect(await dialog.findByText('Jane Doe CV.pdf')).toBeTruthy();
    expect(success).toHaveBeenCalledWith(M.uploadSucceeded);
    expect(api.callsTo('POST /careers/resumes')).toHaveLength(1);
    fireEvent.click(dialog.getByRole('button', { name: REMOVE_RESUME }));
    expect(dialog.queryByText('Jane Doe CV.pdf')).toBeNull();
    expect(dialog.getByText(M.resumeHint)).toBeTruthy();
  });

  it("shows the server's refusal of a file (its content), else 'Upload failed'", async () => {
    const error = vi.spyOn(toast, 'error');
    const { dialog } = await openModal({ 'POST /careers/resumes': fail(415, M.resumeWrongType) });
    choose(pdf(100, 'cv.pdf'));
    expect(await dialog.findByText(M.resumeWrongType)).toBeTruthy();
    expect(error).toHaveBeenCalledWith(M.resumeWrongType);
    cleanup();
    const second = await openModal({ 'POST /careers/resumes': reply(502) });
    choose(pdf());
    expect(await second.dialog.findByText(M.uploadFailed)).toBeTruthy();
  });

  it('sends the trimmed application without empty fields, shows the success toast and closes', async () => {
    const success = vi.spyOn(toast, 'success');
    const answer = deferred<FakeReply>();
    const { api, dialog } = await openModal({
      [`POST /careers/${red.id}/apply`]: () => answer.promise as unknown as FakeReply,
    });
    type(dialog, /^First Name/, '  Jane ');
    type(dialog, /^Last Name/, 'Doe');
    type(dialog, /^Email/, ' jane@example.test ');
    type(dialog, /^GitHub URL/, 'https://github.com/jane');
    type(dialog, /^Cover Letter/, 'Hello.\nI break things.');
    fireEvent.change(dialog.getByRole('combobox', { name: SOURCE_QUESTION }), {
      target: { value: 'referral' },
    });
    choose(pdf());
    await dialog.findByText('Jane Doe CV.pdf');
    fireEvent.click(dialog.getByRole('button', { name: SUBMIT_APPLICATION }));
    const busy = await dialog.findByRole('button', { name: SUBMITTING });
    expect((busy as HTMLButtonElement).disabled).toBe(true);
    await act(async () =>
      answer.resolve(reply(201, { applicationId: '0d6f3b1a-1b2c-4d5e-8f90-a1b2c3d4e5f6' })),
    );
    await waitFor(() => expect(success).toHaveBeenCalledWith(APPLY_SUCCEEDED));
    expect(api.callsTo(`POST /careers/${red.id}/apply`)[0]!.body).toEqual({
      firstName: 'Jane',
      lastName: 'Doe',
      email: 'jane@example.test',
      coverLetter: 'Hello.\nI break things.',
      resumeId: uploaded.resumeId,
      githubUrl: 'https://github.com/jane',
      source: 'referral',
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it("shows the server's message when the application is refused, else the spec's fallback", async () => {
    const error = vi.spyOn(toast, 'error');
    const { dialog } = await openModal({ [`POST /careers/${red.id}/apply`]: fail(409, M.resumeUnusable) });
    type(dialog, /^First Name/, 'Jane');
    type(dialog, /^Last Name/, 'Doe');
    type(dialog, /^Email/, 'jane@example.test');
    choose(pdf());
    await dialog.findByText('Jane Doe CV.pdf');
    fireEvent.click(dialog.getByRole('button', { name: SUBMIT_APPLICATION }));
    await waitFor(() => expect(error).toHaveBeenCalledWith(M.resumeUnusable));
    expect(screen.getByRole('dialog')).toBeTruthy();
    cleanup();
    const second = await openModal({ [`POST /careers/${red.id}/apply`]: reply(500) });
    type(second.dialog, /^First Name/, 'Jane');
    type(second.dialog, /^Last Name/, 'Doe');
    type(second.dialog, /^Email/, 'jane@example.test');
    choose(pdf());
    await second.dialog.findByText('Jane Doe CV.pdf');
    fireEvent.click(second.dialog.getByRole('button', { name: SUBMIT_APPLICATION }));
    await waitFor(() => expect(error).toHaveBeenCalledWith(APPLY_FAILED));
  });
});

describe("the form's rules agree with the API's", () => {
  it('refuses and accepts what the contract does', () => {
    const resumeId = '5b7f0e2c-9d5a-4c1e-8f3a-2a1b3c4d5e6f';
    const base = { ...EMPTY_APPLICATION, firstName: 'Jane', lastName: 'Doe', email: 'jane@example.test' };
    const cases = [
      base,
      { ...base, firstName: ' ' },
      { ...base, email: 'jane' },
      { ...base, portfolioUrl: 'https://jane.example.test' },
      { ...base, portfolioUrl: 'ftp://jane.example.test' },
      { ...base, linkedinUrl: 'linkedin.com/in/jane' },
      { ...base, githubUrl: 'http://github.com/jane' },
    ];
    for (const form of cases) {
      const mine = applicationErrors(form, resumeId);
      const theirs = applicationRequest.safeParse(applicationRequestOf(form, resumeId));
      expect(Object.keys(mine).length === 0, JSON.stringify(form)).toBe(theirs.success);
      if (!theirs.success) expect(Object.values(mine)).toContain(theirs.error.issues[0]!.message);
    }
    expect(applicationErrors(base, null)).toEqual({ resume: M.resumeRequired });
  });

  it('checks a file by its size, then its name or type', () => {
    expect(resumeFileProblem({ name: 'cv.PDF', size: RESUME_MAX_BYTES, type: '' })).toBeNull();
    expect(resumeFileProblem({ name: 'cv', size: 10, type: 'application/msword' })).toBeNull();
    expect(resumeFileProblem({ name: 'cv.docx', size: RESUME_MAX_BYTES + 1, type: '' })).toBe(
      M.resumeTooLarge,
    );
    expect(resumeFileProblem({ name: 'cv.exe', size: 10, type: 'application/x-msdownload' })).toBe(
      M.resumeWrongType,
    );
  });
});
