import type { LeaderboardRow, LeaderboardSortField } from '@exploit-grid/api/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RootStore } from '../stores/RootStore.ts';
import {
  LEADERBOARD_LOAD_FAILED,
  LEADERBOARD_TABLE,
  LEADERBOARD_TITLE,
  LEADERBOARD_UNAVAILABLE,
  LOADING_LEADERBOARD,
  NEXT,
  NO_OPERATORS,
  PREVIOUS,
  RETRY,
  SEARCH_LABEL,
  YOU,
} from '../strings/leaderboard.ts';
import {
  deferred,
  fail,
  fakeApi,
  reply,
  testUser,
  type FakeReply,
  type FakeRequest,
} from '../testing/fakeApi.ts';
import { fakeSockets } from '../testing/fakeSockets.ts';
import { renderSignedIn } from '../test-utils.tsx';
import { MMR_HINT } from '../strings/hints.ts';

const HANDLES = [
  'acid_burn',
  'crash_override',
  'zero_cool',
  'lord_nikon',
  'phantom_phreak',
  'cereal_killer',
  'joey',
  'the_plague',
  'razor',
  'blade',
  'kate_libby',
  'gibson',
  'da_vinci',
  'eugene',
  'margo',
  'hal',
  'duke',
  'nikon_2',
  'burn_unit',
  'plague_doctor',
];

/** Twenty operators by rank; zero_cool (the signed-in operator) is third. */
const operators: LeaderboardRow[] = HANDLES.map((handle, index) => ({
  id:
    handle === testUser.handle
      ? testUser.id
      : `00000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`,
  rank: index + 1,
  handle,
  mmr: 2000 - index * 50,
  attacksWon: 20 - index,
  totalAttacks: 30,
  winRate: ((20 - index) / 30) * 100,
  defensesWon: index,
  totalDefenses: 20,
  defenseRate: (index / 20) * 100,
}));

const viewRoute = 'POST /user-activity/log';
const query = (params: Record<string, string | number>) =>
  `GET /leaderboard?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()}`;
const firstPage = query({ sortBy: 'rank', sortOrder: 'asc', page: 1, limit: 15 });

/** GET /leaderboard as the API answers it: search by handle, sort, one page of `limit`. */
function board(rows: readonly LeaderboardRow[]) {
  return (request: FakeRequest): FakeReply => {
    const params = new URL(request.path, 'http://api.test').searchParams;
    const search = (params.get('search') ?? '').toLowerCase();
    const sortBy = (params.get('sortBy') ?? 'rank') as LeaderboardSortField;
    const sign = params.get('sortOrder') === 'desc' ? -1 : 1;
    const page = Number(params.get('page') ?? 1);
    const limit = Number(params.get('limit') ?? 15);
    const matching = rows
      .filter((row) => row.handle.toLowerCase().includes(search))
      .sort((a, b) => {
        const x = a[sortBy];
        const y = b[sortBy];
        return sign * (typeof x === 'string' ? x.localeCompare(String(y)) : x - Number(y));
      });
    return reply(200, { data: matching.slice((page - 1) * limit, page * limit), total: matching.length });
  };
}

type Routes = Record<string, FakeReply | ((request: FakeRequest) => FakeReply | Promise<FakeReply>)>;

/** Renders /leaderboard over these operators and waits for the heading. */
async function leaderboardPage(routes: Routes = {}) {
  const rendered = renderSignedIn('/leaderboard', {
    'GET /leaderboard': board(operators),
    [viewRoute]: reply(204),
    ...routes,
  });
  await screen.findByRole('heading', { level: 1, name: LEADERBOARD_TITLE });
  return rendered;
}

const leaderboardCalls = (api: { calls: FakeRequest[] }) =>
  api.calls.filter((call) => call.method === 'GET' && call.path.startsWith('/leaderboard'));

/** The table's body rows, once loaded. */
async function rows() {
  const table = await screen.findByRole('table', { name: LEADERBOARD_TABLE });
  await waitFor(() => expect(within(table).queryAllByTestId('leaderboard-skeleton')).toHaveLength(0));
  return within(table).getAllByRole('row').slice(1);
}

const handles = async () =>
  (await rows()).map((row) => within(row).getAllByRole('cell')[1]!.textContent.replace(YOU, ''));
const pageLabel = () => screen.getByTestId('page-label').textContent;
const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;
const header = (name: string) => screen.getByRole('columnheader', { name });

afterEach(() => {
  vi.useRealTimers();
});

