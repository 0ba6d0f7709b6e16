import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { Agent, MAX_EVENT_BYTES, Spool, fitEvent, type AgentEvent } from './agent.ts';
import type { ExecRecord } from './exec-hook.ts';

describe('agent: spool', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'eg-spool-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('numbers events, keeps them on disk until acknowledged, and survives a restart', () => {
    const spool = new Spool(dir);
    for (let i = 0; i < 3; i++)
      spool.add({ kind: 'heartbeat', time: new Date().toISOString(), sessions: [], connections: [] });
    expect(spool.pending().map((e) => e.seq)).to.deep.equal([1, 2, 3]);
    spool.ack(2);
    const again = new Spool(dir);
    expect(again.pending().map((e) => e.seq)).to.deep.equal([3]);
    expect(
      again.add({ kind: 'heartbeat', time: new Date().toISOString(), sessions: [], connections: [] }).seq,
    ).to.equal(4);
    again.ack(4);
    expect(
      new Spool(dir).add({ kind: 'heartbeat', time: new Date().toISOString(), sessions: [], connections: [] })
        .seq,
    ).to.equal(5);
  });

  it('skips a line cut by a crash and keeps batches within the limits', () => {
    const spool = new Spool(dir);
    spool.add({ kind: 'heartbeat', time: new Date().toISOString(), sessions: [], connections: [] });
    appendFileSync(path.join(dir, 'spool.jsonl'), '{"kind":"exec","seq":');
    expect(new Spool(dir).pending().map((e) => e.seq)).to.deep.equal([1]);
    const big = new Spool(dir);
    for (let i = 0; i < 700; i++)
      big.add({ kind: 'heartbeat', time: new Date().toISOString(), sessions: [], connections: [] });
    const batch = big.pending();
    expect(batch.length).to.equal(500);
    expect(Buffer.byteLength(JSON.stringify({ events: batch }))).to.be.lessThan(1_000_000);
  });

  it('cuts a program start the attacker made huge to fit a report, parents first', () => {
    // Control characters take six bytes each in JSON: 16 parents of 4 KB and an 8 KB command
    // line of them would be a 480 KB event the API refuses.
    const junk = (n: number) => '\x01'.repeat(n);
    const event: AgentEvent = {
      kind: 'exec',
      seq: 7,
      time: new Date().toISOString(),
      pid: 4242,
      ppid: 4241,
      uid: 33,
      euid: 33,
      user: 'www-data',
      cwd: `/tmp/${junk(4000)}`,
      command: `bash -c ${junk(8000)}`,
      chain: Array.from({ length: 16 }, (_, i) => ({ pid: 4241 - i, uid: 33, command: `sh ${junk(4090)}` })),
      peer: '10.201.0.2',
      peerPort: 4444,
      source: 'scan',
    };
    expect(Buffer.byteLength(JSON.stringify(event))).to.be.greaterThan(400_000);
    const fitted = fitEvent(event);
    expect(Buffer.byteLength(JSON.stringify(fitted))).to.be.at.most(MAX_EVENT_BYTES);
    if (fitted.kind !== 'exec') throw new Error('not an exec');
    expect({
      pid: fitted.pid,
      peer: fitted.peer,
      peerPort: fitted.peerPort,
      uid: fitted.uid,
      seq: fitted.seq,
    }).to.deep.equal({
      pid: 4242,
      peer: '10.201.0.2',
      peerPort: 4444,
      uid: 33,
      seq: 7,
    });
    expect(fitted.command.startsWith('bash -c \x01')).to.equal(true);
    expect(fitted.command.endsWith('…')).to.equal(true);
    // A small one is left alone, and so is a heartbeat.
    const small = { ...event, cwd: '/tmp', command: 'id', chain: [] };
    expect(fitEvent(small)).to.deep.equal(small);
    // The spool fits what it keeps.
    const spool = new Spool(dir);
    const kept = spool.add({ ...event, seq: undefined } as unknown as Parameters<Spool['add']>[0]);
    expect(Buffer.byteLength(JSON.stringify(kept))).to.be.at.most(MAX_EVENT_BYTES);
  });
});

