import { GRID_NAMESPACE } from '@exploit-grid/api/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../notifications/toast.ts';
import {
  BALANCE_TITLE,
  KEEP_OFFLINE_TIP,
  REDEEM_FAILED,
  REDEEM_NOW,
  REDEEM_TITLE,
  REDEEMING,
  SINGLE_USE,
  TOKEN_LABEL,
  TOKEN_PLACEHOLDER,
} from '../strings/redeem.ts';
import { deferred, fail, reply, testUser, type FakeReply } from '../testing/fakeApi.ts';
import { renderSignedIn } from '../test-utils.tsx';

// Each test renders the whole signed-in shell and a lazily loaded page: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 20_000 });

type Routes = Parameters<typeof renderSignedIn>[1];

async function redeemPage(routes: Routes = {}) {
  const rendered = renderSignedIn('/redeem', routes);
  await screen.findByRole('heading', { level: 1, name: REDEEM_TITLE });
  return rendered;
}

const field = () => screen.getByRole('textbox', { name: TOKEN_LABEL }) as HTMLInputElement;
const redeemButton = () =>
  screen.getByRole('button', { name: new RegExp(`^(${REDEEM_NOW}|${REDEEMING})$`) }) as HTMLButtonElement;
const type = (value: string) => fireEvent.change(field(), { target: { value } });
const balance = () => screen.getByRole('region', { name: BALANCE_TITLE });

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

describe('Redeem Gift /redeem', () => {
  it('shows the Gift Token field, Redeem Now disabled while empty, Single Use, the balance and the tip', async () => {
    await redeemPage();
    expect(field().placeholder).toBe(TOKEN_PLACEHOLDER);
    expect(redeemButton().textContent).toBe(REDEEM_NOW);
    expect(redeemButton().disabled).toBe(true);
    expect(screen.getByText(SINGLE_USE)).toBeTruthy();
    expect(screen.getByText(KEEP_OFFLINE_TIP)).toBeTruthy();
    expect(within(balance()).getByTestId('balance-credits').textContent).toBe('12.50');
    expect(within(balance()).getByTestId('balance-gift').textContent).toBe('3.00');
    await waitFor(() => expect(document.title).toBe('Redeem Gift | Exploit Grid'));
  });

  it('shows 0.00 for balances the user does not have', async () => {
    await redeemPage({
      'GET /users/me': reply(200, { ...testUser, credits: 0, freeCredits: 0 }),
    });
    expect(within(balance()).getByTestId('balance-credits').textContent).toBe('0.00');
    expect(within(balance()).getByTestId('balance-gift').textContent).toBe('0.00');
  });

  it('does nothing for a token of spaces, even submitted with Enter', async () => {
    const { api } = await redeemPage();
    type('    ');
    expect(redeemButton().disabled).toBe(true);
    fireEvent.submit(field().closest('form')!);
    await act(async () => undefined);
    expect(api.callsTo('POST /gifts/redeem')).toHaveLength(0);
  });

  it("redeems: 'Redeeming…' while busy, then 'Redeemed {n} credits', the field cleared and the user reloaded", async () => {
    const answer = deferred<FakeReply>();
    const success = vi.spyOn(toast, 'success');
    let loads = 0;
    const { api } = await redeemPage({
      'POST /gifts/redeem': () => answer.promise,
      'GET /users/me': () => reply(200, { ...testUser, freeCredits: ++loads === 1 ? 3 : 503 }),
    });
    type('  abcd-efgh-jkmn ');
    fireEvent.click(redeemButton());
    expect(redeemButton().textContent).toBe(REDEEMING);
    expect(redeemButton().disabled).toBe(true);
    expect(field().disabled).toBe(true);
    fireEvent.submit(field().closest('form')!);
    answer.resolve(reply(200, { creditsGranted: 500 }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('Redeemed 500.00 credits'));
    expect(api.callsTo('POST /gifts/redeem').map((call) => call.body)).toEqual([{ token: 'ABCD-EFGH-JKMN' }]);
    await waitFor(() => expect(within(balance()).getByTestId('balance-gift').textContent).toBe('503.00'));
    expect(api.callsTo('GET /users/me')).toHaveLength(2);
    expect(field().value).toBe('');
    expect(redeemButton().textContent).toBe(REDEEM_NOW);
    // The toast, once the toaster's code has loaded (it loads with the first toast).
    expect(await screen.findByText('Redeemed 500.00 credits')).toBeTruthy();
  });

  it("says the server's message when the token is refused, and keeps it in the field", async () => {
    const error = vi.spyOn(toast, 'error');
    await redeemPage({ 'POST /gifts/redeem': fail(400, 'Invalid or already redeemed token') });
    type('ABCD-EFGH-JKMN');
    fireEvent.click(redeemButton());
    await waitFor(() => expect(error).toHaveBeenCalledWith('Invalid or already redeemed token'));
    expect(field().value).toBe('ABCD-EFGH-JKMN');
    expect(redeemButton().disabled).toBe(false);
  });

  it("says 'Failed to redeem token' when the server gives no message", async () => {
    const error = vi.spyOn(toast, 'error');
    await redeemPage({ 'POST /gifts/redeem': reply(503) });
    type('ABCD-EFGH-JKMN');
    fireEvent.click(redeemButton());
    await waitFor(() => expect(error).toHaveBeenCalledWith(REDEEM_FAILED));
  });

  it('follows the balance the grid pushes', async () => {
    const { sockets } = await redeemPage();
    const [grid] = sockets.open(GRID_NAMESPACE);
    act(() => grid!.receive('balance', { credits: 12.5, freeCredits: 103 }));
    expect(within(balance()).getByTestId('balance-gift').textContent).toBe('103.00');
  });

  it('is laid out edge to edge by the shell: the page pads itself', async () => {
    await redeemPage();
    expect(getComputedStyle(screen.getByTestId('app-content')).paddingLeft).toBe('0px');
  });
});