describe('Leaderboard /leaderboard', () => {
  it('says what MMR is above the table', async () => {
    await leaderboardPage();
    expect(screen.getByTestId('mmr-hint').textContent).toBe(MMR_HINT);
    expect(MMR_HINT).toContain('starts at 1000');
  });

  it('asks for page 1 by rank ascending, 15 a page, and shows each operator', async () => {
    const { api } = await leaderboardPage();
    await waitFor(() => expect(document.title).toBe('Leaderboard | Exploit Grid'));
    const body = await rows();
    expect(leaderboardCalls(api).map((call) => call.path)).toEqual([firstPage.slice('GET '.length)]);
    expect(api.callsTo(firstPage)[0]?.authorization).toBe('Bearer token-1');
    expect(body).toHaveLength(15);
    const cells = within(body[0]!)
      .getAllByRole('cell')
      .map((cell) => cell.textContent);
    expect(cells).toEqual(['1', 'acid_burn', '2000', '20/30', '66.7%', '0/20', '0.0%']);
    expect(header('Rank').getAttribute('aria-sort')).toBe('ascending');
  });

  it('colours win and defense rates green above 50%, not at exactly 50%', async () => {
    const rated = (handle: string, winRate: number, defenseRate: number): LeaderboardRow => ({
      ...operators[0]!,
      id: `00000000-0000-4000-8000-0000000000${handle.length}${handle.length}`,
      handle,
      winRate,
      defenseRate,
    });
    await leaderboardPage({
      'GET /leaderboard': reply(200, {
        data: [rated('high', 57.14, 50), rated('halfway', 50, 50.06), rated('low', 50.04, 12.5)],
        total: 3,
      }),
    });
    const body = await rows();
    const rates = body.map((row) =>
      ['win-rate', 'defense-rate'].map((id) => {
        const cell = within(row).getByTestId(id);
        return [cell.textContent, cell.getAttribute('data-good'), getComputedStyle(cell).color];
      }),
    );
    const green = 'rgb(0, 230, 118)';
    expect(rates.map((row) => row.map(([text, good]) => [text, good]))).toEqual([
      [
        ['57.1%', 'true'],
        ['50.0%', 'false'],
      ],
      [
        ['50.0%', 'false'],
        ['50.1%', 'true'],
      ],
      [
        ['50.0%', 'false'],
        ['12.5%', 'false'],
      ],
    ]);
    expect(rates[0]![0]![2]).toBe(green);
    expect(rates[0]![1]![2]).not.toBe(green);
    expect(rates[1]![0]![2]).not.toBe(green);
    expect(rates[1]![1]![2]).toBe(green);
  });

  it("highlights the signed-in operator's own row", async () => {
    await leaderboardPage();
    const body = await rows();
    const own = body.filter((row) => row.getAttribute('aria-current') === 'true');
    expect(own).toEqual([body[2]]);
    expect(own[0]!.classList.contains('Mui-selected')).toBe(true);
    expect(within(own[0]!).getByText(YOU)).toBeTruthy();
    expect(within(body[0]!).queryByText(YOU)).toBeNull();
    expect(body[0]!.classList.contains('Mui-selected')).toBe(false);
  });

  it('sorts by a clicked header, numbers best first, and a second click flips the order', async () => {
    const { api } = await leaderboardPage();
    await rows();
    fireEvent.click(within(header('MMR')).getByRole('button'));
    expect(await handles()).toEqual(HANDLES.slice(0, 15));
    expect(api.callsTo(query({ sortBy: 'mmr', sortOrder: 'desc', page: 1, limit: 15 }))).toHaveLength(1);
    expect(header('MMR').getAttribute('aria-sort')).toBe('descending');
    expect(header('Rank').getAttribute('aria-sort')).toBeNull();

    fireEvent.click(within(header('MMR')).getByRole('button'));
    expect((await handles())[0]).toBe('plague_doctor');
    expect(api.callsTo(query({ sortBy: 'mmr', sortOrder: 'asc', page: 1, limit: 15 }))).toHaveLength(1);
    expect(header('MMR').getAttribute('aria-sort')).toBe('ascending');

    fireEvent.click(within(header('Operator')).getByRole('button'));
    expect((await handles()).slice(0, 3)).toEqual(['acid_burn', 'blade', 'burn_unit']);
    expect(api.callsTo(query({ sortBy: 'handle', sortOrder: 'asc', page: 1, limit: 15 }))).toHaveLength(1);

    fireEvent.click(within(header('Attacks')).getByRole('button'));
    await rows();
    expect(api.callsTo(query({ sortBy: 'attacksWon', sortOrder: 'desc', page: 1, limit: 15 }))).toHaveLength(
      1,
    );
    for (const [name, field] of [
      ['Win Rate', 'winRate'],
      ['Defenses', 'defensesWon'],
      ['Defense Rate', 'defenseRate'],
      ['Rank', 'rank'],
    ] as const) {
      fireEvent.click(within(header(name)).getByRole('button'));
      await rows();
      const order = field === 'rank' ? 'asc' : 'desc';
      expect(api.callsTo(query({ sortBy: field, sortOrder: order, page: 1, limit: 15 })), name).toHaveLength(
        field === 'rank' ? 2 : 1,
      );
    }
  });

  it('sorting goes back to page 1', async () => {
    const { api } = await leaderboardPage();
    await rows();
    fireEvent.click(button(NEXT));
    await waitFor(() => expect(pageLabel()).toBe('Page 2 of 2'));
    fireEvent.click(within(header('Win Rate')).getByRole('button'));
    await waitFor(() => expect(pageLabel()).toBe('Page 1 of 2'));
    expect(api.callsTo(query({ sortBy: 'winRate', sortOrder: 'desc', page: 1, limit: 15 }))).toHaveLength(1);
  });

  it('searches by handle once typing pauses for 300 ms, from page 1', async () => {
    const { api } = await leaderboardPage();
    await rows();
    fireEvent.click(button(NEXT));
    await waitFor(() => expect(pageLabel()).toBe('Page 2 of 2'));
    const before = leaderboardCalls(api).length;

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const search = screen.getByRole('searchbox', { name: SEARCH_LABEL });
    for (const text of ['b', 'bu', 'bur', 'burn']) {
      fireEvent.change(search, { target: { value: text } });
      act(() => vi.advanceTimersByTime(200));
    }
    expect(leaderboardCalls(api)).toHaveLength(before);
    act(() => vi.advanceTimersByTime(99));
    expect(leaderboardCalls(api)).toHaveLength(before);
    act(() => vi.advanceTimersByTime(1));
    vi.useRealTimers();

    expect(
      leaderboardCalls(api)
        .slice(before)
        .map((call) => call.path),
    ).toEqual(['/leaderboard?search=burn&sortBy=rank&sortOrder=asc&page=1&limit=15']);
    expect(await handles()).toEqual(['acid_burn', 'burn_unit']);
    expect(pageLabel()).toBe('Page 1 of 1');
  });

  it('does not ask again for the same search, and asks at once on Enter', async () => {
    const { api } = await leaderboardPage();
    await rows();
    const search = screen.getByRole('searchbox', { name: SEARCH_LABEL });
    fireEvent.change(search, { target: { value: 'joey' } });
    fireEvent.keyDown(search, { key: 'Enter' });
    expect(await handles()).toEqual(['joey']);
    fireEvent.change(search, { target: { value: 'joey ' } });
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(leaderboardCalls(api).map((call) => call.path)).toEqual([
      firstPage.slice('GET '.length),
      '/leaderboard?search=joey&sortBy=rank&sortOrder=asc&page=1&limit=15',
    ]);
  });

  it("pages with Previous and Next: 'Page X of Y', each disabled at its end and both while loading", async () => {
    const second = deferred<FakeReply>();
    const { api } = await leaderboardPage({
      [query({ sortBy: 'rank', sortOrder: 'asc', page: 2, limit: 15 })]: () => second.promise,
    });
    await rows();
    expect(pageLabel()).toBe('Page 1 of 2');
    expect(button(PREVIOUS).disabled).toBe(true);
    expect(button(NEXT).disabled).toBe(false);

    fireEvent.click(button(NEXT));
    await waitFor(() => expect(pageLabel()).toBe('Page 2 of 2'));
    expect(button(PREVIOUS).disabled).toBe(true);
    expect(button(NEXT).disabled).toBe(true);
    second.resolve(board(operators)(api.calls.at(-1)!));
    expect(await handles()).toEqual(HANDLES.slice(15));
    expect(button(PREVIOUS).disabled).toBe(false);
    expect(button(NEXT).disabled).toBe(true);

    fireEvent.click(button(PREVIOUS));
    expect(await handles()).toEqual(HANDLES.slice(0, 15));
    expect(pageLabel()).toBe('Page 1 of 2');
    expect(api.callsTo(firstPage)).toHaveLength(2);
  });

  it("says 'No operators found.' and 'Page 1 of 1' when nobody matches", async () => {
    await leaderboardPage({ 'GET /leaderboard': reply(200, { data: [], total: 0 }) });
    expect(await screen.findByText(NO_OPERATORS)).toBeTruthy();
    expect(pageLabel()).toBe('Page 1 of 1');
    expect(button(PREVIOUS).disabled).toBe(true);
    expect(button(NEXT).disabled).toBe(true);
  });

  it('shows skeleton rows while a page loads', async () => {
    const answer = deferred<FakeReply>();
    await leaderboardPage({ [firstPage]: () => answer.promise });
    const table = screen.getByRole('table', { name: LEADERBOARD_TABLE });
    await waitFor(() => expect(within(table).getAllByTestId('leaderboard-skeleton')).toHaveLength(15));
    expect(screen.getByRole('status', { name: LOADING_LEADERBOARD })).toBeTruthy();
    expect(pageLabel()).toBe('Page 1 of 1');
    answer.resolve(reply(200, { data: operators.slice(0, 15), total: 20 }));
    expect(await rows()).toHaveLength(15);
    expect(screen.queryByRole('status', { name: LOADING_LEADERBOARD })).toBeNull();
  });

  it('drops an answer overtaken by a newer request', async () => {
    const slow = deferred<FakeReply>();
    const { api } = await leaderboardPage({ [firstPage]: () => slow.promise });
    await waitFor(() => expect(api.callsTo(firstPage)).toHaveLength(1));
    fireEvent.click(within(header('MMR')).getByRole('button'));
    fireEvent.click(within(header('MMR')).getByRole('button'));
    expect((await handles())[0]).toBe('plague_doctor');
    slow.resolve(reply(200, { data: operators.slice(0, 15), total: 20 }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await handles())[0]).toBe('plague_doctor');
    expect(header('MMR').getAttribute('aria-sort')).toBe('ascending');
  });

  it("toasts 'Failed to load leaderboard.' and offers a retry", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { api } = await leaderboardPage({ [firstPage]: fail(500, 'Database unavailable') });
    expect(await screen.findByText(LEADERBOARD_LOAD_FAILED)).toBeTruthy();
    expect(screen.getByText(LEADERBOARD_UNAVAILABLE)).toBeTruthy();
    expect(screen.queryByText(NO_OPERATORS)).toBeNull();
    api.on(firstPage, board(operators));
    fireEvent.click(button(RETRY));
    expect(await rows()).toHaveLength(15);
    expect(screen.queryByText(LEADERBOARD_UNAVAILABLE)).toBeNull();
  });

  it('logs LEADERBOARD_VIEW once per visit', async () => {
    const { api, router } = await leaderboardPage({ 'GET /attack/history/all?limit=3': reply(200, []) });
    await rows();
    fireEvent.click(within(header('MMR')).getByRole('button'));
    fireEvent.click(button(NEXT));
    await rows();
    expect(api.callsTo(viewRoute).map((call) => call.body)).toEqual([{ activityType: 'LEADERBOARD_VIEW' }]);

    await act(() => router.navigate('/dashboard'));
    await act(() => router.navigate('/leaderboard'));
    await screen.findByRole('heading', { level: 1, name: LEADERBOARD_TITLE });
    await waitFor(() => expect(api.callsTo(viewRoute)).toHaveLength(2));
    // A new visit starts over: page 1 by rank.
    await waitFor(() => expect(api.callsTo(firstPage)).toHaveLength(2));
    expect(header('Rank').getAttribute('aria-sort')).toBe('ascending');
  });

  it('only logs a failure to record the view', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { api } = await leaderboardPage({ [viewRoute]: fail(500, 'Boom') });
    expect(await rows()).toHaveLength(15);
    await waitFor(() => expect(api.callsTo(viewRoute)).toHaveLength(1));
    await waitFor(() => expect(warn).toHaveBeenCalled());
    expect(screen.queryByText(LEADERBOARD_LOAD_FAILED)).toBeNull();
  });

  it("counts React's development double mount as one view", async () => {
    const api = fakeApi({ 'GET /leaderboard': board(operators), [viewRoute]: reply(204) });
    const store = new RootStore({ socketFactory: fakeSockets().factory, locks: null });
    store.auth.setAccessToken('token-1');
    try {
      store.leaderboard.enter();
      store.leaderboard.leave();
      store.leaderboard.enter();
      await waitFor(() => expect(store.leaderboard.status).toBe('ready'));
      expect(api.callsTo(viewRoute)).toHaveLength(1);
      expect(leaderboardCalls(api)).toHaveLength(1);
    } finally {
      store.dispose();
    }
  });
});
