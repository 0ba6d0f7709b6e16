import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A "player's computer" for tests: a network namespace joined to the host by a veth pair,
 * from where a stock OpenVPN client connects and ssh runs, as on a real player's machine.
 */
export class ClientNamespace {
  readonly name: string;
  readonly hostAddress: string;
  readonly clientAddress: string;
  readonly #hostInterface: string;
  #vpn: ChildProcess | null = null;
  #vpnLog = '';

  /** `subnet` is a /30 given by its first three octets and base, e.g. ('10.240.0', 0). */
  constructor(name: string, hostInterface: string, octets: string, base: number) {
    this.name = name;
    this.#hostInterface = hostInterface;
    this.hostAddress = `${octets}.${base + 1}`;
    this.clientAddress = `${octets}.${base + 2}`;
  }

  async create(): Promise<void> {
    await run('ip', ['netns', 'add', this.name]);
    await run('ip', [
      'link',
      'add',
      this.#hostInterface,
      'type',
      'veth',
      'peer',
      'name',
      'eth0',
      'netns',
      this.name,
    ]);
    await run('ip', ['address', 'add', `${this.hostAddress}/30`, 'dev', this.#hostInterface]);
    await run('ip', ['link', 'set', this.#hostInterface, 'up']);
    await run('ip', ['-n', this.name, 'address', 'add', `${this.clientAddress}/30`, 'dev', 'eth0']);
    await run('ip', ['-n', this.name, 'link', 'set', 'eth0', 'up']);
    await run('ip', ['-n', this.name, 'link', 'set', 'lo', 'up']);
    await run('ip', ['-n', this.name, 'route', 'add', 'default', 'via', this.hostAddress]);
  }

  /** Starts `openvpn --config file` in the namespace; resolves once the tunnel is up. */
  async connectVpn(configFile: string, timeoutMs = 20_000): Promise<void> {
    const vpn = spawn('ip', ['netns', 'exec', this.name, 'openvpn', '--config', configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#vpn = vpn;
    this.#vpnLog = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`VPN did not come up:\n${this.#vpnLog}`)), timeoutMs);
      const onData = (chunk: Buffer) => {
        this.#vpnLog += chunk.toString();
        if (this.#vpnLog.includes('Initialization Sequence Completed')) {
          clearTimeout(timer);
          resolve();
        }
      };
      vpn.stdout.on('data', onData);
      vpn.stderr.on('data', onData);
      vpn.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`openvpn exited (${code}):\n${this.#vpnLog}`));
      });
    });
  }

  get vpnLog(): string {
    return this.#vpnLog;
  }

  /** Runs ssh as root with a password from the namespace; answers stdout. */
  async ssh(address: string, password: string, command: string): Promise<string> {
    const { stdout } = await run(
      'ip',
      [
        'netns',
        'exec',
        this.name,
        'sshpass',
        '-p',
        password,
        'ssh',
        '-o',
        'StrictHostKeyChecking=no',
        '-o',
        'UserKnownHostsFile=/dev/null',
        '-o',
        'LogLevel=ERROR',
        '-o',
        'ConnectTimeout=3',
        `root@${address}`,
        command,
      ],
      { timeout: 15_000 },
    );
    return stdout;
  }

  /** Whether a TCP connection to address:port succeeds within 2 s. */
  async canConnect(address: string, port: number): Promise<boolean> {
    try {
      await run('ip', [
        'netns',
        'exec',
        this.name,
        'timeout',
        '2',
        'bash',
        '-c',
        `exec 3<>/dev/tcp/${address}/${port}`,
      ]);
      return true;
    } catch {
      return false;
    }
  }

  async disconnectVpn(): Promise<void> {
    const vpn = this.#vpn;
    if (!vpn || vpn.exitCode !== null) return;
    const exited = new Promise((resolve) => vpn.once('exit', resolve));
    vpn.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (vpn.exitCode === null) vpn.kill('SIGKILL');
    this.#vpn = null;
  }

  async destroy(): Promise<void> {
    await this.disconnectVpn();
    await run('ip', ['link', 'del', this.#hostInterface]).catch(() => undefined);
    await run('ip', ['netns', 'del', this.name]).catch(() => undefined);
  }
}

/** Why this host cannot run the box tests, or null (root, Linux, the box packages). */
export async function boxHostProblem(): Promise<string | null> {
  const { LocalRuntime } = await import('../../api/src/boxes/local/runtime.ts');
  const problem = await LocalRuntime.hostProblem();
  if (problem) return problem;
  try {
    await run('sh', ['-c', 'command -v sshpass']);
  } catch {
    return 'sshpass is missing (make box-deps installs it)';
  }
  return null;
}
