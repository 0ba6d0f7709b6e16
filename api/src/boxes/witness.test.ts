import { expect } from 'chai';
import { FlowRecord, type ReportedFlow } from './witness.ts';

describe('boxes: what the routers saw of the attack windows’ flows', () => {
  const flow = (client: string, clientPort: number, openedSecondsAgo: number): ReportedFlow => ({
    client,
    clientPort,
    box: '10.200.1.8',
    boxPort: 22,
    openedSecondsAgo,
    idleSeconds: 0,
  });

  it('keeps the few flows of one attack when another player churns connections past the cap', () => {
    const record = new FlowRecord({ maxFlows: 10 });
    const now = Date.now();
    // The attacker's three flows are the oldest of all; the churner's twenty came later.
    const attacker = [1, 2, 3].map((port) => flow('10.201.0.2', port, 100));
    const churner = Array.from({ length: 20 }, (_, i) => flow('10.201.0.3', 1000 + i, 50 - i));
    record.report('arena-udp-0', [...attacker, ...churner], now);
    const kept = record.flows('10.200.1.8');
    expect(kept).to.have.length(10);
    expect(
      kept
        .filter((f) => f.client === '10.201.0.2')
        .map((f) => f.clientPort)
        .sort(),
    ).to.deep.equal([1, 2, 3]);
    // The churner keeps its newest.
    expect(
      kept
        .filter((f) => f.client === '10.201.0.3')
        .map((f) => f.clientPort)
        .sort((a, b) => a - b),
    ).to.deep.equal([1013, 1014, 1015, 1016, 1017, 1018, 1019]);
  });

  it('remembers a flow told again with the same opening once, and a later opening on its ports as a new one', () => {
    const record = new FlowRecord();
    const now = Date.now();
    record.report('arena-udp-0', [flow('10.201.0.2', 4444, 10)], now);
    record.report('arena-udp-0', [flow('10.201.0.2', 4444, 12)], now + 2000);
    expect(record.flows('10.200.1.8').map((f) => f.openedAt)).to.deep.equal([now - 10_000]);
    record.report('arena-udp-0', [flow('10.201.0.2', 4444, 0)], now + 60_000);
    expect(record.flows('10.200.1.8').map((f) => f.openedAt)).to.deep.equal([now + 60_000]);
  });
});
