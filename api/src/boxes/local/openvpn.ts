import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { OPENVPN_SERVER_TLS } from '@exploit-grid/operator/pki';
import type { Logger } from '../../logger.ts';
import type { VpnProtocol } from '../../contracts/boxes.ts';
import { formatIpv4, netmask, type Ipv4Network } from './addressing.ts';

export interface VpnServerFiles {
  caPem: string;
  certificatePem: string;
  privateKeyPem: string;
  tlsCryptKey: string;
  crlPem: string;
}

export interface VpnServerOptions {
  protocol: VpnProtocol;
  /** Directory for config, keys, log and pid file. */
  dir: string;
  /** Where the management socket lives (short path: unix sockets are limited to 107 bytes). */
  socketPath: string;
  device: string;
  /** The address the server listens on (the router's side of the transit link). */
  localAddress: string;
  port: number;
  clients: Ipv4Network;
  /** Routes pushed to clients (the arena network). */
  routes: Ipv4Network[];
  maxClients: number;
  /** Group the server runs as after start (Debian: nogroup). */
  group: string;
  routerNamespacePath: string;
  /** The players' CPUs (PLAYER_CPUS): the server runs there, off the platform's own; null for any. */
  cpus?: string | null;
  logger: Logger;
}

/** A connected VPN client as the server reports it. */
export interface VpnClientSession {
  protocol: VpnProtocol;
  clientId: number;
  commonName: string;
  vpnAddress: string;
  /** The address the client connects from (OpenVPN's `untrusted_ip`, without the port), when known. */
  realAddress: string | null;
  connectedAt: Date;
}

/**
 * The host of OpenVPN's "Real Address" of a client (`203.0.113.5:51234`, maybe with the protocol before it,
 * `udp4:203.0.113.5:51234`, or an IPv6 address in brackets): the address alone, or null.
 */
export function realHost(address: string): string | null {
  const bracketed = /\[([0-9A-Fa-f:.]+)\](?::\d+)?$/.exec(address);
  if (bracketed) return bracketed[1]!;
  const v4 = /(?:^|[^0-9.])((?:\d{1,3}\.){3}\d{1,3})(?::\d+)?$/.exec(address);
  return v4 ? v4[1]! : null;
}

/**
 * The revocation list, one directory above the management socket's: the server reads it after dropping
 * root, so its directory is open to traverse (0711), while the socket's is root's alone (0700): whoever
 * reaches the socket drives the server (admits clients, reads players' addresses).
 */
const crlPath = (o: Pick<VpnServerOptions, 'socketPath' | 'protocol'>) =>
  path.join(path.dirname(path.dirname(o.socketPath)), `${o.protocol.toLowerCase()}-crl.pem`);

export function serverConfig(o: VpnServerOptions, files: { dir: string }): string {
  const f = (name: string) => path.join(files.dir, name);
  return [
    `# Exploit Grid ${o.protocol} VPN server (written by the API; changes are overwritten)`,
    // Bound to the transit address, so that its answers to players take the router's route back
    // through the host (network.ts) and carry the address the ingress sent them to.
    `local ${o.localAddress}`,
    `port ${o.port}`,
    `proto ${o.protocol === 'UDP' ? 'udp4' : 'tcp4-server'}`,
    `dev ${o.device}`,
    'dev-type tun',
    'topology subnet',
    `server ${formatIpv4(o.clients.base)} ${netmask(o.clients)}`,
    ...o.routes.map((r) => `push "route ${formatIpv4(r.base)} ${netmask(r)}"`),
    'keepalive 10 60',
    `max-clients ${o.maxClients}`,
    `ca ${f('ca.crt')}`,
    `cert ${f('server.crt')}`,
    `key ${f('server.key')}`,
    `tls-crypt ${f('tls-crypt.key')}`,
    // Read at every connection, after the server dropped root: kept where nobody may read it.
    `crl-verify ${crlPath(o)}`,
    ...OPENVPN_SERVER_TLS,
    `management ${o.socketPath} unix`,
    'management-client-auth',
    // Certificates identify players; no username/password is asked.
    'auth-user-pass-optional',
    // Facing the internet, the server drops root once its tun device and sockets are open.
    'user nobody',
    `group ${o.group}`,
    'persist-key',
    'persist-tun',
    // Players' bulk traffic must not slow the API down: on a busy host the servers yield the CPU.
    'nice 10',
    ...(o.protocol === 'UDP' ? ['explicit-exit-notify 1'] : []),
    `writepid ${f('openvpn.pid')}`,
    'verb 3',
    '',
  ].join('\n');
}

