import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { SCRIPTS } from '../../operator/src/vpnpool/scripts.ts';
import { needsRoot } from '../support/root.ts';

const run = promisify(execFile);

/**
 * The OpenVPN pods' scripts (shipped in the pool's server ConfigMap) run for real: the access
 * sync against nftables in a network namespace, the hooks against an HTTP server playing the
 * API's internal endpoint. Needs root (network namespaces, nft).
 */
describe('VPN server pod scripts', function () {
  this.timeout(30_000);
  const ns = `egvs${randomBytes(3).toString('hex')}`;
  let dir: string;
  const env = () => ({
    ...process.env,
    ACCESS_FILE: path.join(dir, 'access.json'),
    SESSIONS_DIR: path.join(dir, 'sessions'),
    STATE_DIR: dir,
    SCRIPTS_DIR: path.join(dir, 'scripts'),
    HOOK_TOKEN_FILE: path.join(dir, 'hook-token'),
  });
  const elements = async (name = 'access') => {
    const { stdout } = await run('ip', ['netns', 'exec', ns, 'nft', '-j', 'list', 'set', 'inet', 'eg', name]);
    const set = (JSON.parse(stdout) as { nftables: { set?: { elem?: unknown[] } }[] }).nftables.find(
      (e) => e.set,
    )!.set!;
    return (set.elem ?? []).map((element) => {
      const e = element as { elem?: { val: { concat: string[] }; timeout?: number }; concat?: string[] };
      const pair = e.elem ? e.elem.val.concat : e.concat!;
      return { pair: pair.join(' . '), timeout: e.elem?.timeout };
    });
  };
  const sync = () =>
    run('ip', ['netns', 'exec', ns, 'sh', path.join(dir, 'scripts/access-sync.sh'), '--once'], {
      env: env(),
    });

  before(async function () {
    needsRoot(this, 'the VPN scripts test (network namespaces, nft)');
    dir = await mkdtemp(path.join(os.tmpdir(), 'eg-vpn-scripts-'));
    await mkdir(path.join(dir, 'sessions'));
    await mkdir(path.join(dir, 'scripts'));
    for (const [name, content] of Object.entries(SCRIPTS))
      await writeFile(path.join(dir, 'scripts', name), content);
    await writeFile(path.join(dir, 'hook-token'), 'hook secret\n');
    await run('ip', ['netns', 'add', ns]);
    // The sets of the entrypoint's table (what the sync fills, what the router witnesses).
    await run('ip', [
      'netns',
      'exec',
      ns,
      'nft',
      [
        'add table inet eg',
        'add set inet eg access { type ipv4_addr . ipv4_addr; flags timeout; }',
        'add set inet eg windows { type ipv4_addr . ipv4_addr; flags timeout; }',
        'add set inet eg opened { type ipv4_addr . inet_service . ipv4_addr . inet_service; flags dynamic,timeout; timeout 2m; }',
        'add set inet eg active { type ipv4_addr . inet_service . ipv4_addr . inet_service; flags dynamic,timeout; timeout 15s; }',
      ].join('; '),
    ]);
  });
  after(async () => {
    await run('ip', ['netns', 'delete', ns]).catch(() => {});
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lets each connected player reach their boxes and each window’s source its box until the end', async () => {
    const until = new Date(Date.now() + 120_000).toISOString();
    await writeFile(
      path.join(dir, 'access.json'),
      JSON.stringify({
        owners: { 'aaaa-1': ['172.30.1.1', '172.30.1.2'], 'bbbb-2': ['172.30.1.3'] },
        windows: [
          { source: '10.8.0.9', box: '172.30.1.3', until },
          { source: '10.8.0.7', box: '172.30.1.1', until: '2020-01-01T00:00:00.000Z' },
        ],
      }),
    );
    await writeFile(path.join(dir, 'sessions/aaaa-1'), '10.8.0.6\n'); // bbbb-2 is not connected here
    await sync();
    const now = await elements();
    expect(now.map((e) => e.pair).sort()).to.deep.equal([
      '10.8.0.6 . 172.30.1.1',
      '10.8.0.6 . 172.30.1.2',
      '10.8.0.9 . 172.30.1.3',
    ]);
    const window = now.find((e) => e.pair === '10.8.0.9 . 172.30.1.3')!;
    expect(window.timeout).to.be.within(110, 120); // the kernel closes it at the window's end
    expect(now.find((e) => e.pair === '10.8.0.6 . 172.30.1.1')!.timeout).to.equal(undefined);
    // The windows alone are the pairs whose flows the router witnesses.
    const windows = await elements('windows');
    expect(windows.map((e) => e.pair)).to.deep.equal(['10.8.0.9 . 172.30.1.3']);
    expect(windows[0]!.timeout).to.be.within(110, 120);

    // The player disconnects and the window is gone from the access list: both removed.
    await rm(path.join(dir, 'sessions/aaaa-1'));
    await writeFile(path.join(dir, 'access.json'), JSON.stringify({ owners: {}, windows: [] }));
    await sync();
    expect(await elements()).to.deep.equal([]);
    expect(await elements('windows')).to.deep.equal([]);
  });

  it('does not start when forwarding is off and /proc/sys is read-only, and says why', async () => {
    const pod = `${ns}f`;
    await run('ip', ['netns', 'add', pod]);
    try {
      await run('ip', ['netns', 'exec', pod, 'sysctl', '-qw', 'net.ipv4.ip_forward=0']);
      const readOnlySys =
        'mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys && exec sh "$0"';
      const started = await run(
        'ip',
        [
          'netns',
          'exec',
          pod,
          'unshare',
          '--mount',
          'sh',
          '-c',
          readOnlySys,
          path.join(dir, 'scripts/entrypoint.sh'),
        ],
        {
          env: {
            ...env(),
            EG_RUN: path.join(dir, 'pod-run'),
            SERVER_NAME: 'arena-udp-0',
            API_INTERNAL_URL: 'http://127.0.0.1:1',
            ROUTER_ADDRESS: '172.30.0.10',
          },
        },
      ).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
      );
      expect(started.code).to.equal(1);
      expect(started.stderr).to.include('IPv4 forwarding is off in this pod');
      // Nothing was set up.
      const { stdout } = await run('ip', ['netns', 'exec', pod, 'nft', 'list', 'tables']);
      expect(stdout.trim()).to.equal('');
    } finally {
      await run('ip', ['netns', 'delete', pod]).catch(() => {});
    }
  });

  describe('hooks', () => {
    let server: http.Server;
    let url: string;
    const requests: { path: string; authorization?: string; body: Record<string, unknown> }[] = [];
    let allow = true;
    before(async function () {
      needsRoot(this, 'the VPN hooks test');
      server = http.createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          requests.push({
            path: request.url!,
            authorization: request.headers.authorization,
            body: JSON.parse(body),
          });
          if (request.url === '/internal/vpn/connect') {
            response.writeHead(allow ? 200 : 403, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ allow }));
          } else {
            response.writeHead(204).end();
          }
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await writeFile(
        path.join(dir, 'access.json'),
        JSON.stringify({ owners: { 'cccc-3': ['172.30.1.9'] }, windows: [] }),
      );
    });
    after(() => server?.close());
    // On this side (the stand-in API listens here), with nft in the namespace.
    const hook = (name: string, commonName: string, extra: Record<string, string> = {}) =>
      run('sh', [path.join(dir, 'scripts', name)], {
        env: {
          ...env(),
          ...extra,
          NFT: `ip netns exec ${ns} nft`,
          common_name: commonName,
          ifconfig_pool_remote_ip: '10.8.0.14',
          PROTOCOL: 'udp',
          SERVER_NAME: 'arena-udp-0',
          API_INTERNAL_URL: url,
        },
      }).then(
        () => 0,
        (error: { code?: number }) => error.code ?? 1,
      );

    it('asks the API on connect with the hook token, records the session and opens the player’s boxes', async () => {
      expect(await hook('client-connect.sh', 'cccc-3')).to.equal(0);
      expect(requests.at(-1)).to.deep.equal({
        path: '/internal/vpn/connect',
        authorization: 'Bearer hook secret',
        body: { protocol: 'udp', commonName: 'cccc-3', vpnAddress: '10.8.0.14', server: 'arena-udp-0' },
      });
      expect(await readdir(path.join(dir, 'sessions'))).to.deep.equal(['cccc-3']);
      expect((await elements()).map((e) => e.pair)).to.deep.equal(['10.8.0.14 . 172.30.1.9']);

      expect(await hook('client-disconnect.sh', 'cccc-3')).to.equal(0);
      expect(requests.at(-1)!.path).to.equal('/internal/vpn/disconnect');
      expect(await readdir(path.join(dir, 'sessions'))).to.deep.equal([]);
      expect(await elements()).to.deep.equal([]);
    });

    it('tells the API where the client connects from when OpenVPN says, and nothing that is no address', async () => {
      expect(await hook('client-connect.sh', 'cccc-3', { untrusted_ip: '198.51.100.7' })).to.equal(0);
      expect(requests.at(-1)!.body).to.deep.equal({
        protocol: 'udp',
        commonName: 'cccc-3',
        vpnAddress: '10.8.0.14',
        server: 'arena-udp-0',
        realAddress: '198.51.100.7',
      });
      expect(await hook('client-connect.sh', 'cccc-3', { untrusted_ip: '1", "x": "y' })).to.equal(0);
      expect(requests.at(-1)!.body).to.not.have.property('realAddress');
      expect(await hook('client-disconnect.sh', 'cccc-3')).to.equal(0);
    });

    it('refuses the client when the API says no, or for a name that is not a user id', async () => {
      allow = false;
      const before = requests.length;
      expect(await hook('client-connect.sh', 'cccc-3')).to.not.equal(0);
      expect(requests.length).to.equal(before + 1);
      expect(await readdir(path.join(dir, 'sessions'))).to.deep.equal([]);
      allow = true;
      expect(await hook('client-connect.sh', 'x"; rm -rf /')).to.not.equal(0);
      expect(requests.length).to.equal(before + 1); // never sent
    });

    it('reports the server’s whole session list to the API (what an API that restarted learns)', async () => {
      await writeFile(path.join(dir, 'sessions/cccc-3'), '10.8.0.14\n');
      await writeFile(path.join(dir, 'sessions/dddd-4'), '10.8.0.15\n');
      try {
        await run('sh', [path.join(dir, 'scripts/access-sync.sh'), '--report'], {
          env: { ...env(), PROTOCOL: 'udp', SERVER_NAME: 'arena-udp-0', API_INTERNAL_URL: url },
        });
        expect(requests.at(-1)).to.deep.equal({
          path: '/internal/vpn/sessions',
          authorization: 'Bearer hook secret',
          body: {
            protocol: 'udp',
            server: 'arena-udp-0',
            sessions: [
              { commonName: 'cccc-3', vpnAddress: '10.8.0.14' },
              { commonName: 'dddd-4', vpnAddress: '10.8.0.15' },
            ],
          },
        });
      } finally {
        await rm(path.join(dir, 'sessions/cccc-3'));
        await rm(path.join(dir, 'sessions/dddd-4'));
      }
    });

    it('reports the flows the router witnessed: when each opened and how long the box has been quiet on it', async () => {
      const nft = (script: string) => run('ip', ['netns', 'exec', ns, 'nft', script]);
      await nft('add element inet eg opened { 10.8.0.9 . 51234 . 172.30.1.3 . 22 timeout 2m expires 1m50s }');
      await nft('add element inet eg opened { 10.8.0.9 . 51235 . 172.30.1.3 . 8080 }');
      await nft('add element inet eg active { 10.8.0.9 . 51234 . 172.30.1.3 . 22 timeout 15s expires 12s }');
      try {
        await run('sh', [path.join(dir, 'scripts/access-sync.sh'), '--report-flows'], {
          env: {
            ...env(),
            NFT: `ip netns exec ${ns} nft`,
            SERVER_NAME: 'arena-udp-0',
            ROUTER_ADDRESS: '172.30.0.10',
            API_INTERNAL_URL: url,
          },
        });
        const sent = requests.at(-1)!;
        expect(sent).to.deep.include({ path: '/internal/vpn/flows', authorization: 'Bearer hook secret' });
        expect(sent.body).to.include({ server: 'arena-udp-0', router: '172.30.0.10' });
        const flows = (sent.body.flows as Record<string, unknown>[]).sort(
          (a, b) => (a.clientPort as number) - (b.clientPort as number),
        );
        expect(flows.map(({ openedSecondsAgo: _o, idleSeconds: _i, ...f }) => f)).to.deep.equal([
          { client: '10.8.0.9', clientPort: 51234, box: '172.30.1.3', boxPort: 22 },
          { client: '10.8.0.9', clientPort: 51235, box: '172.30.1.3', boxPort: 8080 },
        ]);
        expect(flows[0]!.openedSecondsAgo).to.be.within(10, 12);
        expect(flows[0]!.idleSeconds).to.be.within(3, 5);
        expect(flows[1]!.openedSecondsAgo).to.be.within(0, 2);
        expect(flows[1]!.idleSeconds).to.equal(null);
      } finally {
        await nft('flush set inet eg opened; flush set inet eg active');
      }
    });
  });
});
