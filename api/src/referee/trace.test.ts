import { expect } from 'chai';
import { TraceParser } from './trace.ts';

const hex = (bytes: string | number[]) =>
  [...Buffer.from(bytes as string)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');

describe('referee: the trace parser', () => {
  it('gathers an exec from its lines, whatever comes between them', () => {
    const parser = new TraceParser();
    const argv = 'bash\0-c\0id; echo "a b"\0';
    const lines = [
      `X 1000 42 268435489 268435489 11 12 33261 ${argv.length} 7 11`,
      'F 1001 9 10',
      'P 1000 42 41',
      'P 1000 42 1',
      `A 1000 42 ${hex(argv.slice(0, 10))}`,
      `A 1000 42 ${hex(argv.slice(10))}`,
      `D 1000 42 3 ${hex('tmp')}`,
      `D 1000 42 3 ${hex('var\0\0garbage')}`,
      'Z 1000 42',
    ];
    const events = lines.map((line) => parser.line(line)).filter((e) => e !== null);
    expect(events.map((e) => e.kind)).to.deep.equal(['fork', 'exec']);
    expect(events[1]).to.deep.include({
      pid: 42,
      uid: 268435489,
      ancestors: [41, 1],
      argv: ['bash', '-c', 'id; echo "a b"'],
      argvTruncated: false,
      cwd: '/var/tmp',
      previousProgram: 11n,
      program: 12n,
      parentProgram: 11n,
    });
  });

  it('passes over the program starts of boxes nobody attacks, line by line, and reads the others', () => {
    const attacked = 268435456 + 65536;
    const parser = new TraceParser({ wants: (uid) => uid - (uid % 65536) === attacked });
    const lines = [
      `X 4000 70 ${268435456 + 33} ${268435456 + 33} 1 2 33261 4 7 1`,
      `X 4000 71 ${attacked + 33} ${attacked + 33} 1 2 33261 4 7 1`,
      'P 4000 70 69',
      'P 4000 71 69',
      `A 4000 70 ${hex('top\0')}`,
      `A 4000 71 ${hex('id\0')}`,
      'Z 4000 70',
      'Z 4000 71',
      // The skipped event's key is forgotten at its Z: a stray line of it is malformed again.
      'P 4000 70 1',
    ];
    const events = lines.map((line) => parser.line(line)).filter((e) => e !== null);
    expect(events).to.have.length(1);
    expect(events[0]).to.deep.include({ pid: 71, ancestors: [69], argv: ['id'] });
    expect(parser.dropped).to.equal(1);
  });

  it('cannot be fed a line by a command: arguments are hex, a newline in one stays in it', () => {
    const parser = new TraceParser();
    const argv = 'sh\0-c\0echo hi\nZ 1 1\nX 5 5 0 0 0 0 0 0 0 0\0';
    parser.line(`X 2000 50 268435489 268435489 1 2 33261 ${argv.length} 7 1`);
    parser.line(`A 2000 50 ${hex(argv)}`);
    const event = parser.line('Z 2000 50');
    expect(event).to.deep.include({ pid: 50, argv: ['sh', '-c', 'echo hi\nZ 1 1\nX 5 5 0 0 0 0 0 0 0 0'] });
    expect(parser.dropped).to.equal(0);
  });

  it('marks a command line longer than the event carries, and drops what does not parse', () => {
    const parser = new TraceParser();
    parser.line('X 3000 60 268435456 268435456 1 2 33261 9999 7 1');
    parser.line(`A 3000 60 ${hex('yes\0')}`);
    expect(parser.line('Z 3000 60')).to.deep.include({ argv: ['yes'], argvTruncated: true });
    expect(parser.line('X 3000 not-a-pid 0 0 0 0 0 0 0 0')).to.equal(null);
    expect(parser.line('Z 9 9')).to.equal(null);
    expect(parser.line('Attaching 5 probes...')).to.equal(null);
    // bpftrace's word that its buffers overflowed.
    expect(parser.line('Lost 12 events')).to.deep.equal({ kind: 'lost', count: 12 });
    expect(parser.dropped).to.equal(2);
  });

  it('reads arena connections as the socket saw them', () => {
    const parser = new TraceParser();
    expect(
      parser.line(`S 4000 2 1 40000 4444 ${hex([10, 200, 1, 1])} ${hex([10, 201, 0, 2])} 4026532001`),
    ).to.deep.equal({
      kind: 'tcp',
      ns: 4000n,
      change: 'open',
      source: '10.200.1.1',
      sourcePort: 40000,
      destination: '10.201.0.2',
      destinationPort: 4444,
      netns: 4026532001,
    });
    expect(
      parser.line(`S 4001 1 7 40000 4444 ${hex([10, 200, 1, 1])} ${hex([10, 201, 0, 2])} 4026532001`),
    ).to.deep.include({
      change: 'close',
    });
  });
});
