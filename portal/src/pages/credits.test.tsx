import { GRID_NAMESPACE } from '@exploit-grid/api/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '../components/history/format.ts';
import { toast } from '../notifications/toast.ts';
import { CREDIT_HISTORY, SIDEBAR_LABEL } from '../strings/appShell.ts';
import {
  BUY_CREDITS,
  CREDIT_HISTORY_TABLE,
  CREDIT_HISTORY_TITLE,
  HISTORY_LOAD_FAILED,
  HISTORY_UNAVAILABLE,
  NEXT,
  NO_MOVEMENTS,
  PREVIOUS,
  RETRY,
} from '../strings/credits.ts';
import { ledgerRows } from '../testing/commerce.ts';
import { fail, reply, type FakeRequest } from '../testing/fakeApi.ts';
import { locationOf, renderSignedIn } from '../test-utils.tsx';

// Each test renders the whole signed-in shell and a lazily loaded page: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 20_000 });

const ALL = ledgerRows(45);

/** GET /credits/ledger over `rows`, newest first. */
const ledger =
  (rows = ALL) =>
  (request: FakeRequest) => {
    const params = new URL(request.path, 'http://api.test').searchParams;
    const page = Number(params.get('page'));
    const limit = Number(params.get('limit'));
    return reply(200, { data: rows.slice((page - 1) * limit, page * limit), total: rows.length });
  };

async function creditsPage(routes: Parameters<typeof renderSignedIn>[1] = {}) {
  const rendered = renderSignedIn('/credits', { 'GET /credits/ledger': ledger(), ...routes });
  await screen.findByRole('heading', { level: 1, name: CREDIT_HISTORY_TITLE });
  return rendered;
}

async function bodyRows() {
  const table = await screen.findByRole('table', { name: CREDIT_HISTORY_TABLE });
  await waitFor(() => expect(within(table).queryAllByTestId('ledger-skeleton')).toHaveLength(0));
  return within(table).getAllByRole('row').slice(1);
}

const ledgerCalls = (api: { calls: FakeRequest[] }) =>
  api.calls.filter((call) => call.path.startsWith('/credits/ledger')).map((call) => call.path);
const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

describe('Credit history /credits', () => {
  it('lists the newest 20 movements: date, what, change and balance after', async () => {
    const { api } = await creditsPage();
    const rows = await bodyRows();
    expect(rows).toHaveLength(20);
    expect(ledgerCalls(api)).toEqual(['/credits/ledger?page=1&limit=20']);
    const cells = within(rows[0]!)
      .getAllByRole('cell')
      .map((cell) => cell.textContent);
    expect(cells).toEqual([
      formatDateTime(ALL[0]!.createdAt),
      'Box time (1 min)',
      '−0.67 Gift',
      '0.00 Credits99.33 Gift',
    ]);
    expect(screen.getByTestId('page-label').textContent).toBe('Page 1 of 3');
    expect(button(PREVIOUS).disabled).toBe(true);
  });

  it('pages with Previous and Next', async () => {
    const { api } = await creditsPage();
    await bodyRows();
    fireEvent.click(button(NEXT));
    expect(within((await bodyRows())[0]!).getAllByRole('cell')[1]?.textContent).toBe('Box time (21 min)');
    fireEvent.click(button(NEXT));
    expect(await bodyRows()).toHaveLength(5);
    expect(screen.getByTestId('page-label').textContent).toBe('Page 3 of 3');
    expect(button(NEXT).disabled).toBe(true);
    fireEvent.click(button(PREVIOUS));
    await bodyRows();
    expect(ledgerCalls(api)).toEqual([
      '/credits/ledger?page=1&limit=20',
      '/credits/ledger?page=2&limit=20',
      '/credits/ledger?page=3&limit=20',
      '/credits/ledger?page=2&limit=20',
    ]);
  });

  it('shows both changes of a movement that touched Credits and Gift, signed', async () => {
    await creditsPage({
      'GET /credits/ledger': reply(200, {
        data: [
          {
            id: 'p1',
            createdAt: '2026-03-01T12:00:00.000Z',
            reason: 'PURCHASE',
            description: 'Purchase $20',
            creditsDelta: 2000,
            freeCreditsDelta: -3,
            credits: 2012.5,
            freeCredits: 0,
          },
        ],
        total: 1,
      }),
    });
    const [row] = await bodyRows();
    expect(within(row!).getAllByRole('cell')[2]?.textContent).toBe('+2000.00 Credits−3.00 Gift');
  });

  it('has an empty state that leads to buying credits', async () => {
    const { router } = await creditsPage({ 'GET /credits/ledger': reply(200, { data: [], total: 0 }) });
    expect(await screen.findByText(NO_MOVEMENTS)).toBeTruthy();
    expect(screen.getByTestId('page-label').textContent).toBe('Page 1 of 1');
    fireEvent.click(screen.getByRole('link', { name: BUY_CREDITS }));
    await waitFor(() => expect(locationOf(router)).toBe('/plans'));
  });

  it("toasts 'Failed to load credit history.' and offers a retry", async () => {
    const error = vi.spyOn(toast, 'error');
    const { api } = await creditsPage({ 'GET /credits/ledger': fail(500, 'boom') });
    expect(await screen.findByText(HISTORY_UNAVAILABLE)).toBeTruthy();
    expect(error).toHaveBeenCalledWith(HISTORY_LOAD_FAILED);
    api.on('GET /credits/ledger', ledger());
    fireEvent.click(button(RETRY));
    expect(await bodyRows()).toHaveLength(20);
  });

  it('reloads the first page when the grid reports a new balance', async () => {
    const { api, sockets } = await creditsPage();
    await bodyRows();
    const [grid] = sockets.open(GRID_NAMESPACE);
    act(() => grid!.receive('balance', { credits: 0, freeCredits: 98.5 }));
    await waitFor(() => expect(ledgerCalls(api)).toHaveLength(2));
  });

  it('lists the movements as blocks on a phone, where four columns do not fit', async () => {
    // Every media query matches: the page takes the phone's layout (jsdom has no matchMedia of its own).
    vi.stubGlobal('matchMedia', (query: string) => ({
      matches: true,
      media: query,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      addListener: () => undefined,
      removeListener: () => undefined,
    }));
    try {
      await creditsPage();
      const list = await screen.findByRole('list', { name: CREDIT_HISTORY_TABLE });
      const items = within(list).getAllByRole('listitem');
      expect(items).toHaveLength(20);
      expect(items[0]?.textContent).toBe(
        `Box time (1 min)−0.67 Gift${formatDateTime(ALL[0]!.createdAt)}0.00 Credits99.33 Gift`,
      );
      expect(screen.queryByRole('table')).toBeNull();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('is linked from the sidebar balances', async () => {
    const { router } = renderSignedIn('/dashboard', { 'GET /credits/ledger': ledger() });
    const sidebar = await screen.findByRole('navigation', { name: SIDEBAR_LABEL });
    fireEvent.click(within(sidebar).getByRole('link', { name: CREDIT_HISTORY }));
    await waitFor(() => expect(locationOf(router)).toBe('/credits'));
  });
});
