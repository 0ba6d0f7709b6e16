import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import {
  heldConnections,
  listPids,
  listensOn,
  programOf,
  readProcess,
  socketInodes,
  tcpEntries,
  tcpTable,
} from './proc.ts';

/** Real processes with real sockets: a listener here, shells that connect to it like reverse shells. */
describe('agent: reading /proc', function () {
  this.timeout(20_000);
  let server: net.Server;
  let port: number;
  const children: ChildProcess[] = [];
  const sockets = new Set<net.Socket>();

  before(async () => {
    server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  after(async () => {
    // Each shell is a process group of its own: its sleep goes with it.
    for (const child of children) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Starts `bash -c script` and answers the pid of the `sleep` it ends up running. */
  async function shell(
    script: string,
    env: NodeJS.ProcessEnv = {},
  ): Promise<{ bash: number; sleep: number }> {
    // `; true` keeps bash as the parent (it would exec a last lone command in its own place).
    const child = spawn('bash', ['-c', `${script}; true`], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
      detached: true,
    });
    children.push(child);
    for (let i = 0; i < 200; i++) {
      const sleeper = listPids().find((pid) => {
        const info = readProcess(pid);
        return info !== null && info.ppid === child.pid && info.command.startsWith('sleep');
      });
      if (sleeper) return { bash: child.pid!, sleep: sleeper };
      await sleep(25);
    }
    throw new Error('the shell never started its sleep');
  }

  it('reads a process: parent, uid, command line, cwd', async () => {
    const { bash, sleep: pid } = await shell('cd /tmp && sleep 30');
    const info = readProcess(pid)!;
    expect(info).to.include({ pid, ppid: bash, uid: process.getuid!(), cwd: '/tmp', command: 'sleep 30' });
    expect(info.startTicks).to.be.a('number').and.greaterThan(0);
    expect(readProcess(999_999_999)).to.equal(null);
  });

  it("finds a reverse shell's connection in the table of its network namespace", async () => {
    const { bash, sleep: pid } = await shell(`exec 3<>/dev/tcp/127.0.0.1/${port}; sleep 30`);
    expect(socketInodes(pid).size).to.be.greaterThan(0);
    const connections = [...tcpTable(pid).values()].filter(
      (c) => c.state === 'ESTABLISHED' && c.remotePort === port,
    );
    expect(connections.map((c) => c.remote)).to.include('127.0.0.1');
    expect(heldConnections(bash, 'ESTABLISHED').map((c) => c.remotePort)).to.deep.equal([port]);
    // The command holds it too (inherited), the listener holds none of it.
    expect(heldConnections(pid, 'ESTABLISHED')).to.have.length(1);
    expect(heldConnections(process.pid, 'LISTEN').map((c) => c.localPort)).to.include(port);
    expect(listensOn(process.pid, port)).to.equal(true);
    expect(listensOn(bash, port)).to.equal(false);
  });

  it('lists the sockets nobody holds any more (TIME_WAIT) in the whole table, not by inode', async () => {
    // Closed from this side first: the socket stays in TIME_WAIT, held by no process (inode 0).
    const client = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    const localPort = client.localPort!;
    client.end();
    await new Promise((resolve) => client.once('close', resolve));
    await sleep(200);
    const waiting = tcpEntries(process.pid).filter((c) => c.localPort === localPort && c.remotePort === port);
    expect(waiting.map((c) => [c.state, c.inode])).to.deep.include(['TIME_WAIT', '0']);
    expect(
      [...tcpTable(process.pid).values()].some((c) => c.localPort === localPort && c.remotePort === port),
    ).to.equal(false);
  });

  it('names the program a process runs by its file, the same for a fork and another for an exec', async () => {
    const { bash, sleep: pid } = await shell('sleep 30');
    const sleepProgram = programOf(pid)!;
    const bashProgram = programOf(bash)!;
    expect(sleepProgram.id).to.not.equal(bashProgram.id);
    expect(sleepProgram.mode & 0o111).to.not.equal(0);
    const { bash: other } = await shell('sleep 31');
    expect(programOf(other)!.id).to.equal(bashProgram.id);
    expect(programOf(999_999_999)).to.equal(null);
  });
});
