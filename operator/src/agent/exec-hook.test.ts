import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { Agent, type AgentEvent } from './agent.ts';
import { JournalSource, parseJournalEntry, type ExecRecord, type ExecSource } from './exec-hook.ts';

const entry = (message: unknown, pid = 4242, uid = 1000) => ({
  SYSLOG_IDENTIFIER: 'snoopy',
  MESSAGE: message,
  _PID: String(pid),
  _UID: String(uid),
  __REALTIME_TIMESTAMP: '1795000000123456',
  __CURSOR: `s=abc;i=${pid}`,
});

describe('agent: exec hook records (snoopy lines in the journal)', () => {
  it('reads a snoopy line with the journal’s trusted pid and uid', () => {
    const record = parseJournalEntry(
      entry('eg1 pid=4242 ppid=4200 uid=1000 euid=0 cwd=/home/a b cmd=cat /etc/shadow'),
    );
    expect(record).to.deep.equal({
      time: new Date(1795000000123.456).toISOString(),
      pid: 4242,
      ppid: 4200,
      uid: 1000,
      claimedEuid: 0,
      cwd: '/home/a b',
      command: 'cat /etc/shadow',
    });
  });

  it('takes the uid from the journal, not from the message', () => {
    const record = parseJournalEntry(entry('eg1 pid=4242 ppid=1 uid=0 euid=0 cwd=/ cmd=id', 4242, 1000));
    expect(record!.uid).to.equal(1000);
  });

  it('drops lines written by hand for another process, other programs’ lines and junk', () => {
    expect(parseJournalEntry(entry('eg1 pid=1 ppid=0 uid=0 euid=0 cwd=/ cmd=bash', 4242))).to.equal(null);
    expect(
      parseJournalEntry({
        ...entry('eg1 pid=4242 ppid=1 uid=0 euid=0 cwd=/ cmd=id'),
        SYSLOG_IDENTIFIER: 'sshd',
      }),
    ).to.equal(null);
    expect(parseJournalEntry(entry('hello'))).to.equal(null);
    expect(parseJournalEntry(entry(null))).to.equal(null);
    expect(
      parseJournalEntry({ ...entry('eg1 pid=4242 ppid=1 uid=0 euid=0 cwd=/ cmd=id'), _PID: 'x' }),
    ).to.equal(null);
  });

  it('reads a message the journal gives as bytes (not UTF-8 clean)', () => {
    const bytes = [...Buffer.from('eg1 pid=4242 ppid=1 uid=1000 euid=1000 cwd=/tmp cmd=echo '), 0xff];
    expect(parseJournalEntry(entry(bytes))!.command).to.match(/^echo /);
  });
});

describe('agent: following the journal', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'eg-journal-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * journalctl as the agent runs it, from a recording: prints the recorded entries after the
   * cursor it is given (all of them without one) and records its arguments.
   */
  function recordedJournalctl(entries: object[]): string {
    const lines = path.join(dir, 'entries.jsonl');
    writeFileSync(lines, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const script = path.join(dir, 'journalctl');
    writeFileSync(
      script,
      `#!/bin/sh
echo "$*" >> "${dir}/calls"
after=$(printf '%s\\n' "$@" | sed -n 's/^--after-cursor=//p')
if [ -n "$after" ]; then sed -n "/$after\\"/,\\$p" "${lines}" | tail -n +2; else cat "${lines}"; fi
exec sleep 30
`,
    );
    chmodSync(script, 0o755);
    return script;
  }

  it('hands over each record, keeps its place, and goes on from there after a restart', async () => {
    const entries = [1, 2, 3].map((i) =>
      entry(`eg1 pid=${100 + i} ppid=1 uid=0 euid=0 cwd=/ cmd=step${i}`, 100 + i, 0),
    );
    const command = recordedJournalctl(entries);
    const cursorFile = path.join(dir, 'cursor');
    const got: ExecRecord[] = [];
    const first = new JournalSource({ cursorFile, command });
    first.start((r) => got.push(r));
    for (let i = 0; i < 100 && got.length < 3; i++) await sleep(20);
    first.stop();
    expect(got.map((r) => r.command)).to.deep.equal(['step1', 'step2', 'step3']);
    expect(readFileSync(cursorFile, 'utf8')).to.equal('s=abc;i=103');

    writeFileSync(cursorFile, 's=abc;i=101');
    const again: ExecRecord[] = [];
    const second = new JournalSource({ cursorFile, command });
    second.start((r) => again.push(r));
    for (let i = 0; i < 100 && again.length < 2; i++) await sleep(20);
    second.stop();
    expect(again.map((r) => r.command)).to.deep.equal(['step2', 'step3']);
    const calls = readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n');
    expect(calls[0]).to.equal(
      '--follow --output=json --all --no-pager --output-fields=SYSLOG_IDENTIFIER,MESSAGE,_PID,_UID ' +
        '--lines=0 SYSLOG_IDENTIFIER=snoopy',
    );
    expect(calls[1]).to.include('--after-cursor=s=abc;i=101');
  });
});

