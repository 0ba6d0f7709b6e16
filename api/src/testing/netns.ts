import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { LocalRuntime } from '../boxes/local/runtime.ts';

/**
 * "Players' computers" for tests of the real box runtime: network namespaces joined to the host
 * by a veth, from where stock `openvpn` and `ssh` clients run as they would on a player's machine.
 * Shared by the runtime's integration tests, the end-to-end tests and the box benchmark.
 */

const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(
  what: string,
  fn: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** One word for a POSIX shell (ssh hands the remote shell a single command line). */
const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * ssh as a test runs it, up to the destination: no host key prompts, one way to log in. With a
 * password, run it with `SSHPASS` in the environment (never on a command line).
 */
export function sshArgs(
  auth: { password: string } | { keyFile: string },
  connectTimeoutSeconds = 4,
): string[] {
  const common = [
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    '-o',
    `ConnectTimeout=${connectTimeoutSeconds}`,
  ];
  return 'password' in auth
    ? ['sshpass', '-e', 'ssh', ...common, '-o', 'PubkeyAuthentication=no', '-o', 'NumberOfPasswordPrompts=1']
    : [
        'ssh',
        ...common,
        '-o',
        'BatchMode=yes',
        '-o',
        'PasswordAuthentication=no',
        '-o',
        'IdentitiesOnly=yes',
        '-i',
        auth.keyFile,
      ];
}

/** Why this host cannot run the box tests (root, Linux, the box packages, the test tools), or null. */
export async function boxHostProblem(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'not running as root';
  const problem = await LocalRuntime.hostProblem();
  if (problem) return problem;
  for (const command of ['sshpass', 'ssh', 'timeout', 'bash']) {
    const found = await execFileAsync('sh', ['-c', 'command -v "$0"', command]).then(
      () => true,
      () => false,
    );
    if (!found) return `${command} is missing (make box-deps installs the test tools)`;
  }
  return null;
}

/** A stock OpenVPN client, run in a client namespace. */
export class VpnClient {
  static readonly all = new Set<VpnClient>();
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  log = '';
  #done = false;

  constructor(namespace: string, configFile: string) {
    this.child = spawn('ip', ['netns', 'exec', namespace, 'openvpn', '--config', configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onData = (chunk: Buffer) => (this.log += chunk.toString());
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', onData);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code) => {
        this.#done = true;
        resolve(code);
      }),
    );
    VpnClient.all.add(this);
  }

  /** Resolves once the tunnel is up. */
  async connected(timeoutMs = 20_000): Promise<void> {
    await until(
      'the VPN tunnel',
      async () => {
        if (this.log.includes('Initialization Sequence Completed')) return true;
        if (this.#done) throw new Error(`openvpn exited:\n${this.log}`);
        return false;
      },
      timeoutMs,
      100,
    );
  }

  async stop(): Promise<void> {
    VpnClient.all.delete(this);
    if (this.#done) return;
    this.child.kill('SIGTERM');
    await Promise.race([this.exited, sleep(5000)]);
    if (!this.#done) this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** A player's computer: a network namespace with a veth to the host and its own /30. */
export class ClientNamespace {
  readonly name: string;
  readonly hostAddress: string;
  readonly clientAddress: string;
  readonly #hostInterface: string;
  readonly #clients = new Set<VpnClient>();

  /** `net3.base` starts the /30 between host and namespace (host .base+1, namespace .base+2). */
  constructor(name: string, hostInterface: string, net3: string, base: number) {
    this.name = name;
    this.#hostInterface = hostInterface;
    this.hostAddress = `${net3}.${base + 1}`;
    this.clientAddress = `${net3}.${base + 2}`;
  }

  async create(): Promise<void> {
    const ip = (...args: string[]) => execFileAsync('ip', args);
    await ip('netns', 'add', this.name);
    await ip('link', 'add', this.#hostInterface, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', this.name);
    await ip('address', 'add', `${this.hostAddress}/30`, 'dev', this.#hostInterface);
    await ip('link', 'set', this.#hostInterface, 'up');
    await ip('-n', this.name, 'address', 'add', `${this.clientAddress}/30`, 'dev', 'eth0');
    await ip('-n', this.name, 'link', 'set', 'eth0', 'up');
    await ip('-n', this.name, 'link', 'set', 'lo', 'up');
    await ip('-n', this.name, 'route', 'add', 'default', 'via', this.hostAddress);
  }

  /** Connects a stock OpenVPN client from here with `configFile`; resolves once the tunnel is up. */
  async connectVpn(configFile: string): Promise<VpnClient> {
    const client = new VpnClient(this.name, configFile);
    this.#clients.add(client);
    await client.connected();
    return client;
  }

  /** Stops its VPN clients and removes the namespace and its link to the host. */
  async destroy(): Promise<void> {
    for (const client of this.#clients) await client.stop();
    this.#clients.clear();
    await execFileAsync('ip', ['link', 'del', this.#hostInterface]).catch(() => undefined);
    if (existsSync(`/run/netns/${this.name}`)) await execFileAsync('ip', ['netns', 'del', this.name]);
  }

  /** The address OpenVPN gave this computer's tunnel. */
  async tunAddress(): Promise<string> {
    const { stdout } = await execFileAsync('ip', [
      '-n',
      this.name,
      '-4',
      '-o',
      'address',
      'show',
      'dev',
      'tun0',
    ]);
    return stdout.match(/inet (\d+\.\d+\.\d+\.\d+)\//)![1]!;
  }

  /** Whether a TCP connection from here to address:port opens within `seconds`. */
  async canConnect(address: string, port: number, seconds = 2): Promise<boolean> {
    try {
      await execFileAsync('ip', [
        'netns',
        'exec',
        this.name,
        'timeout',
        String(seconds),
        'bash',
        '-c',
        'exec 3<>"/dev/tcp/$0/$1"',
        address,
        String(port),
      ]);
      return true;
    } catch {
      return false;
    }
  }

  /** Opens a TCP connection from here to address:port and keeps it open `ms`, sending nothing. */
  async holdConnection(address: string, port: number, ms: number): Promise<void> {
    await execFileAsync('ip', [
      'netns',
      'exec',
      this.name,
      'timeout',
      String(Math.ceil(ms / 1000) + 5),
      'bash',
      '-c',
      'exec 3<>"/dev/tcp/$0/$1" && sleep "$2"',
      address,
      String(port),
      String(ms / 1000),
    ]);
  }

  /** Runs `node -e <script> <args...>` on this computer; answers what it printed. */
  async #node([script, ...args]: string[], timeoutMs: number): Promise<string> {
    const { stdout } = await execFileAsync(
      'ip',
      ['netns', 'exec', this.name, process.execPath, '-e', script!, ...args],
      { timeout: timeoutMs },
    );
    return stdout;
  }

  /** An HTTP request from this computer: its status and body (a form body for POST when given). */
  async request(
    url: string,
    init: { method: 'GET' | 'POST'; form?: Record<string, string>; timeoutMs: number },
  ): Promise<{ status: number; body: string }> {
    const stdout = await this.#node(
      [
        `const [url, init] = [process.argv[1], JSON.parse(process.argv[2])];
         fetch(url, { method: init.method, signal: AbortSignal.timeout(init.timeoutMs),
           ...(init.form ? { body: new URLSearchParams(init.form) } : {}) })
           .then(async (r) => process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() })))
           .catch((e) => { console.error(e.message); process.exit(1); })`,
        url,
        JSON.stringify(init),
      ],
      init.timeoutMs + 5000,
    );
    return JSON.parse(stdout) as { status: number; body: string };
  }

  /** A TCP exchange from this computer: sends `send`, answers what came back until `contains`, the end or the timeout. */
  async tcpExchange(
    address: string,
    port: number,
    init: { send: string; contains: string; timeoutMs: number },
  ): Promise<string> {
    const stdout = await this.#node(
      [
        `const [address, port, init] = [process.argv[1], Number(process.argv[2]), JSON.parse(process.argv[3])];
         let received = Buffer.alloc(0);
         const done = () => { process.stdout.write(received.toString('base64')); process.exit(0); };
         const socket = require('net').connect(port, address, () => socket.write(init.send));
         socket.setTimeout(init.timeoutMs, done);
         socket.on('data', (chunk) => { received = Buffer.concat([received, chunk]);
           if (received.toString('latin1').includes(init.contains)) done(); });
         socket.on('end', done);
         socket.on('error', (e) => { console.error(e.message); process.exit(1); });`,
        address,
        String(port),
        JSON.stringify(init),
      ],
      init.timeoutMs + 5000,
    );
    return Buffer.from(stdout, 'base64').toString('latin1');
  }

  /** An HTTP GET from here (answers the body; throws on no answer within `seconds`). */
  async httpGet(url: string, seconds = 5): Promise<string> {
    const stdout = await this.#node(
      [
        `fetch(process.argv[1], { signal: AbortSignal.timeout(${seconds * 1000}) })
           .then((r) => r.text()).then((t) => process.stdout.write(t))
           .catch((e) => { console.error(e.message); process.exit(1); })`,
        url,
      ],
      (seconds + 5) * 1000,
    );
    return stdout;
  }

  /** Waits here for a reverse shell on `port`, as an attacker's `nc -lvnp PORT` does. */
  async listenForShell(port: number): Promise<ShellListener> {
    const listener = new ShellListener(this.name, port);
    await listener.listening;
    return listener;
  }

  /**
   * Runs a command as root on a box over ssh from here and answers its stdout; `params` become
   * the command's $1, $2... (quoted for the remote shell, never pasted into the command).
   */
  async ssh(
    address: string,
    command: string,
    auth: ({ password: string } | { keyFile: string }) & { user?: string; port?: number },
    params: string[] = [],
  ): Promise<string> {
    const args = [...sshArgs(auth), ...(auth.port ? ['-p', String(auth.port)] : [])];
    const { stdout } = await execFileAsync(
      'ip',
      [
        'netns',
        'exec',
        this.name,
        ...args,
        `${auth.user ?? 'root'}@${address}`,
        params.length ? ['bash', '-c', command, 'box', ...params].map(shellQuote).join(' ') : command,
      ],
      {
        timeout: 20_000,
        env: { ...process.env, SSHPASS: 'password' in auth ? auth.password : '' },
      },
    );
    return stdout;
  }
}

/** A shell a box opened back to a player's computer: send it commands, read what they print. */
export class ShellListener {
  readonly listening: Promise<void>;
  readonly connected: Promise<void>;
  readonly closed: Promise<void>;
  #output = '';
  #marker = 0;
  readonly #child: ChildProcess;

  constructor(namespace: string, port: number) {
    // nc -l in a few lines of Node (the test host need not have netcat).
    const script = `const net = require('net');
      const server = net.createServer((c) => {
        process.stderr.write('connected\\n');
        server.close();
        process.stdin.pipe(c);
        c.pipe(process.stdout);
        c.on('error', () => undefined);
        c.on('close', () => { process.stderr.write('closed\\n'); process.exit(0); });
      });
      server.listen(Number(process.argv[1]), '0.0.0.0', () => process.stderr.write('listening\\n'));`;
    this.#child = spawn('ip', ['netns', 'exec', namespace, process.execPath, '-e', script, String(port)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let status = '';
    const said = (word: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (status.includes(`${word}\n`)) resolve();
        };
        this.#child.stderr!.on('data', (chunk: Buffer) => {
          status += chunk.toString();
          check();
        });
        this.#child.once('exit', () =>
          status.includes(`${word}\n`)
            ? resolve()
            : reject(new Error(`shell listener ended before '${word}': ${status}`)),
        );
      });
    this.listening = said('listening');
    this.connected = said('connected');
    this.closed = said('closed');
    for (const p of [this.listening, this.connected, this.closed]) p.catch(() => undefined);
    this.#child.stdout!.on('data', (chunk: Buffer) => (this.#output += chunk.toString()));
  }

  /** Everything the shell printed so far. */
  get output(): string {
    return this.#output;
  }

  /** Sends a command line and answers what it printed (up to a marker echoed after it). */
  async run(line: string, timeoutMs = 15_000): Promise<string> {
    // An interactive shell echoes the line it reads: the marker it prints is not in that line.
    const n = ++this.#marker;
    const marker = `__eg_done_${n}__`;
    const start = this.#output.length;
    this.#child.stdin!.write(`${line}; printf '%s_%s__\\n' __eg_done ${n}\n`);
    const deadline = Date.now() + timeoutMs;
    while (!this.#output.slice(start).includes(`${marker}\n`)) {
      if (Date.now() > deadline)
        throw new Error(`no answer to '${line}' within ${timeoutMs} ms; got: ${this.#output.slice(start)}`);
      await sleep(50);
    }
    const answer = this.#output.slice(start);
    return answer.slice(0, answer.indexOf(marker));
  }

  /** Sends a line without waiting for anything. */
  send(line: string): void {
    this.#child.stdin!.write(`${line}\n`);
  }

  close(): void {
    this.#child.kill('SIGKILL');
  }
}

/**
 * For a suite's `before` hook: skips the suite on a host that cannot run boxes, saying what it needs, and fails
 * it instead where REQUIRE_BOX_RUNTIME=1 (CI must run it).
 */
export async function requireBoxHost(hook: Mocha.Context, what: string): Promise<void> {
  const problem = await boxHostProblem();
  if (!problem) return;
  if (process.env.REQUIRE_BOX_RUNTIME === '1')
    throw new Error(`${what}: the box runtime cannot run here: ${problem}`);
  console.warn(`\n  SKIPPED (${what}): this needs a host that can run boxes: ${problem}\n`);
  hook.skip();
}
