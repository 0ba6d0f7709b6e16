import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { io as connect, type Socket } from 'socket.io-client';
import { SOCKET_RATE_LIMITED, VPN_STATUS_NAMESPACE, type Box } from '../contracts/index.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, type BoxTestPlatform } from '../testing/boxes.ts';

describe('per-user rate limits', function () {
  let t: BoxTestPlatform;

  before(async () => {
    t = await startBoxPlatform({
      orchestrator: { boot: 'instant' },
      throttleLimits: {
        // Five instead of 120 a minute: the same limiter, reached in a test.
        userCalls: { points: 5, durationSeconds: 60, blockSeconds: 0 },
        // The defaults.
        boxCooldown: { points: 1, durationSeconds: 15, blockSeconds: 0 },
        boxChanges: { points: 12, durationSeconds: 3600, blockSeconds: 0 },
      },
    });
  });
  after(() => t?.close());

  const call = (method: string, path: string, account: TestAccount, body?: unknown) =>
    fetch(`${t.platform.baseUrl}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${account.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('answers 429 with Retry-After past the limit of calls that change something, per user', async () => {
    const alice = await t.account();
    const bob = await t.account();
    for (let i = 0; i < 5; i++)
      expect((await call('DELETE', `/boxes/${randomUUID()}`, alice)).status).to.equal(404);
    const refused = await call('DELETE', `/boxes/${randomUUID()}`, alice);
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(((await refused.json()) as { message: string }).message).to.equal(
      'Too many requests. Try again later.',
    );
    // Reading is not limited, and another player is not touched.
    for (let i = 0; i < 8; i++) expect((await call('GET', '/boxes/my', alice)).status).to.equal(200);
    expect((await call('POST', '/boxes', bob, {})).status).to.equal(201);
  });

  it('keeps a cooldown between creating and deleting or resetting a box; a refused call changes nothing', async () => {
    const player = await t.account();
    const created = await call('POST', '/boxes', player, {});
    expect(created.status).to.equal(201);
    const box = (await created.json()) as Box;
    // A call that would fail anyway (a second box) does not spend the cooldown, and says why it fails.
    expect((await call('POST', '/boxes', player, {})).status).to.equal(409);
    const refused = await call('DELETE', `/boxes/${box.id}`, player);
    expect(refused.status).to.equal(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 15);
    expect(((await refused.json()) as { message: string }).message).to.match(
      /^A box can be created, deleted, reset, snapshotted or restored once every 15 seconds\. Try again in \d+ seconds?\.$/,
    );
    const mine = (await (await call('GET', '/boxes/my', player)).json()) as Box | null;
    expect(mine?.id).to.equal(box.id);
    // A reset prepares a new disk too: the same cooldown, and a refused reset keeps the loadout.
    const before = (await t.db.query('select loadout from boxes where id = $1', [box.id])).rows[0];
    const reset = await call('POST', `/boxes/${box.hostname}/reset`, player);
    expect(reset.status).to.equal(429);
    expect((await t.db.query('select loadout from boxes where id = $1', [box.id])).rows[0]).to.deep.equal(
      before,
    );
  });

  it('tells a /vpn-status client that asks too often to slow down', async () => {
    const player = await t.account();
    // With a box, each answered request ends with its boxUpdate: the test waits for them (work in flight).
    expect((await call('POST', '/boxes', player, {})).status).to.equal(201);
    const socket: Socket = connect(`${t.platform.baseUrl}${VPN_STATUS_NAMESPACE}`, {
      transports: ['websocket'],
      auth: { token: player.token },
      query: { userId: player.id },
      reconnection: false,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
      let answers = 0;
      socket.on('status', () => answers++);
      let updates = 0;
      const updated = new Promise<void>((resolve) =>
        socket.on('boxUpdate', () => {
          if (++updates === 10) resolve();
        }),
      );
      const error = new Promise<{ message: string }>((resolve) => socket.once('error', resolve));
      for (let i = 0; i < 11; i++) socket.emit('requestStatus');
      expect((await error).message).to.equal(SOCKET_RATE_LIMITED);
      await updated;
      // The ten before the refused one were answered.
      expect(answers).to.equal(10);
      expect(socket.connected).to.equal(true);
    } finally {
      socket.close();
    }
  });
});

describe('the hourly budget of box creations and deletions', function () {
  let t: BoxTestPlatform;

  before(async () => {
    t = await startBoxPlatform({
      orchestrator: { boot: 'instant' },
      // No cooldown, so the budget (two instead of twelve) is reached at once.
      throttleLimits: { boxChanges: { points: 2, durationSeconds: 3600, blockSeconds: 0 } },
    });
  });
  after(() => t?.close());

  it('refuses the next creation past the budget, saying when to try again', async () => {
    const player = await t.account();
    const created = await t.call<Box>('POST', '/boxes', { token: player.token, body: {} });
    expect(created.status).to.equal(201);
    expect((await t.call('DELETE', `/boxes/${created.body.id}`, { token: player.token })).status).to.equal(
      200,
    );
    const refused = await t.call<{ message: string }>('POST', '/boxes', { token: player.token, body: {} });
    expect(refused.status).to.equal(429);
    expect(refused.body.message).to.match(
      /^Too many box changes \(creations, deletions, resets, snapshots, restores\) in the last hour\. Try again in (\d+ seconds?|\d+ minutes)\.$/,
    );
    expect((await t.call('GET', '/boxes/my', { token: player.token })).body).to.equal(null);
  });
});