type Authorizer = (commonName: string) => Promise<boolean>;

interface PendingClient {
  kind: 'CONNECT' | 'REAUTH' | 'ESTABLISHED' | 'DISCONNECT' | 'ADDRESS';
  clientId: number;
  keyId: number;
  env: Record<string, string>;
}

/**
 * One OpenVPN server process in the router namespace and the API's link to it: the
 * management socket. With `management-client-auth` every client is admitted by the API
 * (revoked players are refused even before the CRL reaches them), and the API hears every
 * connect and disconnect with the client's VPN address. The process runs detached from the
 * API and survives its restarts; on reconnect the API re-reads the client list.
 */
export class VpnServer extends EventEmitter<{
  connected: [VpnClientSession];
  disconnected: [VpnClientSession];
}> {
  readonly options: VpnServerOptions;
  readonly #log: Logger;
  #socket: net.Socket | null = null;
  #buffer = '';
  #pending: PendingClient | null = null;
  #commands: {
    resolve: (lines: string[]) => void;
    reject: (err: Error) => void;
    multiline: boolean;
    lines: string[];
  }[] = [];
  #sessions = new Map<number, VpnClientSession>();
  #authorize: Authorizer = async () => false;
  #closed = false;
  #reconnectTimer: NodeJS.Timeout | null = null;

  constructor(options: VpnServerOptions) {
    super();
    this.options = options;
    this.#log = options.logger.child({ component: 'openvpn', protocol: options.protocol });
  }

  get sessions(): VpnClientSession[] {
    return [...this.#sessions.values()];
  }

  set authorizer(fn: Authorizer) {
    this.#authorize = fn;
  }

  /** The server's pid now (a process in the router's network namespace), or null; read synchronously. */
  pidNow(): number | null {
    try {
      const pid = Number(readFileSync(path.join(this.options.dir, 'openvpn.pid'), 'utf8').trim());
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmdline.includes(path.join(this.options.dir, 'server.conf')) ? pid : null;
    } catch {
      return null;
    }
  }

  async #pid(): Promise<number | null> {
    const text = await readFile(path.join(this.options.dir, 'openvpn.pid'), 'utf8').catch(() => null);
    if (!text) return null;
    const pid = Number(text.trim());
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    return cmdline.includes(path.join(this.options.dir, 'server.conf')) ? pid : null;
  }

  /** Writes keys and config; starts the server unless it already runs; connects to its management socket. */
  async ensure(files: VpnServerFiles): Promise<void> {
    const dir = this.options.dir;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await mkdir(path.dirname(this.options.socketPath), { recursive: true, mode: 0o700 });
    await chmod(path.dirname(this.options.socketPath), 0o700);
    const put = (name: string, content: string, mode = 0o600) =>
      writeFile(path.join(dir, name), content, { mode });
    await put('ca.crt', files.caPem, 0o644);
    await put('server.crt', files.certificatePem, 0o644);
    await put('server.key', files.privateKeyPem);
    await put('tls-crypt.key', files.tlsCryptKey);
    await this.writeCrl(files.crlPem);
    const config = serverConfig(this.options, { dir });
    const configPath = path.join(dir, 'server.conf');
    const previous = await readFile(configPath, 'utf8').catch(() => null);
    await put('server.conf', config);
    let pid = await this.#pid();
    if (pid !== null && previous !== config) {
      this.#log.info('VPN server configuration changed; restarting it');
      await this.stop();
      pid = null;
    }
    if (pid === null) await this.#start(configPath);
    await this.#connect();
  }

  async #start(configPath: string): Promise<void> {
    await rm(this.options.socketPath, { force: true });
    const log = openSync(path.join(this.options.dir, 'openvpn.log'), 'a');
    try {
      const command = [
        'nsenter',
        `--net=${this.options.routerNamespacePath}`,
        'openvpn',
        '--config',
        configPath,
      ];
      const child = spawn(
        this.options.cpus ? 'taskset' : command[0]!,
        this.options.cpus ? ['--cpu-list', this.options.cpus, ...command] : command.slice(1),
        {
          detached: true,
          stdio: ['ignore', log, log],
        },
      );
      child.unref();
    } finally {
      closeSync(log);
    }
    const deadline = Date.now() + 10_000;
    while (!existsSync(this.options.socketPath)) {
      if (Date.now() > deadline)
        throw new Error(
          `OpenVPN ${this.options.protocol} did not start; see ${path.join(this.options.dir, 'openvpn.log')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    this.#log.info({ port: this.options.port }, 'VPN server started');
  }

  #connect(): Promise<void> {
    if (this.#socket && !this.#socket.destroyed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const socket = net.connect(this.options.socketPath);
      socket.setEncoding('utf8');
      socket.once('connect', () => {
        this.#socket = socket;
        this.#buffer = '';
        void this.#refresh().then(resolve, reject);
      });
      socket.on('data', (chunk: string) => this.#onData(chunk));
      socket.once('error', (err) => {
        if (this.#socket !== socket) reject(err);
        else this.#log.warn({ err }, 'VPN management socket error');
      });
      socket.once('close', () => {
        if (this.#socket === socket) this.#socket = null;
        for (const command of this.#commands.splice(0)) command.reject(new Error('management socket closed'));
        if (!this.#closed) this.#scheduleReconnect();
      });
    });
  }

  #scheduleReconnect(): void {
    if (this.#reconnectTimer) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      if (this.#closed) return;
      this.#connect().catch((err: unknown) => {
        this.#log.warn({ err }, 'VPN management reconnect failed');
        this.#scheduleReconnect();
      });
    }, 1000);
  }

  /** Rebuilds the client list from `status 3` (after a reconnect nothing may be missed). */
  async #refresh(): Promise<void> {
    const lines = await this.command('status 3', true);
    let columns: string[] = [];
    const seen = new Map<number, VpnClientSession>();
    for (const line of lines) {
      const fields = line.split('\t');
      if (fields[0] === 'HEADER' && fields[1] === 'CLIENT_LIST') columns = fields.slice(2);
      if (fields[0] !== 'CLIENT_LIST') continue;
      const get = (name: string) => fields[columns.indexOf(name) + 1] ?? '';
      const clientId = Number(get('Client ID'));
      const vpnAddress = get('Virtual Address');
      if (!vpnAddress) continue;
      seen.set(clientId, {
        protocol: this.options.protocol,
        clientId,
        commonName: get('Common Name'),
        vpnAddress,
        realAddress: realHost(get('Real Address')),
        connectedAt: new Date(Number(get('Connected Since (time_t)')) * 1000),
      });
    }
    for (const [id, session] of this.#sessions) {
      if (!seen.has(id)) {
        this.#sessions.delete(id);
        this.emit('disconnected', session);
      }
    }
    for (const [id, session] of seen) {
      if (!this.#sessions.has(id)) {
        this.#sessions.set(id, session);
        this.emit('connected', session);
      }
    }
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    let newline: number;
    while ((newline = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(newline + 1);
      this.#onLine(line);
    }
  }

  #onLine(line: string): void {
    if (line.startsWith('>CLIENT:')) return this.#onClientLine(line.slice(8));
    if (line.startsWith('>')) return; // >INFO, >LOG and other notifications
    const command = this.#commands[0];
    if (!command) return;
    if (command.multiline) {
      if (line === 'END') {
        this.#commands.shift();
        command.resolve(command.lines);
      } else if (line.startsWith('ERROR:')) {
        this.#commands.shift();
        command.reject(new Error(line));
      } else command.lines.push(line);
      return;
    }
    this.#commands.shift();
    if (line.startsWith('SUCCESS:')) command.resolve([line]);
    else command.reject(new Error(line));
  }

  #onClientLine(rest: string): void {
    if (rest.startsWith('ENV,')) {
      const pending = this.#pending;
      if (!pending) return;
      const kv = rest.slice(4);
      if (kv === 'END') {
        this.#pending = null;
        void this.#onClientEvent(pending);
        return;
      }
      const eq = kv.indexOf('=');
      if (eq > 0) pending.env[kv.slice(0, eq)] = kv.slice(eq + 1);
      return;
    }
    const [kind, cid, kid] = rest.split(',');
    if (kind === 'ADDRESS') return; // the address also arrives with ESTABLISHED
    this.#pending = {
      kind: kind as PendingClient['kind'],
      clientId: Number(cid),
      keyId: Number(kid ?? 0),
      env: {},
    };
    if (kind === 'ESTABLISHED' || kind === 'DISCONNECT' || kind === 'CR_RESPONSE') return;
  }

  async #onClientEvent(event: PendingClient): Promise<void> {
    const commonName = event.env.common_name ?? '';
    switch (event.kind) {
      case 'CONNECT':
      case 'REAUTH': {
        let allowed = false;
        try {
          allowed = await this.#authorize(commonName);
        } catch (err) {
          this.#log.error({ err }, 'VPN client authorisation failed');
        }
        const command = allowed
          ? `client-auth-nt ${event.clientId} ${event.keyId}`
          : `client-deny ${event.clientId} ${event.keyId} "not allowed" "VPN access has been revoked"`;
        await this.command(command).catch((err: unknown) =>
          this.#log.warn({ err }, 'VPN client answer failed'),
        );
        if (!allowed) this.#log.info({ commonName }, 'VPN client refused');
        return;
      }
      case 'ESTABLISHED': {
        const session: VpnClientSession = {
          protocol: this.options.protocol,
          clientId: event.clientId,
          commonName,
          vpnAddress: event.env.ifconfig_pool_remote_ip ?? '',
          realAddress: event.env.untrusted_ip || event.env.untrusted_ip6 || null,
          connectedAt: new Date(),
        };
        this.#sessions.set(event.clientId, session);
        this.#log.info({ commonName, vpnAddress: session.vpnAddress }, 'VPN client connected');
        this.emit('connected', session);
        return;
      }
      case 'DISCONNECT': {
        const session = this.#sessions.get(event.clientId);
        if (!session) return;
        this.#sessions.delete(event.clientId);
        this.#log.info(
          { commonName: session.commonName, vpnAddress: session.vpnAddress },
          'VPN client disconnected',
        );
        this.emit('disconnected', session);
        return;
      }
      default:
        return;
    }
  }

  /** Sends one management command; answers its SUCCESS line or, for multi-line commands, its lines. */
  command(text: string, multiline = false): Promise<string[]> {
    const socket = this.#socket;
    if (!socket || socket.destroyed)
      return Promise.reject(new Error('VPN management socket is not connected'));
    return new Promise((resolve, reject) => {
      this.#commands.push({ resolve, reject, multiline, lines: [] });
      socket.write(`${text}\n`);
    });
  }

  /** Cuts every live session of a client certificate (by common name). */
  async kill(commonName: string): Promise<void> {
    for (const session of this.sessions) {
      if (session.commonName === commonName)
        await this.command(`client-kill ${session.clientId} HALT`).catch((err: unknown) =>
          this.#log.warn({ err }, 'client-kill failed'),
        );
    }
  }

  async writeCrl(crlPem: string): Promise<void> {
    const file = crlPath(this.options);
    for (const dir of [path.dirname(path.dirname(file)), path.dirname(file)]) {
      await mkdir(dir, { recursive: true });
      await chmod(dir, 0o711);
    }
    // Written aside and renamed: the server never reads half a list.
    await writeFile(`${file}.new`, crlPem, { mode: 0o644 });
    await rename(`${file}.new`, file);
  }

  /** Closes the API's management link; the server keeps running. */
  detach(): void {
    this.#closed = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#socket?.destroy();
    this.#socket = null;
  }

  /** Stops the server process. */
  async stop(): Promise<void> {
    this.detach();
    const pid = await this.#pid();
    if (pid === null) return;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && (await this.#pid()) !== null) await new Promise((r) => setTimeout(r, 50));
    if ((await this.#pid()) !== null) process.kill(pid, 'SIGKILL');
    this.#closed = false;
  }
}
