import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { Agent, Spool, type AgentEvent } from './agent.ts';

describe('agent: spool', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'eg-spool-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('numbers events, keeps them on disk until acknowledged, and survives a restart', () => {
    const spool = new Spool(dir);
    for (let i = 0; i < 3; i++)
      spool.add({ kind: 'heartbeat', time: new Date().toISOString(), sessions: [] });
    expect(spool.pending().map((e) => e.seq)).to.deep.equal([1, 2, 3]);
    spool.ack(2);
    const again = new Spool(dir);
    expect(again.pending().map((e) => e.seq)).to.deep.equal([3]);
    expect(again.add({ kind: 'heartbeat', time: new Date().toISOString(), sessions: [] }).seq).to.equal(4);
    again.ack(4);
    expect(
      new Spool(dir).add({ kind: 'heartbeat', time: new Date().toISOString(), sessions: [] }).seq,
    ).to.equal(5);
  });

  it('skips a line cut by a crash and keeps batches within the limits', () => {
    const spool = new Spool(dir);
    spool.add({ kind: 'heartbeat', time: new Date().toISOString(), sessions: [] });
    appendFileSync(path.join(dir, 'spool.jsonl'), '{"kind":"exec","seq":');
    expect(new Spool(dir).pending().map((e) => e.seq)).to.deep.equal([1]);
    const big = new Spool(dir);
    for (let i = 0; i < 700; i++)
      big.add({ kind: 'heartbeat', time: new Date().toISOString(), sessions: [] });
    const batch = big.pending();
    expect(batch.length).to.equal(500);
    expect(JSON.stringify({ events: batch }).length).to.be.lessThan(100_000);
  });
});

describe('agent: reporting process starts to the API', function () {
  this.timeout(30_000);
  let dir: string;
  let server: http.Server;
  let port: number;
  let up = true;
  const received: AgentEvent[] = [];
  const children: ChildProcess[] = [];
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
          const last = received.at(-1)?.seq ?? 0;
          received.push(...events.filter((e) => e.seq > last));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ lastSeq: received.at(-1)?.seq ?? 0, stored: events.length }));
        });
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });

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
      heartbeatIntervalMs: 500,
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

  const run = (script: string, env: NodeJS.ProcessEnv = {}) => {
    const child = spawn('bash', ['-c', `${script}; true`], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
      detached: true,
    });
    children.push(child);
    return child;
  };
  const execs = () => received.filter((e): e is Extract<AgentEvent, { kind: 'exec' }> => e.kind === 'exec');
  const waitFor = async (accept: () => boolean, what: string) => {
    for (let i = 0; i < 200; i++) {
      if (accept()) return;
      await sleep(50);
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  it('reports a command of an ssh session with its peer, user, cwd and parent chain', async () => {
    run('cd /tmp && sleep 20', { SSH_CONNECTION: '10.8.0.7 40000 10.66.1.1 22' });
    await waitFor(() => execs().some((e) => e.command === 'sleep 20'), 'the sleep');
    const event = execs().find((e) => e.command === 'sleep 20')!;
    expect(event).to.include({ peer: '10.8.0.7', cwd: '/tmp', uid: process.getuid!() });
    expect(event.user).to.equal(process.getuid!() === 0 ? 'root' : event.user);
    expect(event.chain[0]!.command).to.match(/^bash -c/);
  });

  it('reports the commands of a reverse shell with the peer it connected to', async () => {
    const listener = http.createServer();
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    const target = (listener.address() as AddressInfo).port;
    run(`exec 3<>/dev/tcp/127.0.0.1/${target}; sleep 0.3; id >/dev/null; sleep 0.3`);
    await waitFor(
      () => execs().some((e) => e.command === 'sleep 0.3' && e.peer === '127.0.0.1'),
      'the shell',
    );
    listener.closeAllConnections();
    listener.close();
  });

  it('keeps events while the API is down and delivers them in order, once, when it is back', async () => {
    up = false;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const before = received.length;
    run('sleep 5 && true', { SSH_CONNECTION: '10.8.0.9 40001 10.66.1.1 22' });
    await sleep(1500);
    expect(received.length).to.equal(before);
    expect(agent.spool.pending().some((e) => e.kind === 'exec' && e.peer === '10.8.0.9')).to.equal(true);
    await listen();
    up = true;
    await waitFor(() => execs().some((e) => e.peer === '10.8.0.9'), 'the delivery after the outage');
    const seqs = received.map((e) => e.seq);
    expect(seqs).to.deep.equal([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).to.equal(seqs.length);
    expect(
      received.some((e) => e.kind === 'heartbeat' && e.sessions.some((s) => s.peer === '10.8.0.9')),
    ).to.equal(true);
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
