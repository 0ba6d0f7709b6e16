import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createVerifiedAccount } from '../support/accounts.ts';
import { ClientNamespace, VpnClient, requireBoxHost } from '../support/netns.ts';
import {
  localRuntimeEnv,
  repoRoot,
  startPlatform,
  takeDownBoxes,
  type RunningPlatform,
} from '../support/platform.ts';
import { until } from '../support/until.ts';

/**
 * A staff ban on the real local runtime: the staff CLI (a process of its own, finding the platform's
 * embedded PostgreSQL through DATA_DIR) bans a player whose stock OpenVPN client is connected; the running
 * API hears of it through the database and has OpenVPN drop the tunnel (management `client-kill`), and the
 * revoked certificate cannot connect again.
 */
describe('staff ban on the real runtime', function () {
  this.timeout(300_000);
  const id = randomBytes(2).toString('hex');
  const prefix = `egs${id.slice(0, 3)}`;
  const octet = 100 + (parseInt(id, 16) % 100);
  const env = localRuntimeEnv({ prefix, net3: `172.30.${octet}`, octet });
  let platform: RunningPlatform | undefined;
  let dataDir: string | undefined;
  let files: string | undefined;
  const player = new ClientNamespace(`${prefix}-pl`, `${prefix}-cp`, `172.30.${octet}`, 4);
  let namespaceMade = false;

  before(async function () {
    await requireBoxHost(this, 'the ban of a live tunnel');
    files = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-staff-files-'));
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-staff-'));
    platform = await startPlatform({ env, dataDir, timeoutMs: 120_000 });
    await player.create();
    namespaceMade = true;
  });

  after(async function () {
    if (namespaceMade) await player.destroy();
    await platform?.stop();
    if (dataDir && platform) await takeDownBoxes(env, dataDir);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (files) await rm(files, { recursive: true, force: true });
  });

  it("drops a banned player's live tunnel at once, and the certificate cannot connect again", async () => {
    const { url } = platform!;
    const account = await createVerifiedAccount(platform!, {
      handle: 'mallory',
      email: 'mallory@example.test',
      password: 'correct horse battery',
    });
    const auth = { authorization: `Bearer ${account.accessToken}` };
    // A runtime still starting (its VPN servers) answers 503 for a moment.
    const config = await until('the VPN config', async () => {
      const res = await fetch(`${url}/api/v1/user-vpn/${account.id}/UDP`, { headers: auth });
      return res.ok ? ((await res.json()) as { ovpn_config: string }) : null;
    });
    const file = path.join(files!, 'udp_mallory.ovpn');
    await writeFile(file, config.ovpn_config);
    const tunnel = await player.connectVpn(file);
    await until('the VPN session known to the API', async () => {
      const clients = (await (
        await fetch(`${url}/api/v1/user-vpn/my-clients`, { headers: auth })
      ).json()) as {
        isConnected: boolean;
      }[];
      return clients.some((c) => c.isConnected);
    });

    const started = Date.now();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(repoRoot, 'api/dist/staff.js'), 'ban', 'mallory', '--reason', 'end-to-end test'],
      { env: { ...process.env, ...env, DATA_DIR: dataDir!, STAFF_ACTOR: 'e2e' } },
    );
    const committed = Date.now();
    expect(stdout).to.match(/^Banned mallory .*1 VPN certificate\(s\) revoked/);
    // OpenVPN's `client-kill ... HALT` ends the session on the server and tells the client, which exits (after
    // its exit notification): no CRL check, no renegotiation needed.
    await until(
      'the halt from the server',
      async () => tunnel.log.includes('Halt command was pushed by server'),
      20_000,
      10,
    );
    const halted = Date.now();
    await tunnel.exited;
    // Reported, not asserted (no timing assertions): the figure the issue asks about.
    console.log(
      `      server dropped the tunnel ${halted - committed} ms after the ban was committed ` +
        `(${halted - started} ms after the CLI started; the client exited ${Date.now() - halted} ms later)`,
    );

    const login = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'mallory@example.test', password: 'correct horse battery' }),
    });
    // Signed in again, the player may read, and is told the VPN access is revoked for good (My Box's notice).
    expect(login.status).to.equal(200);
    const { access_token: token } = (await login.json()) as { access_token: string };
    const clients = await fetch(`${url}/api/v1/user-vpn/my-clients`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(clients.status).to.equal(403);
    expect(((await clients.json()) as { message: string }).message).to.equal('VPN access has been revoked');

    // The revoked certificate (on the CRL, and refused by the authorizer) does not get a tunnel again.
    const again = new VpnClient(player.name, file);
    try {
      const connected = await again.connected(15_000).then(
        () => true,
        () => false,
      );
      expect(connected, again.log).to.equal(false);
    } finally {
      await again.stop();
    }
  });
});
