import { expect } from 'chai';
import { AttackJudge, type AttackerAddress, type ExecFacts, type HeldConnection } from './judge.ts';

describe('referee: the judge', () => {
  const BASE = 268435456;
  const WINDOW = 1_000_000;
  const attacker: AttackerAddress = { address: '10.201.0.2', since: WINDOW - 60_000 };
  const bash = 100n;
  const sshd = 200n;
  const node = 300n;

  /** A box: which processes hold which connections, and when processes started. */
  function box() {
    const holding = new Map<number, HeldConnection[]>();
    const listening = new Map<number, number>();
    const judge = new AttackJudge({
      uidBase: BASE,
      windowStart: WINDOW,
      watchingSince: () => 0,
      wall: (n: bigint) => WINDOW + 1_000 + Number(n),
      attackerAddress: (remote) => (remote === attacker.address ? attacker : null),
      facts: {
        judges: (pid) => pid !== 1,
        connections: (pid) => holding.get(pid) ?? [],
        listens: (pid, port) => listening.get(pid) === port,
      },
    });
    const hold = (pid: number, remote: string, openedAt: number | null, localPort = 22) =>
      holding.set(pid, [{ remote, remotePort: 50000 + pid, localPort, openedAt: () => openedAt }]);
    return { judge, hold, listening };
  }
  /** A judge whose box holds one connection from `address`, everywhere. */
  const holdingOne = (address: AttackerAddress, openedAt: () => number | null, watchingSince = 0) =>
    new AttackJudge({
      uidBase: BASE,
      windowStart: WINDOW,
      watchingSince: () => watchingSince,
      wall: (n: bigint) => WINDOW + 1_000 + Number(n),
      attackerAddress: (remote) => (remote === address.address ? address : null),
      facts: {
        judges: () => true,
        connections: () => [{ remote: address.address, remotePort: 50000, localPort: 40000, openedAt }],
        listens: () => false,
      },
    });
  let ns = 0n;
  const exec = (fields: Partial<ExecFacts> & { pid: number; ancestors: number[] }): ExecFacts => ({
    ns: ++ns,
    uid: BASE + 1000,
    euid: BASE + 1000,
    previousProgram: bash,
    program: bash,
    parentProgram: bash,
    mode: 0o100755,
    cwd: '/',
    ...fields,
  });

  it('gives the attacker a new program in a tree holding their connection, and everything below it', () => {
    const { judge, hold } = box();
    hold(20, attacker.address, WINDOW + 5);
    const shell = judge.exec(
      exec({ pid: 21, ancestors: [20, 1], previousProgram: node, parentProgram: node }),
      'sh',
    );
    expect(shell).to.deep.include({ peer: attacker.address, peerPort: 50020, boxUid: 1000 });
    // Its commands, wherever the connection is by then.
    const id = judge.exec(exec({ pid: 22, ancestors: [21, 20, 1], uid: BASE, euid: BASE }), 'sudo id');
    expect(id).to.deep.include({ peer: attacker.address, peerPort: 50020, boxUid: 0 });
    judge.fork({ ns: ++ns, parent: 21, child: 23 });
    expect(judge.processes().map((p) => p.pid)).to.have.members([21, 22, 23]);
  });

  it('gives nobody sshd re-executing itself, a connection of before the window or after the exec, or a half-read exec', () => {
    const { judge, hold, listening } = box();
    // sshd's child re-executes sshd for the attacker's connection to the port sshd listens on.
    listening.set(10, 22);
    hold(11, attacker.address, WINDOW + 5);
    expect(
      judge.exec(
        exec({
          pid: 11,
          ancestors: [10, 1],
          previousProgram: sshd,
          program: sshd,
          parentProgram: sshd,
          uid: BASE,
        }),
        'sshd -R',
      ),
    ).to.equal(null);
    // The attacker's own bash running bash (its parent listens nowhere) is a new program.
    hold(31, attacker.address, WINDOW + 5, 40000);
    expect(judge.exec(exec({ pid: 31, ancestors: [30, 1] }), 'bash -i')).to.deep.include({ pid: 31 });
    // The owner's session from an address opened before the window (the attacker holds it now).
    hold(40, attacker.address, WINDOW - 10_000);
    expect(
      judge.exec(exec({ pid: 41, ancestors: [40, 1], previousProgram: sshd, parentProgram: sshd }), 'id'),
    ).to.equal(null);
    // sshd restarted by the defender during the window still accepted the connection.
    listening.set(12, 22);
    hold(13, attacker.address, WINDOW + 200);
    expect(
      judge.exec(
        exec({
          pid: 13,
          ancestors: [12, 1],
          previousProgram: 0n,
          program: sshd,
          parentProgram: sshd,
          uid: BASE,
        }),
        'sshd -R',
      ),
    ).to.equal(null);
    // An exec read without its ancestors (lost lines) is nobody's.
    hold(14, attacker.address, WINDOW + 5);
    expect(judge.exec(exec({ pid: 14, ancestors: [], uid: BASE }), 'bash')).to.equal(null);
    // A connection that opened after the exec (judged late) was not what the exec was for.
    hold(15, attacker.address, WINDOW + 60_000);
    expect(judge.exec(exec({ pid: 16, ancestors: [15, 1], previousProgram: node }), 'cron job')).to.equal(
      null,
    );
    // The box's init never counts as holding.
    hold(1, attacker.address, WINDOW + 5);
    expect(judge.exec(exec({ pid: 51, ancestors: [1], previousProgram: node }), 'cron job')).to.equal(null);
  });

  it('gives nobody a connection from an address the attacker got after it opened (a reused VPN address)', () => {
    const reused: AttackerAddress = { address: '10.201.0.9', since: WINDOW + 60_000 };
    const j = holdingOne(reused, () => WINDOW + 30_000);
    expect(j.exec(exec({ pid: 61, ancestors: [60], previousProgram: node }), 'bash')).to.equal(null);
  });

  it('asks again when a held connection’s opening is not known yet, and then trusts only what the tracer told', () => {
    let openedAt: number | null = null;
    const j = holdingOne(attacker, () => openedAt);
    const first = j.exec(exec({ pid: 71, ancestors: [70], previousProgram: node }), 'bash -i');
    expect(first).to.have.property('retry');
    const retry = (first as { retry: (final: boolean) => unknown }).retry;
    expect(retry(false)).to.equal('unknown');
    openedAt = WINDOW + 1;
    expect(retry(false)).to.deep.include({ pid: 71 });
    // Never told: older than a tracer that watched since before the window.
    const never = holdingOne(attacker, () => null, WINDOW - 1000);
    const unknown = never.exec(exec({ pid: 81, ancestors: [80], previousProgram: node }), 'bash -i');
    expect((unknown as { retry: (final: boolean) => unknown }).retry(true)).to.equal(null);
  });
});
