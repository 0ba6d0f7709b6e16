import { randomUUID } from 'node:crypto';
import type { BoxSpec } from '../boxes/orchestrator.ts';
import { orchestratorContract } from './orchestrator-contract.ts';
import { TestOrchestrator } from './orchestrator.ts';

/**
 * The test double keeps the box runtime's contract (the real local runtime runs the same tests
 * in api/src/boxes/local/runtime.test.ts), so the API's tests on it test what production does.
 */
describe('the box runtime’s test double keeps the runtime contract', () => {
  const owner = randomUUID();
  const other = randomUUID();
  const refused = randomUUID();
  const orchestrator = new TestOrchestrator();
  const box: BoxSpec = {
    id: randomUUID(),
    slot: 9,
    hostname: 'contract-box',
    ownerId: owner,
    power: true,
    rootPassword: 'contract-password',
    sshPublicKey: null,
    agentToken: null,
    loadout: [],
    resources: { memoryMiB: 384, cpuMillis: 500, pids: 300 },
  };
  const serials = new Map<string, string>();

  before(async () => {
    await orchestrator.start();
    orchestrator.setVpnAuthorizer(async (userId) => userId !== refused);
    for (const user of [owner, other])
      serials.set(user, (await orchestrator.issueVpnIdentity(user)).serialNumber);
  });
  after(() => orchestrator.close());

  orchestratorContract(() => ({
    orchestrator,
    owner,
    other,
    refused,
    box,
    connect: async (userId) =>
      orchestrator.vpnSessions().find((s) => s.userId === userId) ?? (await orchestrator.connectVpn(userId)),
    disconnect: async (userId) => orchestrator.disconnectVpn(userId),
    reaches: async (userId) => orchestrator.reaches(userId, box.id),
    reachedFromBox: async (userId) => orchestrator.reachedFromBox(box.id, userId),
    holdSsh: async (userId) => {
      if (!orchestrator.holdSsh(userId, box.id)) throw new Error('the box’s sshd is out of reach');
      return async () => orchestrator.releaseSsh(userId, box.id);
    },
    serialOf: (userId) => serials.get(userId)!,
    powerOffInside: async () => orchestrator.powerOffInside(box.id),
    crash: async () => orchestrator.crash(box.id),
    bootMs: 5000,
  }));
});
