import http from 'node:http';
import FakeTimers from '@sinonjs/fake-timers';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { testLogger } from '../../testing/logger.ts';
import {
  createHooksApp,
  type FlowsBody,
  type HookBody,
  type HookHandlers,
  type SessionsBody,
} from './hooks-app.ts';

const TOKEN = 'hook-token-from-the-pools-PKI-Secret';
const PLAYER = '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11';
const CONNECT = { protocol: 'udp', commonName: PLAYER, vpnAddress: '10.8.0.6', server: 'arena-udp-0' };

/** The VPN servers' hooks as the OpenVPN pods call them; the handlers record what reached them. */
describe('the VPN servers’ hooks (kubernetes runtime)', () => {
  let server: http.Server;
  let base: string;
  let token: string | null;
  let allow: boolean;
  let calls: {
    which: 'connect' | 'disconnect' | 'sessions' | 'flows';
    body: HookBody | SessionsBody | FlowsBody;
  }[];

  const start = async (options?: { perSecond?: number }) => {
    const handlers: HookHandlers = {
      token: () => token,
      connect: async (body) => {
        calls.push({ which: 'connect', body });
        return allow;
      },
      disconnect: async (body) => {
        calls.push({ which: 'disconnect', body });
      },
      sessions: async (body) => {
        calls.push({ which: 'sessions', body });
      },
      flows: (body) => {
        calls.push({ which: 'flows', body });
      },
      // The checks' routes: checks.test.ts.
      checks: async () => [],
      checkResult: () => false,
    };
    server = http.createServer(createHooksApp(handlers, testLogger, options));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const post = async (
    which: string,
    body: unknown,
    options: { token?: string | null; raw?: string } = {},
  ) => {
    const bearer = options.token === undefined ? TOKEN : options.token;
    const response = await fetch(`${base}/internal/vpn/${which}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
      },
      body: options.raw ?? JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
  };

  beforeEach(async () => {
    token = TOKEN;
    allow = true;
    calls = [];
    await start();
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('admits a client the platform allows (200) and refuses one it does not (403)', async () => {
    expect(await post('connect', CONNECT)).to.deep.equal({ status: 200, body: { allow: true } });
    allow = false;
    expect(await post('connect', CONNECT)).to.deep.equal({ status: 403, body: { allow: false } });
    expect(calls.map((c) => c.body)).to.deep.equal([CONNECT, CONNECT]);
  });

  it('passes on where the client connects from, when the server tells it', async () => {
    const withAddress = { ...CONNECT, realAddress: '198.51.100.7' };
    expect(await post('connect', withAddress)).to.deep.equal({ status: 200, body: { allow: true } });
    expect(calls.map((c) => c.body)).to.deep.equal([withAddress]);
  });

  it('takes a disconnect with 204', async () => {
    expect(await post('disconnect', CONNECT)).to.deep.equal({ status: 204, body: null });
    expect(calls).to.deep.equal([{ which: 'disconnect', body: CONNECT }]);
  });

  it('answers 401 without the pool’s hook token, with another one, or while the token is unknown, and calls nothing', async () => {
    expect((await post('connect', CONNECT, { token: null })).status).to.equal(401);
    expect((await post('connect', CONNECT, { token: `${TOKEN}x` })).status).to.equal(401);
    expect((await post('disconnect', CONNECT, { token: TOKEN.slice(1) })).status).to.equal(401);
    token = null; // the PKI Secret is not read yet
    const refused = await post('connect', CONNECT);
    expect(refused).to.deep.include({ status: 401 });
    expect(refused.body).to.include({ message: 'Unknown hook token.' });
    expect(calls).to.deep.equal([]);
  });

  it('refuses a body that is not what the hooks send with 400, and calls nothing', async () => {
    for (const body of [
      { ...CONNECT, protocol: 'icmp' },
      { ...CONNECT, commonName: 'neo' }, // not a user id
      { ...CONNECT, vpnAddress: '10.8.0.300' },
      { ...CONNECT, server: '' },
      { ...CONNECT, realAddress: 'x'.repeat(65) },
      { ...CONNECT, extra: true },
      { protocol: 'udp' },
    ]) {
      const answer = await post('connect', body);
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.body).to.include({ message: 'Invalid hook body.' });
      expect((await post('disconnect', body)).status).to.equal(400);
    }
    expect((await post('connect', null, { raw: '{"protocol":' })).status).to.equal(400);
    expect(
      (await post('connect', null, { raw: JSON.stringify({ ...CONNECT, pad: 'x'.repeat(4096) }) })).status,
    ).to.equal(413);
    expect(calls).to.deep.equal([]);
  });

  it('answers 404 for other paths and methods', async () => {
    expect((await post('renegotiate', CONNECT)).status).to.equal(404);
    expect(
      (await fetch(`${base}/internal/vpn/connect`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).to.equal(404);
  });

  it('holds the servers together to a rate (429 with Retry-After); calls without the token use none of it', async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await start({ perSecond: 5 });
    // The limiter's clock stands still until the test moves it: the burst is in one second however slow.
    const clock = FakeTimers.install({ toFake: ['Date'] });
    try {
      // A box flooding the port (the routers forward its agent's port 80 here) gets 401s only.
      const flood = await Promise.all(
        Array.from({ length: 20 }, () => post('connect', CONNECT, { token: 'guess' })),
      );
      expect(new Set(flood.map((f) => f.status))).to.deep.equal(new Set([401]));
      const statuses = await Promise.all(Array.from({ length: 8 }, () => post('connect', CONNECT)));
      expect(statuses.filter((s) => s.status === 200)).to.have.length(5);
      expect(statuses.filter((s) => s.status === 429)).to.have.length(3);
      expect(calls).to.have.length(5);
      const limited = await fetch(`${base}/internal/vpn/connect`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('retry-after')).to.equal('1');
      clock.tick(999);
      expect((await post('connect', CONNECT)).status).to.equal(429);
      clock.tick(1);
      expect((await post('connect', CONNECT)).status).to.equal(200);
    } finally {
      clock.uninstall();
    }
  });

  it('takes a server’s session list, validated, with the token', async () => {
    const report = {
      protocol: 'udp',
      server: 'arena-udp-0',
      sessions: [{ commonName: PLAYER, vpnAddress: '10.8.0.6' }],
    };
    expect((await post('sessions', report, { token: 'wrong' })).status).to.equal(401);
    expect(
      (await post('sessions', { ...report, sessions: [{ commonName: 'x', vpnAddress: '10.8.0.6' }] })).status,
    ).to.equal(400);
    expect((await post('sessions', { ...report, extra: 1 })).status).to.equal(400);
    expect(calls).to.deep.equal([]);
    expect((await post('sessions', report)).status).to.equal(204);
    expect(calls).to.deep.equal([{ which: 'sessions', body: report }]);
    // A full server's list (thousands of sessions) fits.
    const many = Array.from({ length: 5000 }, (_, i) => ({
      commonName: PLAYER,
      vpnAddress: `10.8.${Math.floor(i / 250)}.${(i % 250) + 2}`,
    }));
    expect((await post('sessions', { ...report, sessions: many })).status).to.equal(204);
  });

  it('takes a server’s witnessed flows, validated, with the token', async () => {
    const flow = {
      client: '10.8.0.6',
      clientPort: 51234,
      box: '172.30.1.5',
      boxPort: 22,
      openedSecondsAgo: 3,
      idleSeconds: 0,
    };
    const report = {
      server: 'arena-udp-0',
      router: '172.30.0.10',
      flows: [flow, { ...flow, clientPort: 51235, idleSeconds: null }],
    };
    expect((await post('flows', report, { token: 'wrong' })).status).to.equal(401);
    for (const bad of [
      { ...report, router: 'router' },
      { ...report, flows: [{ ...flow, clientPort: 0 }] },
      { ...report, flows: [{ ...flow, box: '172.30.1' }] },
      { ...report, flows: [{ ...flow, openedSecondsAgo: -1 }] },
      { ...report, flows: [{ ...flow, idleSeconds: 'now' }] },
      { ...report, extra: 1 },
    ])
      expect((await post('flows', bad)).status, JSON.stringify(bad)).to.equal(400);
    expect(calls).to.deep.equal([]);
    expect((await post('flows', report)).status).to.equal(204);
    expect(calls).to.deep.equal([{ which: 'flows', body: report }]);
    // A router's whole set (65,536 flows) fits.
    const full = Array.from({ length: 65_536 }, (_, i) => ({ ...flow, clientPort: (i % 60_000) + 1 }));
    expect((await post('flows', { ...report, flows: full })).status).to.equal(204);
    expect((await post('flows', { ...report, flows: [...full, flow] })).status).to.equal(400);
  });
});
