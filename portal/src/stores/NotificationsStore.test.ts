import { describe, expect, it, vi } from 'vitest';
import { SOUNDS } from '../strings/grid.ts';
import { acid, gridAttack, gridNotification as notification, me } from '../testing/grid.ts';
import { closeGridStoresAfterEach, enter, onGrid } from '../testing/gridStores.ts';
import { toast as toasts } from '../testing/toasts.ts';

vi.mock('../notifications/toast.ts', () => import('../testing/toasts.ts'));

closeGridStoresAfterEach();

// ---- notifications -------------------------------------------------------------------------

describe('notifications', () => {
  it("toasts an inbound attack as '{title}: {body}' with the under-attack sound", async () => {
    const { grid, playSound } = await onGrid();
    enter(grid);
    grid.receive(
      'notification',
      notification({ type: 'ATTACK_INBOUND', title: 'Inbound attack', body: 'acid_burn is on your box.' }),
    );
    expect(toasts.error).toHaveBeenCalledWith('Inbound attack: acid_burn is on your box.');
    expect(playSound.mock.calls).toEqual([[SOUNDS.underAttack]]);
  });

  it('plays the chat-request sound for a chat request, toasted away from the Grid (whose prompt shows it)', async () => {
    const { grid, playSound } = await onGrid();
    enter(grid);
    grid.receive(
      'notification',
      notification({ type: 'CHAT_REQUEST', title: 'Chat', body: 'joey wants to talk.' }),
    );
    expect(playSound.mock.calls).toEqual([[SOUNDS.chatRequest]]);
    expect(toasts.info.mock.calls).toEqual([['Chat: joey wants to talk.']]);

    window.history.pushState({}, '', '/attack');
    try {
      grid.receive(
        'notification',
        notification({ type: 'CHAT_REQUEST', title: 'Chat', body: 'acid_burn wants to talk.' }),
      );
    } finally {
      window.history.pushState({}, '', '/');
    }
    expect(playSound.mock.calls).toEqual([[SOUNDS.chatRequest], [SOUNDS.chatRequest]]);
    expect(toasts.info.mock.calls).toEqual([['Chat: joey wants to talk.']]);
  });

  it('shows the body of GENERIC, and of ERROR as an error', async () => {
    const { grid, playSound } = await onGrid();
    enter(grid);
    grid.receive('notification', notification({ type: 'GENERIC', title: 'News', body: 'Season 2 starts.' }));
    grid.receive('notification', notification({ type: 'ERROR', title: 'Oops', body: 'Your box crashed.' }));
    expect(toasts.show).toHaveBeenCalledWith('Season 2 starts.');
    expect(toasts.error).toHaveBeenCalledWith('Your box crashed.');
    expect(playSound).not.toHaveBeenCalled();
  });

  it('toasts the end of an attack unless the Grid’s overlay shows it', async () => {
    const { store, grid } = await onGrid();
    enter(grid);
    const fight = gridAttack(me, acid);
    grid.receive('attackStarted', fight);
    grid.receive('attackEnded', { attackId: fight.id, result: 'OWNED', winnerId: me.id, loserId: acid.id });
    const owned = notification({
      type: 'ATTACK_OWNED',
      title: 'System owned',
      body: 'acid_burn',
      attackId: fight.id,
    });
    // Not on /attack (the store's router is absent: the page is wherever the test left it).
    grid.receive('notification', owned);
    expect(toasts.info).toHaveBeenCalledWith('System owned: acid_burn');
    expect(store.grid.attackResult?.attackId).toBe(fight.id);
  });

  it('toasts a notification once however often it comes, and acknowledges the deliveries together', async () => {
    const { grid } = await onGrid();
    enter(grid);
    const once = notification({ type: 'GENERIC', body: 'Only once.' });
    const other = notification({ type: 'ERROR', body: 'Another.' });
    grid.receive('notification', once);
    grid.receive('notification', once);
    grid.receive('notification', other);
    expect(toasts.show.mock.calls).toEqual([['Only once.']]);
    expect(toasts.error.mock.calls).toEqual([['Another.']]);
    await vi.waitFor(() =>
      expect(grid.argsOf('notifications:ack')).toEqual([[{ ids: [once.id, other.id] }]]),
    );
  });

  it('acknowledges a returning player’s many notifications in events of at most 100', async () => {
    const { grid } = await onGrid();
    enter(grid);
    const many = Array.from({ length: 150 }, () => notification({ type: 'GENERIC' }));
    for (const n of many) grid.receive('notification', n);
    await vi.waitFor(() =>
      expect(grid.argsOf('notifications:ack')).toEqual([
        [{ ids: many.slice(0, 100).map((n) => n.id) }],
        [{ ids: many.slice(100).map((n) => n.id) }],
      ]),
    );
  });
});