describe('agent: judging program starts and reporting them to the API', function () {
  this.timeout(30_000);
  let dir: string;
  let server: http.Server;
  let port: number;
  let up = true;
  const received: AgentEvent[] = [];
  const children: ChildProcess[] = [];
  /** What the stand-in API answers in `watch` (the peers whose connections heartbeats list). */
  let watch: string[] = [];
  /** Events the stand-in API refuses (with any batch that holds them). */
  let refuse: (event: AgentEvent) => boolean = () => false;
  let agent: Agent;

  const listen = () =>
    new Promise<void>((resolve) => {
      server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          if (req.headers.authorization !== 'Bearer box-secret') {
            res.writeHead(401).end('{}');
            return;
          }
          const { events } = JSON.parse(body) as { events: AgentEvent[] };
          if (events.some(refuse)) {
            res.writeHead(413, { 'content-type': 'application/json' }).end('{"statusCode":413}');
            return;
          }
          const last = received.at(-1)?.seq ?? 0;
          received.push(...events.filter((e) => e.seq > last));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ lastSeq: received.at(-1)?.seq ?? 0, stored: events.length, watch }));
        });
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });

  /** A TCP service on loopback run by `script` (started before anyone connects, as a box's daemons are). */
  async function service(program: string, args: string[]): Promise<number> {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    children.push(child);
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      child.once('exit', () => reject(new Error(`${program} ended`)));
    });
    return Number(line.trim());
  }

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'eg-agent-'));
    port = 0;
    await listen();
    port = (server.address() as AddressInfo).port;
    agent = new Agent({
      apiUrl: `http://127.0.0.1:${port}`,
      token: 'box-secret',
      spoolDir: dir,
      scanIntervalMs: 50,
      heartbeatIntervalMs: 300,
      includeLoopback: true,
    });
    agent.start();
  });
  after(async () => {
    await agent.stop();
    for (const child of children) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
    if (up) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** What a test opened, closed after it whether it passed or not (an open handle would keep mocha running). */
  const opened: (net.Server | net.Socket)[] = [];
  const closeAfter = (handle: net.Server | net.Socket) => opened.push(handle);
  afterEach(() => {
    for (const handle of opened.splice(0)) {
      if (handle instanceof net.Socket) handle.destroy();
      else handle.close();
    }
  });

  const run = (script: string) => {
    const child = spawn('bash', ['-c', `${script}; true`], { stdio: 'ignore', detached: true });
    children.push(child);
    return child;
  };
  const execs = () => received.filter((e): e is Extract<AgentEvent, { kind: 'exec' }> => e.kind === 'exec');
  const heartbeats = () =>
    received.filter((e): e is Extract<AgentEvent, { kind: 'heartbeat' }> => e.kind === 'heartbeat');
  const waitFor = async (accept: () => boolean, what: string) => {
    for (let i = 0; i < 200; i++) {
      if (accept()) return;
      await sleep(50);
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  /** The heartbeats that arrive from now on, once `count` of them did. */
  const nextHeartbeats = async (count: number) => {
    const from = heartbeats().length;
    await waitFor(() => heartbeats().length >= from + count, `${count} heartbeats`);
    return heartbeats().slice(from);
  };

  it("reports a reverse shell's programs with the peer and port it connected to, holds it while it lives, and lets go when it is killed", async () => {
    const listener = net.createServer((socket) => socket.on('error', () => undefined));
    closeAfter(listener);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    const target = (listener.address() as AddressInfo).port;
    const shell = run(`cd /tmp; exec 3<>/dev/tcp/127.0.0.1/${target}; sleep 0.3; sleep 30`);
    await waitFor(() => execs().some((e) => e.command === 'sleep 30'), 'the shell');
    const id = execs().find((e) => e.command === 'sleep 0.3')!;
    expect(id).to.include({ peer: '127.0.0.1', peerPort: target, cwd: '/tmp', uid: process.getuid!() });
    expect(id.chain[0]!.command).to.match(/^bash -c/);
    // The bash itself started before it connected: not the peer's program.
    expect(execs().some((e) => e.pid === shell.pid)).to.equal(false);
    const [beat] = await nextHeartbeats(1);
    expect(beat!.sessions).to.deep.include({ peer: '127.0.0.1', peerPort: target, uid: process.getuid!() });
    process.kill(-shell.pid!, 'SIGKILL');
    await sleep(200);
    const [after] = await nextHeartbeats(2).then((b) => b.slice(-1));
    // This test's own session only: other processes of the host (tests beside this one) hold loopback ones.
    expect(after!.sessions.filter((s) => s.peer === '127.0.0.1' && s.peerPort === target)).to.deep.equal([]);
  });

  it('gives nobody the workers of a daemon that forks per connection, nor a daemon re-executing itself for it', async () => {
    // A forking service (no new program per connection) and one whose child executes the
    // daemon's own program again for each connection (as sshd does before anyone logged in).
    const forking = await service('perl', [
      '-MIO::Socket::INET',
      '-e',
      `$SIG{CHLD}='IGNORE'; my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 5) or die;
       $| = 1; print $s->sockport, "\n";
       while (my $c = $s->accept) { if (!fork) { print $c "hi\n"; sleep 3; exit 0 } close $c }`,
    ]);
    const reexec = await service('perl', [
      '-MIO::Socket::INET',
      '-e',
      `if (@ARGV && $ARGV[0] eq 'child') { sleep 3; exit 0 }
       $SIG{CHLD}='IGNORE'; my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 5) or die;
       $| = 1; print $s->sockport, "\n";
       while (my $c = $s->accept) { if (!fork) { open(STDIN, '<&', $c); exec($^X, '-e', '$0 = "perl child"; sleep 3', 'child') } close $c }`,
    ]);
    const before = execs().length;
    const sockets = [forking, reexec].map((p) => net.connect(p, '127.0.0.1').on('error', () => undefined));
    for (const socket of sockets) closeAfter(socket);
    const beats = await nextHeartbeats(3);
    const ours = (port: number | undefined) => port === forking || port === reexec;
    expect(
      execs()
        .slice(before)
        .filter((e) => ours(e.peerPort)),
    ).to.deep.equal([]);
    for (const beat of beats)
      expect(beat.sessions.filter((s) => s.peer === '127.0.0.1' && ours(s.peerPort))).to.deep.equal([]);
  });

  it("lists the box's connections with the peers the API watches, and none when it watches nobody", async () => {
    const listener = net.createServer((socket) => socket.on('error', () => undefined));
    closeAfter(listener);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    const target = (listener.address() as AddressInfo).port;
    const client = net.connect(target, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    const [quiet] = await nextHeartbeats(1);
    expect(quiet!.connections).to.deep.equal([]);
    watch = ['127.0.0.1'];
    // The answer to a report tells the agent; the heartbeats after it list the connection both ways.
    await nextHeartbeats(1);
    const [watched] = await nextHeartbeats(1);
    expect(watched!.connections).to.deep.include({
      peer: '127.0.0.1',
      peerPort: target,
      localPort: client.localPort,
    });
    expect(watched!.connections).to.deep.include({
      peer: '127.0.0.1',
      peerPort: client.localPort,
      localPort: target,
    });
    watch = [];
    client.destroy();
    listener.close();
  });

  it('gives up an event the API refuses, alone, and delivers the programs and heartbeats behind it', async () => {
    const listener = net.createServer((socket) => socket.on('error', () => undefined));
    closeAfter(listener);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    const target = (listener.address() as AddressInfo).port;
    refuse = (e) => e.kind === 'exec' && e.command.includes('refuse-me');
    const dropped = agent.spool.dropped;
    const beats = heartbeats().length;
    // The connection comes a second before the programs: on a loaded machine the agent's scans (every 50 ms)
    // can fall that far behind, and a program that starts before its session is seen is no event at all.
    run(
      `exec 3<>/dev/tcp/127.0.0.1/${target}; sleep 1; /bin/sh -c 'sleep 0.4; true' refuse-me; /bin/sh -c 'sleep 0.4; true' after-it; sleep 2`,
    );
    await waitFor(
      () => execs().some((e) => e.command.includes('after-it')),
      'the program after the refused one',
    );
    await waitFor(() => heartbeats().length >= beats + 2, 'heartbeats after the refused event');
    expect(execs().some((e) => e.command.includes('refuse-me'))).to.equal(false);
    expect(agent.spool.dropped).to.equal(dropped + 1);
    expect(agent.spool.pending().some((e) => e.kind === 'exec' && e.command.includes('refuse-me'))).to.equal(
      false,
    );
    refuse = () => false;
    listener.close();
  });

  it('keeps events while the API is down and delivers them in order, once, when it is back', async () => {
    const listener = net.createServer((socket) => socket.on('error', () => undefined));
    closeAfter(listener);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    const target = (listener.address() as AddressInfo).port;
    up = false;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const before = received.length;
    run(`exec 3<>/dev/tcp/127.0.0.1/${target}; sleep 0.1; sleep 5`);
    await sleep(1500);
    expect(received.length).to.equal(before);
    expect(agent.spool.pending().some((e) => e.kind === 'exec' && e.peerPort === target)).to.equal(true);
    await listen();
    up = true;
    await waitFor(() => execs().some((e) => e.peerPort === target), 'the delivery after the outage');
    const seqs = received.map((e) => e.seq);
    expect(seqs).to.deep.equal([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).to.equal(seqs.length);
    listener.close();
  });
});

describe('agent: the exec hook', function () {
  this.timeout(20_000);

  it("gives a peer's program read after its parent ended to the peer, by what the hook told of the parent", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'eg-agent-hook-'));
    const listener = net.createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    const target = (listener.address() as AddressInfo).port;
    let deliver: (record: ExecRecord) => void = () => undefined;
    const agent = new Agent({
      apiUrl: 'http://127.0.0.1:9',
      token: 'x',
      spoolDir: dir,
      scanIntervalMs: 10_000,
      heartbeatIntervalMs: 10_000,
      includeLoopback: true,
      execSource: { start: (onRecord) => (deliver = onRecord), stop: () => undefined },
    });
    agent.start();
    const shell = spawn('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${target}; sleep 30; true`], {
      stdio: 'ignore',
      detached: true,
    });
    try {
      await sleep(300);
      const record = (pid: number, ppid: number, command: string): ExecRecord => ({
        time: new Date().toISOString(),
        pid,
        ppid,
        uid: process.getuid!(),
        claimedEuid: process.getuid!(),
        cwd: '/',
        command,
      });
      // The hook tells of a command of the shell (it holds the peer's connection), and of a
      // command of that command: both gone by the time their lines are read.
      deliver(record(999_999_990, shell.pid!, 'sh -c ls -la'));
      deliver(record(999_999_991, 999_999_990, 'ls -la'));
      const spooled = agent.spool.pending().filter((e) => e.kind === 'exec');
      expect(spooled.map((e) => [e.command, e.peer, e.peerPort])).to.deep.equal([
        ['sh -c ls -la', '127.0.0.1', target],
        ['ls -la', '127.0.0.1', target],
      ]);
    } finally {
      process.kill(-shell.pid!, 'SIGKILL');
      await agent.stop().catch(() => undefined);
      listener.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('agent: the program', function () {
  this.timeout(20_000);

  it('runs from its environment, reports, and refuses to start without an API address', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'eg-agent-main-'));
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, 'main-secret\n');
    const got: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        got.push(`${req.headers.authorization} ${body}`);
        const events = (JSON.parse(body) as { events: AgentEvent[] }).events;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ lastSeq: events.at(-1)!.seq, stored: events.length }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const main = path.join(import.meta.dirname, 'main.ts');
    const env = {
      ...process.env,
      EG_AGENT_TOKEN_FILE: tokenFile,
      EG_AGENT_SPOOL_DIR: path.join(dir, 'spool'),
      EG_AGENT_HEARTBEAT_MS: '100',
    };
    const refused = spawn(process.execPath, [main], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    refused.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => refused.once('exit', resolve))).to.equal(2);
    expect(stderr).to.include('EG_AGENT_API_URL is not set');

    const agent = spawn(process.execPath, [main], {
      env: { ...env, EG_AGENT_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` },
      stdio: 'ignore',
    });
    try {
      for (let i = 0; i < 100 && got.length === 0; i++) await sleep(50);
      expect(got[0]).to.match(/^Bearer main-secret \{"events":\[/);
    } finally {
      agent.kill('SIGTERM');
      await new Promise((resolve) => agent.once('exit', resolve));
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
