import FakeTimers, { type Clock } from '@sinonjs/fake-timers';
import { expect } from 'chai';
import { Geo } from './geo.ts';
import { Presence } from './presence.ts';

const alice = { id: '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11', handle: 'alice', mmr: 1000, country: null };

/** Presence on a fake clock: when a player goes offline, to the millisecond. */
describe('grid: presence on a fake clock', () => {
  let clock: Clock;
  let presence: Presence;
  let offline: { id: string; at: number }[];

  beforeEach(() => {
    clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    presence = new Presence({ geo: new Geo(), graceMs: 400 });
    offline = [];
    presence.events.on('playerOffline', (id) => offline.push({ id, at: Date.now() }));
  });
  afterEach(() => {
    presence.close();
    clock.uninstall();
  });

  it('keeps a player whose last socket closed online for the grace period, then takes them off', async () => {
    const start = Date.now();
    presence.connected(alice, null);
    presence.disconnected(alice.id);
    await clock.tickAsync(399);
    expect(offline).to.deep.equal([]);
    expect(presence.isOnline(alice.id)).to.equal(true);
    await clock.tickAsync(1);
    expect(offline).to.deep.equal([{ id: alice.id, at: start + 400 }]);
  });

  it('takes a player who logged out off at once when their last socket closes, without the grace period', () => {
    const start = Date.now();
    presence.connected(alice, null);
    presence.connected(alice, null);
    presence.loggedOut(alice.id);
    presence.disconnected(alice.id);
    expect(offline).to.deep.equal([]); // one socket still open
    presence.disconnected(alice.id);
    expect(offline).to.deep.equal([{ id: alice.id, at: start }]);
  });

  it('keeps a player who comes back within the grace period, with no news', async () => {
    presence.connected(alice, null);
    presence.disconnected(alice.id);
    await clock.tickAsync(300);
    presence.connected(alice, null);
    await clock.tickAsync(10_000);
    expect(offline).to.deep.equal([]);
  });
});
