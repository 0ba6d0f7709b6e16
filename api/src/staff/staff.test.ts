// First: sets up reflect-metadata and the crypto provider @peculiar/x509 needs.
import '@exploit-grid/operator/pki';
import { expect } from 'chai';
import { io as connect, type Socket } from 'socket.io-client';
import {
  ACCOUNT_BANNED,
  BOX_MESSAGES,
  GRID_NAMESPACE,
  VPN_STATUS_NAMESPACE,
  type Box,
  type VpnConfig,
} from '../contracts/index.ts';
import type { HttpError } from '../http/errors.ts';
import type { TestAccount } from '../testing/accounts.ts';
import { startBoxPlatform, waitFor, type BoxTestPlatform } from '../testing/boxes.ts';
import { runStaff } from '../testing/staff.ts';
import { STAFF_COMMANDS } from './commands/index.ts';

describe('the staff CLI: bans', function () {
  let t: BoxTestPlatform;
  const open: Socket[] = [];

  before(async () => {
    // The sockets' re-check is left at its half minute: a ban must cut them at once, not at the next check.
    t = await startBoxPlatform({ orchestrator: { boot: 'instant' } });
  });
  afterEach(() => {
    for (const socket of open.splice(0)) socket.close();
  });
  after(() => t?.close());

  /** Runs the CLI as staff would (a process of its own, on the platform's database). */
  const staff = (...args: string[]) => runStaff(t.platform.databaseUrl, 'alice-staff', ...args);

  async function sockets(account: TestAccount): Promise<Socket[]> {
    const opened = await Promise.all(
      [GRID_NAMESPACE, VPN_STATUS_NAMESPACE].map(
        (namespace) =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect(`${t.platform.baseUrl}${namespace}`, {
              transports: ['websocket'],
              auth: { token: account.token },
              query: { userId: account.id },
              reconnection: false,
            });
            socket.once('connect', () => resolve(socket));
            socket.once('connect_error', reject);
          }),
      ),
    );
    open.push(...opened);
    return opened;
  }

  const login = (account: TestAccount) =>
    t.call<{ message?: string; access_token?: string }>('POST', '/auth/login', {
      body: { email: account.email, password: account.password },
    });

  /** A player with a running box, a VPN certificate and a live tunnel. */
  async function playing(): Promise<{ account: TestAccount; box: Box }> {
    const account = await t.account();
    const created = await t.call<Box>('POST', '/boxes', { token: account.token, body: {} });
    expect(created.status).to.equal(201);
    const on = await t.call<Box>('POST', `/boxes/${created.body.hostname}/power`, {
      token: account.token,
      body: { on: true },
    });
    expect(on.status).to.equal(200);
    const config = await t.call<VpnConfig>('GET', `/user-vpn/${account.id}/UDP`, { token: account.token });
    expect(config.status).to.equal(200);
    expect(await t.orchestrator.connectVpn(account.id)).to.not.equal(null);
    await waitFor(
      () => t.call<Box>('GET', '/boxes/my', { token: account.token }),
      (a) => a.body.status === 'RUNNING',
      { what: 'the box running' },
    );
    return { account, box: created.body };
  }

  it('ban ends sessions, sockets and live tunnels at once, stops the box and refuses the player', async () => {
    const { account, box } = await playing();
    const bystander = await playing();
    const cut = Promise.all(
      (await sockets(account)).map((s) => new Promise<string>((resolve) => s.once('disconnect', resolve))),
    );
    const tunnelDropped = new Promise<void>((resolve) =>
      t.orchestrator.events.on('vpnDisconnected', (s) => {
        if (s.userId === account.id) resolve();
      }),
    );

    const ban = await staff('ban', account.handle, '--reason', 'flooding the global chat');
    expect(ban.code, ban.stderr).to.equal(0);
    expect(ban.stdout).to.match(
      new RegExp(`^Banned ${account.handle} .*1 session\\(s\\) ended, 1 VPN certificate`),
    );

    expect(await cut).to.deep.equal(['io server disconnect', 'io server disconnect']);
    await tunnelDropped;
    expect(t.orchestrator.vpnSessions().map((s) => s.userId)).to.deep.equal([bystander.account.id]);
    expect(t.orchestrator.revoked.map((r) => r.userId)).to.deep.equal([account.id]);
    expect(await t.orchestrator.authorize(account.id)).to.equal(false);
    expect(await t.orchestrator.authorize(bystander.account.id)).to.equal(true);
    await waitFor(
      () => t.orchestrator.applied.filter((spec) => spec.id === box.id).at(-1)?.power,
      (power) => power === false,
      { what: 'the box told to power off' },
    );

    // Its sessions ended; signed in again, the player sees the permanent VPN revocation (My Box's notice).
    expect((await t.call('GET', '/users/me', { token: account.token })).status).to.equal(401);
    const again = await login(account);
    expect(again.status).to.equal(200);
    const token = again.body.access_token!;
    const clients = await t.call<{ message: string }>('GET', '/user-vpn/my-clients', { token });
    expect(clients.status).to.equal(403);
    expect(clients.body.message).to.equal(BOX_MESSAGES.vpnRevoked);
    // Reading is all it may do: no change, and no Grid (chat, presence, challenges).
    const mutation = await t.call<{ message: string }>('POST', '/boxes', { token, body: {} });
    expect(mutation.status).to.equal(403);
    expect(mutation.body.message).to.equal(ACCOUNT_BANNED);
    const refusedGrid = await sockets({ ...account, token }).then(
      () => null,
      (err: Error) => err,
    );
    expect(refusedGrid?.message).to.equal(ACCOUNT_BANNED);
    const powerOn = await t.platform.boxes.power(account.id, box.hostname, true).catch((e: HttpError) => e);
    expect((powerOn as HttpError).statusCode).to.equal(403);
    const create = await t.platform.boxes.create(account.id, {}).catch((e: HttpError) => e);
    expect((create as HttpError).message).to.equal(ACCOUNT_BANNED);
    expect((await t.call('GET', '/users/me', { token: bystander.account.token })).status).to.equal(200);

    const log = await staff('log', account.email);
    expect(log.code, log.stderr).to.equal(0);
    expect(log.stdout).to.match(
      new RegExp(`BAN +${account.handle} +by alice-staff: flooding the global chat`),
    );
  });

  it('unban lets the player sign in again, with a new VPN certificate; both actions are logged', async () => {
    const { account } = await playing();
    const before = await t.db.query<{ serial_number: string }>(
      'select serial_number from vpn_identities where user_id = $1',
      [account.id],
    );
    expect((await staff('ban', account.email, '--reason', 'testing')).code).to.equal(0);
    const unban = await staff('unban', account.handle.toUpperCase(), '--reason', 'appeal accepted');
    expect(unban.code, unban.stderr).to.equal(0);
    expect(unban.stdout).to.match(/^Unbanned /);

    const again = await login(account);
    expect(again.status).to.equal(200);
    expect(await t.orchestrator.authorize(account.id)).to.equal(true);
    const config = await t.call<VpnConfig>('GET', `/user-vpn/${account.id}/UDP`, {
      token: again.body.access_token,
    });
    expect(config.status).to.equal(200);
    const after = await t.db.query<{ serial_number: string }>(
      'select serial_number from vpn_identities where user_id = $1',
      [account.id],
    );
    expect(after.rows[0]!.serial_number).to.not.equal(before.rows[0]!.serial_number);
    // The old certificate stays on the revocation list.
    expect(t.orchestrator.revoked.map((r) => r.serialNumber)).to.include(before.rows[0]!.serial_number);

    const actions = await t.db.query<{ action: string; actor: string; reason: string }>(
      'select action, actor, reason from staff_actions where user_id = $1 order by id',
      [account.id],
    );
    expect(actions.rows).to.deep.equal([
      { action: 'BAN', actor: 'alice-staff', reason: 'testing' },
      { action: 'UNBAN', actor: 'alice-staff', reason: 'appeal accepted' },
    ]);
  });

  it('still hears of bans after the connection it listens on was cut', async () => {
    const { account } = await playing();
    const listening = () =>
      t.db.query<{ pid: number }>(
        "select pid from pg_stat_activity where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()",
      );
    const [before] = (await listening()).rows;
    expect(before, 'a LISTEN connection').to.not.equal(undefined);
    await t.db.query('select pg_terminate_backend($1)', [before!.pid]);
    await waitFor(
      async () => (await listening()).rows.map((r) => r.pid),
      (pids) => pids.length === 1 && pids[0] !== before!.pid,
      { what: 'the listener connected again' },
    );
    const tunnelDropped = new Promise<void>((resolve) =>
      t.orchestrator.events.on('vpnDisconnected', (s) => {
        if (s.userId === account.id) resolve();
      }),
    );
    expect((await staff('ban', account.handle, '--reason', 'after a reconnect')).code).to.equal(0);
    await tunnelDropped;
  });

  it('refuses a missing reason, an unknown account and an unknown command, changing nothing', async () => {
    const account = await t.account();
    const count = async () =>
      Number((await t.db.query<{ n: string }>('select count(*) as n from staff_actions')).rows[0]!.n);
    const before = await count();
    const noReason = await staff('ban', account.handle);
    expect(noReason.code).to.equal(1);
    expect(noReason.stderr.trim()).to.equal('ban needs --reason <text>.');
    const blank = await staff('ban', account.handle, '--reason', '  ');
    expect(blank.stderr.trim()).to.equal('--reason must not be empty.');
    const unknown = await staff('ban', 'nobody_here', '--reason', 'x');
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr.trim()).to.equal('No account with the handle or email nobody_here.');
    const command = await staff('delete', account.handle);
    expect(command.code).to.equal(1);
    // Every group once, in the order --help lists them (each feature adds its own).
    const groups = [...new Set(STAFF_COMMANDS.map((c) => c.name.split(' ')[0]))];
    expect(groups.slice(0, 4)).to.deep.equal(['ban', 'unban', 'log', 'gifts']);
    expect(command.stderr.trim()).to.equal(
      `Unknown command delete. Commands: ${groups.join(', ')} (--help).`,
    );
    expect(await count()).to.equal(before);
    expect((await login(account)).status).to.equal(200);
  });
});