const AGENT_PID = 999_999_990;

describe('agent: program starts from the exec hook', function () {
  this.timeout(20_000);
  let dir: string;
  let agent: Agent;
  let feed: (record: ExecRecord) => void;
  let server: net.Server;
  /** The port of a listener on loopback that stands for a peer (the attacker's end). */
  let peerPort: number;
  const children: ChildProcess[] = [];
  const source: ExecSource = { start: (onRecord) => (feed = onRecord), stop: () => undefined };

  before(async () => {
    server = net.createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    peerPort = (server.address() as net.AddressInfo).port;
  });
  after(() => server.close());
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'eg-hook-'));
    agent = new Agent({
      apiUrl: 'http://127.0.0.1:9',
      token: 't',
      spoolDir: dir,
      execSource: source,
      scanIntervalMs: 60_000,
      heartbeatIntervalMs: 60_000,
      includeLoopback: true,
      // The test's own children stand for the box's processes; a made-up pid for the agent.
      ignorePids: new Set([AGENT_PID]),
    });
    agent.start();
  });
  afterEach(async () => {
    await agent.stop();
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  /** A process holding a connection to the peer (a reverse shell's program), once it holds it. */
  async function connected(command: string): Promise<ChildProcess> {
    const child = spawn('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${peerPort}; exec ${command}`]);
    children.push(child);
    for (let i = 0; i < 100; i++) {
      const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').replace(/\0+$/, '');
      if (cmdline === command.replace(/ /g, '\0')) return child;
      await sleep(20);
    }
    throw new Error(`${command} never ran`);
  }

  const execs = () =>
    agent.spool.pending().filter((e): e is Extract<AgentEvent, { kind: 'exec' }> => e.kind === 'exec');
  const record = (over: Partial<ExecRecord>): ExecRecord => ({
    time: new Date().toISOString(),
    pid: 999_999_998,
    ppid: 1,
    uid: 1000,
    claimedEuid: 1000,
    cwd: '/tmp',
    command: 'id',
    ...over,
  });

  it("reports a program that is gone already, the peer's through its live parent's connection", async () => {
    const shell = await connected('sleep 30');
    feed(record({ ppid: shell.pid! }));
    const [event] = execs();
    expect(event).to.include({
      command: 'id',
      peer: '127.0.0.1',
      peerPort,
      uid: 1000,
      euid: 1000,
      source: 'hook',
    });
    expect(event!.chain[0]!.command).to.equal('sleep 30');
  });

  it('attributes a quick chain (sudo id) whose processes are all gone through what the hook saw', async () => {
    const shell = await connected('sleep 30');
    feed(record({ pid: 999_999_970, ppid: shell.pid!, command: 'sudo -n id' }));
    feed(record({ pid: 999_999_971, ppid: 999_999_970, uid: 0, claimedEuid: 0, command: 'id' }));
    const id = execs().find((e) => e.command === 'id')!;
    expect(id).to.include({ peer: '127.0.0.1', peerPort, uid: 0 });
    expect(id.chain.slice(0, 2).map((p) => p.command)).to.deep.equal(['sudo -n id', 'sleep 30']);
  });

  it('reports nothing of a program whose tree holds no connection', () => {
    const alone = spawn('sleep', ['30']);
    children.push(alone);
    feed(record({ ppid: alone.pid! }));
    expect(execs()).to.deep.equal([]);
  });

  it('believes an effective uid only when /proc shows it', async () => {
    const shell = await connected('sleep 30');
    // Gone: the claim cannot be checked, so it does not count.
    feed(record({ ppid: shell.pid!, claimedEuid: 0 }));
    // Alive, and /proc says otherwise.
    const live = await connected('sleep 31');
    feed(record({ pid: live.pid!, ppid: process.pid, uid: 0, claimedEuid: 4321, command: 'sleep 31' }));
    expect(execs().map((e) => e.euid)).to.deep.equal([1000, 0]);
  });

  it('reports a program once when the scan saw it too, whichever came first', async () => {
    const child = await connected('sleep 31');
    agent.scan();
    const scanned = execs().filter((e) => e.pid === child.pid);
    expect(scanned.map((e) => e.source)).to.deep.equal(['scan']);
    feed(record({ pid: child.pid!, ppid: process.pid, uid: 0, claimedEuid: 0, command: 'sleep 31' }));
    expect(execs().filter((e) => e.pid === child.pid)).to.have.length(1);
    // Hook first, scan later.
    const other = await connected('sleep 32');
    feed(record({ pid: other.pid!, ppid: process.pid, uid: 0, claimedEuid: 0, command: 'sleep 32' }));
    agent.scan();
    expect(
      execs()
        .filter((e) => e.pid === other.pid)
        .map((e) => e.source),
    ).to.deep.equal(['hook']);
  });

  it('leaves out the agent’s own children', async () => {
    await connected('sleep 30');
    feed(record({ ppid: AGENT_PID, command: 'journalctl --follow' }));
    expect(execs()).to.have.length(0);
  });
});
