import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, rmdir, stat, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createVerifiedAccount } from '../support/accounts.ts';
import { ClientNamespace, requireBoxHost } from '../support/netns.ts';
import {
  freePort,
  localRuntimeEnv,
  repoRoot,
  takeDownBoxes,
  type RunningPlatform,
} from '../support/platform.ts';
import { until } from '../support/until.ts';

const execFileAsync = promisify(execFile);

/**
 * A fresh server as most operators first run the platform: root, a clone in root's home (mode
 * 0700), `make run`. The clone is this checkout bind-mounted under a 0700 directory (a real
 * clone would need its own dependencies and build). The API must come up as its own
 * unprivileged user with its files private, and the box runtime (which stays root) must work
 * through it: a player's box boots and takes ssh over the VPN.
 */
describe('make run as root from a clone in a 0700 home', function () {
  this.timeout(300_000);
  const id = randomBytes(2).toString('hex');
  const prefix = `egh${id.slice(0, 3)}`;
  const octet = 100 + (parseInt(id, 16) % 100);
  const env = localRuntimeEnv({ prefix, net3: `172.29.${octet}`, octet });
  const alice = new ClientNamespace(`${prefix}-alice`, `${prefix}-ca`, `172.29.${octet}`, 4);
  let home: string | undefined;
  let clone: string | undefined;
  let dataDir: string | undefined;
  let run: ChildProcess | undefined;
  let output = '';
  let platform: RunningPlatform;

  before(async function () {
    await requireBoxHost(this, 'make run as root');
    home = await mkdtemp(path.join(os.tmpdir(), 'eg-root-home-'));
    await chmod(home, 0o700);
    clone = path.join(home, 'exploit-grid');
    await mkdir(clone);
    await execFileAsync('mount', ['--bind', repoRoot, clone]);
    dataDir = path.join(home, 'data');
    const port = await freePort();
    run = spawn('make', ['-s', 'run'], {
      cwd: clone,
      env: { ...process.env, ...env, PORT: String(port), DATA_DIR: dataDir, LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: Ctrl-C in a terminal signals the whole group.
      detached: true,
    });
    run.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    run.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    await until(
      'the platform to answer /readyz',
      async () => {
        if (run!.exitCode !== null) throw new Error(`make run exited with ${run!.exitCode}\n${output}`);
        return (await fetch(`${url}/readyz`)).ok;
      },
      180_000,
      250,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${output.slice(-4000)}`);
    });
    platform = { url, dataDir, apiDataDir: path.join(dataDir, 'api') } as RunningPlatform;
    await alice.create();
  });

  after(async function () {
    if (run && run.exitCode === null && run.signalCode === null) {
      try {
        process.kill(-run.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await alice.destroy();
    if (dataDir) await takeDownBoxes(env, dataDir);
    if (clone) {
      // Never delete through the bind mount: it is this checkout.
      await execFileAsync('umount', [clone]).catch(() => execFileAsync('umount', ['-l', clone!]));
      await rmdir(clone);
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (home) await rmdir(home);
  });

  /** The process listening on the platform's port, and its user id. */
  async function apiProcess(): Promise<{ pid: number; uid: number }> {
    const port = new URL(platform.url).port;
    const { stdout } = await execFileAsync('ss', ['-Htlnp', `sport = :${port}`]);
    const pid = Number(/pid=(\d+)/.exec(stdout)?.[1]);
    expect(pid, `a listener on ${port}: ${stdout}`).to.be.greaterThan(0);
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    return { pid, uid };
  }

  it('serves the API as an unprivileged user whose files no one else can read', async () => {
    const api = await apiProcess();
    expect(api.uid).to.not.equal(0);
    const { stdout } = await execFileAsync('getent', ['passwd', String(api.uid)]);
    expect(stdout.split(':')[0]).to.equal('exploit-grid');
    const status = await readFile(`/proc/${api.pid}/status`, 'utf8');
    expect(/^CapEff:\s+(\w+)/m.exec(status)?.[1]).to.match(/^0+$/);
    expect(/^NoNewPrivs:\s+(\d)/m.exec(status)?.[1]).to.equal('1');

    for (const dir of ['api', 'api/postgres']) {
      const info = await stat(path.join(dataDir!, dir));
      expect(info.uid, dir).to.equal(api.uid);
      expect(info.mode & 0o777, dir).to.equal(0o700);
    }
    // The VPN's CA key stays with root, out of reach of the process that faces the internet
    // (the box runtime starts once the API listens).
    const caKey = path.join(dataDir!, 'vpn/pki/ca.key');
    await until('the VPN CA', async () => existsSync(caKey), 60_000);
    const ca = await stat(caKey);
    expect(ca.uid).to.equal(0);
    expect(ca.mode & 0o077).to.equal(0);
    // The API cannot write to its own code.
    const probe = await execFileAsync('nsenter', [
      `--mount=/proc/${api.pid}/ns/mnt`,
      'setpriv',
      `--reuid=${api.uid}`,
      `--regid=${api.uid}`,
      '--clear-groups',
      'sh',
      '-c',
      'cd /run/exploit-grid/api/app && touch api/dist/main.js',
    ]).then(
      () => 'written',
      (err: { stderr: string }) => err.stderr,
    );
    expect(probe).to.match(/Read-only file system|Permission denied/);
  });

  it('runs a player’s box through the root host process: it boots and takes ssh over the VPN', async () => {
    const handle = `root${id}`;
    const account = await createVerifiedAccount(platform, {
      handle,
      email: `${handle}@example.test`,
      password: 'correct horse battery',
    });
    const call = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${platform.url}/api/v1${url}`, {
        method,
        headers: {
          authorization: `Bearer ${account.accessToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      expect(res.status, `${method} ${url}: ${text}`).to.be.lessThan(300);
      return (text ? JSON.parse(text) : null) as T;
    };
    const created = await call<{ hostname: string }>('POST', '/boxes', {});
    await call('POST', `/boxes/${created.hostname}/power`, { on: true });
    const box = await until(
      'the box to run',
      async () => {
        const mine = await call<{ status: string; ip: string; ssh_password: string }>('GET', '/boxes/my');
        return mine.status === 'RUNNING' ? mine : null;
      },
      150_000,
      500,
    );
    const res = await fetch(`${platform.url}/api/v1/user-vpn/${account.id}/UDP`, {
      headers: { authorization: `Bearer ${account.accessToken}` },
    });
    expect(res.status).to.equal(200);
    const configFile = path.join(dataDir!, 'alice.ovpn');
    await writeFile(configFile, ((await res.json()) as { ovpn_config: string }).ovpn_config, {
      mode: 0o600,
    });
    await alice.connectVpn(configFile);
    const shell = await until(
      'ssh over the VPN',
      () => alice.ssh(box.ip, 'id -u; hostname', { password: box.ssh_password }),
      30_000,
      1000,
    );
    expect(shell.trim().split('\n')).to.deep.equal(['0', created.hostname]);
  });

  it('stops on Ctrl-C, the API and its database with it', async () => {
    const api = await apiProcess();
    const exited = new Promise<string>((resolve) =>
      run!.once('close', (code, signal) => resolve(String(code ?? signal))),
    );
    process.kill(-run!.pid!, 'SIGINT');
    const how = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000))]);
    // make ends as a terminal's Ctrl-C ends it; what it ran shut down in order.
    expect(how, output.slice(-3000)).to.be.oneOf(['0', 'SIGINT', '130']);
    expect(output).to.include('Stopped embedded PostgreSQL');
    expect(output).to.not.match(/"level":(50|60)/);
    expect(existsSync(`/proc/${api.pid}`)).to.equal(false);
    expect(existsSync(path.join(dataDir!, 'api/postgres/postmaster.pid'))).to.equal(false);
  });
});
