import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { expect } from 'chai';
import { CheckNotRun, PROBE_PORTS, runCheck, type ServiceCheck } from '@exploit-grid/operator/catalogue';
import { checkJobSchema, type CheckJob } from '@exploit-grid/operator/kubernetes';
import { VpnChecker } from '@exploit-grid/operator/vpn-checker';
import { testLogger } from '../../testing/logger.ts';
import { FlowRecord } from '../witness.ts';
import { CheckDispatch } from './checks.ts';
import { createHooksApp } from './hooks-app.ts';

const TOKEN = 'hook-token-from-the-pools-PKI-Secret';
const SERVER = 'arena-udp-0';
const ATTACKER = '10.8.0.6';
const BOX = '127.0.0.1';

/**
 * The Kubernetes runtime's service checks end to end but for the pod's nftables: the API's dispatch behind
 * the real hooks app, the VPN server's real checker polling it, and real services on loopback (the "box").
 * The checker's nft is a recorder here (test/operator/vpn-pod.test.ts runs the real one in a pod's namespace).
 */
describe('service checks through a VPN server (kubernetes runtime)', () => {
  let api: http.Server;
  let witness: FlowRecord;
  let dispatch: CheckDispatch;
  let checker: VpnChecker | undefined;
  let nftCalls: string[][];
  /** What the fake nft answers for `get element ... opened` (true: the attacker used that flow lately). */
  let openedHas: (element: string) => boolean;
  const services: net.Server[] = [];
  let seenPorts: number[];

  const startChecker = () => {
    checker = new VpnChecker({
      apiUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
      server: SERVER,
      routerAddress: '127.0.0.1',
      token: () => TOKEN,
      nft: async (args) => {
        nftCalls.push(args);
        if (args[0] === 'get')
          return openedHas(args[5]!)
            ? { ok: true, stderr: '' }
            : { ok: false, stderr: 'No such file or directory' };
        return { ok: true, stderr: '' };
      },
    });
    checker.start();
  };

  /** A web application on loopback whose answer echoes the form's nonce. */
  const webApp = async (handler?: http.RequestListener): Promise<number> => {
    const server = http.createServer(
      handler ??
        ((req, res) => {
          seenPorts.push(req.socket.remotePort!);
          let body = '';
          req.on('data', (chunk: Buffer) => (body += chunk.toString()));
          req.on('end', () => res.end(`<p>Saved: ${new URLSearchParams(body).get('note') ?? ''}</p>`));
        }),
    );
    services.push(server);
    await new Promise<void>((resolve) => server.listen(0, BOX, resolve));
    return (server.address() as AddressInfo).port;
  };
  const noteCheck = (port: number): ServiceCheck => ({
    type: 'http',
    port,
    method: 'POST',
    path: '/notes?x=1',
    form: { note: 'n-{nonce}' },
    status: 200,
    contains: 'Saved: n-{nonce}',
  });

  beforeEach(async () => {
    witness = new FlowRecord();
    dispatch = new CheckDispatch(witness, { answerSlackMs: 300 });
    nftCalls = [];
    seenPorts = [];
    openedHas = () => false;
    const app = createHooksApp(
      {
        token: () => TOKEN,
        connect: async () => false,
        disconnect: async () => undefined,
        sessions: async () => undefined,
        flows: (body) => witness.report(body.server, body.flows),
        checks: (server, signal) => dispatch.next(server, signal),
        checkResult: (outcome) => dispatch.result(outcome),
      },
      testLogger,
    );
    api = http.createServer(app);
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    await checker?.stop();
    checker = undefined;
    dispatch.close();
    api.closeAllConnections();
    await new Promise((resolve) => api.close(resolve));
    for (const server of services.splice(0)) {
      server.close();
      if (server instanceof http.Server) server.closeAllConnections();
    }
  });

  it('makes an HTTP check from the server on the port the API chose, renamed to the attacker, and judges it', async () => {
    startChecker();
    const port = await webApp();
    const result = await runCheck(noteCheck(port), BOX, dispatch.transports(SERVER, BOX, ATTACKER), 3000);
    expect(result).to.deep.equal({ ok: true, detail: `port ${port}: answered as it should` });
    // The source port: one of the checks' range, asked of nftables first, mapped to the attacker.
    expect(seenPorts).to.have.length(1);
    const source = seenPorts[0]!;
    expect(source).to.be.within(PROBE_PORTS.first, PROBE_PORTS.last);
    expect(nftCalls).to.deep.equal([
      ['get', 'element', 'inet', 'eg', 'opened', `{ ${ATTACKER} . ${source} . ${BOX} . ${port} }`],
      [
        'create',
        'element',
        'inet',
        'eg',
        'probes',
        `{ ${BOX} . ${port} . ${source} timeout 8s : ${ATTACKER} }`,
      ],
    ]);
  });

  it('makes a TCP exchange and reads until the service said what it must', async () => {
    startChecker();
    const server = net.createServer((socket) =>
      socket.once('data', (data) => socket.write(`+OK ${data.toString().trim()}\r\n`)),
    );
    services.push(server);
    await new Promise<void>((resolve) => server.listen(0, BOX, resolve));
    const port = (server.address() as AddressInfo).port;
    const check: ServiceCheck = { type: 'tcp', port, send: 'PING {nonce}\r\n', contains: '+OK PING {nonce}' };
    expect(await runCheck(check, BOX, dispatch.transports(SERVER, BOX, ATTACKER), 3000)).to.deep.equal({
      ok: true,
      detail: `port ${port}: answered as it should`,
    });
  });

  it('blames the defender for a service that is down, and a wrong answer; never for a NUL in the answer', async () => {
    startChecker();
    const closed = await webApp();
    await new Promise<void>((resolve) => services.pop()!.close(() => resolve()));
    const down = await runCheck(noteCheck(closed), BOX, dispatch.transports(SERVER, BOX, ATTACKER), 2000);
    expect(down.ok).to.equal(false);
    expect(down.detail).to.match(new RegExp(`^port ${closed}: no answer \\(.*ECONNREFUSED`));

    const nul = await webApp((_req, res) => res.end('Saved: \0 nothing'));
    const wrong = await runCheck(noteCheck(nul), BOX, dispatch.transports(SERVER, BOX, ATTACKER), 2000);
    // Judged (the NUL did not keep the answer from the API), and failed.
    expect(wrong).to.deep.equal({
      ok: false,
      detail: `port ${nul}: the answer lacks what the service must say`,
    });
  });

  it('never uses a source port of the attacker’s witnessed flows with the box, and keeps the check’s flow out of the record', async () => {
    startChecker();
    const port = await webApp();
    // The routers saw the attacker use every port of the range with that port of the box but three.
    const free = [PROBE_PORTS.first + 7, PROBE_PORTS.first + 5000, PROBE_PORTS.last];
    const flows = [];
    for (let p = PROBE_PORTS.first; p <= PROBE_PORTS.last; p++)
      if (!free.includes(p))
        flows.push({
          client: ATTACKER,
          clientPort: p,
          box: BOX,
          boxPort: port,
          openedSecondsAgo: 1,
          idleSeconds: 0,
        });
    witness.report('arena-tcp-0', flows);
    for (let i = 0; i < 3; i++)
      expect(
        (await runCheck(noteCheck(port), BOX, dispatch.transports(SERVER, BOX, ATTACKER), 3000)).ok,
      ).to.equal(true);
    expect(seenPorts).to.have.length(3);
    for (const source of seenPorts) expect(free).to.include(source);
    // A router that later lists the check's flow (it never should: the pod makes it itself) is not believed.
    witness.report(SERVER, [
      {
        client: ATTACKER,
        clientPort: seenPorts[0]!,
        box: BOX,
        boxPort: port,
        openedSecondsAgo: 0,
        idleSeconds: 0,
      },
    ]);
    expect(witness.flows(BOX).some((f) => f.clientPort === seenPorts[0])).to.equal(false);

    // Every port taken on another service (an attacker who made a connection from each): no check, at once,
    // nobody's fault.
    const other = await webApp();
    const all = [];
    for (let p = PROBE_PORTS.first; p <= PROBE_PORTS.last; p++)
      all.push({
        client: ATTACKER,
        clientPort: p,
        box: BOX,
        boxPort: other,
        openedSecondsAgo: 1,
        idleSeconds: 0,
      });
    witness.report('arena-udp-1', all);
    const asked = nftCalls.length;
    const error = await runCheck(
      noteCheck(other),
      BOX,
      dispatch.transports(SERVER, BOX, ATTACKER),
      3000,
    ).catch((err: unknown) => err);
    expect(error).to.be.instanceOf(CheckNotRun);
    expect(String(error)).to.include('no free source port');
    expect(nftCalls.length, 'jobs the server was given').to.equal(asked);
  });

  it('asks again with another port where the router lately saw the attacker use one, and gives up after eight', async () => {
    startChecker();
    const port = await webApp();
    let refused = 0;
    openedHas = () => ++refused <= 2;
    expect(
      (await runCheck(noteCheck(port), BOX, dispatch.transports(SERVER, BOX, ATTACKER), 3000)).ok,
    ).to.equal(true);
    const asked = nftCalls.filter((c) => c[0] === 'get').map((c) => c[5]);
    expect(asked).to.have.length(3);
    expect(new Set(asked).size).to.equal(3);
    expect(seenPorts).to.have.length(1);
    // The ports refused were the attacker's own flows, not yet reported: theirs when the router tells them.
    const refusedPort = Number(/ \. (\d+) \. /.exec(asked[0]!)![1]);
    witness.report('arena-tcp-0', [
      {
        client: ATTACKER,
        clientPort: refusedPort,
        box: BOX,
        boxPort: port,
        openedSecondsAgo: 0,
        idleSeconds: 0,
      },
    ]);
    expect(witness.flows(BOX).map((f) => f.clientPort)).to.deep.equal([refusedPort]);

    openedHas = () => true;
    const error = await runCheck(
      noteCheck(port),
      BOX,
      dispatch.transports(SERVER, BOX, ATTACKER),
      3000,
    ).catch((err: unknown) => err);
    expect(error).to.be.instanceOf(CheckNotRun);
    expect(String(error)).to.include('no free source port');
  });

  it('calls a check not made (nobody’s fault) when no server takes it, and refuses another server’s word on it', async () => {
    const port = await webApp();
    const error = await runCheck(noteCheck(port), BOX, dispatch.transports(SERVER, BOX, ATTACKER), 200).catch(
      (err: unknown) => err,
    );
    expect(error).to.be.instanceOf(CheckNotRun);
    expect(String(error)).to.include(`the VPN server ${SERVER} did not ask for the check`);

    // A job taken by its server: only that server's word counts, once.
    const pending = runCheck(noteCheck(port), BOX, dispatch.transports(SERVER, BOX, ATTACKER), 2000);
    const [job] = await dispatch.next(SERVER);
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}/internal/vpn/checks/result`;
    const tell = (body: object) =>
      fetch(base, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.status);
    const answer = {
      id: job!.id,
      outcome: 'answered',
      status: 200,
      body: `Saved: ${job!.request.type === 'http' ? job!.request.form!.note : ''}`,
    };
    expect(await tell({ ...answer, server: 'arena-tcp-0' })).to.equal(404);
    expect(await tell({ ...answer, server: SERVER, status: 'x' })).to.equal(400);
    expect(await tell({ ...answer, server: SERVER })).to.equal(204);
    expect(await tell({ ...answer, server: SERVER })).to.equal(404);
    expect((await pending).ok).to.equal(true);
  });

  it('hands a server at most 1,024 checks a poll; the rest wait for its next', async () => {
    const quick = new CheckDispatch(witness, { pollMs: 100, answerSlackMs: 60_000 });
    const pending = Array.from({ length: 1100 }, () =>
      runCheck(noteCheck(1), BOX, quick.transports(SERVER, BOX, ATTACKER), 1000).catch((e: unknown) => e),
    );
    expect(await quick.next(SERVER)).to.have.length(1024);
    expect(await quick.next(SERVER)).to.have.length(76);
    quick.close();
    for (const outcome of await Promise.all(pending)) expect(outcome).to.be.instanceOf(CheckNotRun);
  });

  it('has its checks made by a server that refuses a job it cannot take, and the rest all the same', async () => {
    // The checker's side: a poll's answer with one job it refuses.
    const port = await webApp();
    const told: { id: string; outcome: string }[] = [];
    const good = {
      id: '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11',
      box: BOX,
      port,
      speakingAs: ATTACKER,
      sourcePort: 40000,
      timeoutMs: 2000,
      request: { type: 'http', method: 'POST', path: '/', form: { note: 'x' } },
    };
    const bad = { ...good, id: '7c1c9b63-8b4f-4d4a-8a7d-1b5b4d2c3e22', box: '127.0.0.1 } ; flush ruleset' };
    const fake = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url === '/internal/vpn/checks/next') {
          res.end(JSON.stringify({ jobs: told.length === 0 && !served ? [good, bad] : [] }));
          served = true;
        } else {
          told.push(JSON.parse(body) as { id: string; outcome: string });
          res.writeHead(204).end();
        }
      });
    });
    let served = false;
    services.push(fake as unknown as net.Server);
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    checker = new VpnChecker({
      apiUrl: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
      server: SERVER,
      routerAddress: '127.0.0.1',
      token: () => TOKEN,
      nft: async (args) => ({ ok: args[0] !== 'get', stderr: '' }),
    });
    checker.start();
    const deadline = Date.now() + 5000;
    while (told.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(told.map((t) => [t.id, t.outcome]).sort()).to.deep.equal(
      [
        [good.id, 'answered'],
        [bad.id, 'not-run'],
      ].sort(),
    );
  });

  it('holds a server’s poll until there is work, and ends it when the server hangs up', async () => {
    const quick = new CheckDispatch(witness, { pollMs: 100 });
    expect(await quick.next(SERVER)).to.deep.equal([]);
    const hangUp = new AbortController();
    const poll = quick.next(SERVER, hangUp.signal);
    hangUp.abort();
    expect(await poll).to.deep.equal([]);
    // A job queued after the poll hung up waits for the next poll.
    const check = runCheck(noteCheck(1), BOX, quick.transports(SERVER, BOX, ATTACKER), 1000).catch(
      (e: unknown) => e,
    );
    const [job] = await quick.next(SERVER);
    expect(job!.port).to.equal(1);
    quick.close();
    expect(await check).to.be.instanceOf(CheckNotRun);
  });

  it('sends a server only jobs it can check safely (the schema refuses anything nftables could misread)', () => {
    const job: CheckJob = {
      id: '6b0b8a52-7a3e-4c39-9f6c-0a4a3c1b2d11',
      box: '172.30.1.1',
      port: 80,
      speakingAs: ATTACKER,
      sourcePort: 40000,
      timeoutMs: 5000,
      request: { type: 'http', method: 'GET', path: '/' },
    };
    expect(checkJobSchema.safeParse(job).success).to.equal(true);
    for (const bad of [
      { box: '172.30.1.1 } ; flush ruleset ; {' },
      { speakingAs: '10.8.0.6 }' },
      { sourcePort: 1024 },
      { port: 0 },
      { timeoutMs: 120_000 },
      { request: { type: 'http', method: 'GET', path: 'http://elsewhere/' } },
    ])
      expect(checkJobSchema.safeParse({ ...job, ...bad }).success, JSON.stringify(bad)).to.equal(false);
  });
});
