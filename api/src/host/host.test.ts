import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import type { BoxSpec } from '../boxes/orchestrator.ts';
import type { Attack } from '../contracts/index.ts';
import type { Referee, VerdictSink } from '../referee/host.ts';
import { orchestratorContract } from '../testing/orchestrator-contract.ts';
import { TestOrchestrator } from '../testing/orchestrator.ts';
import { testLogger } from '../testing/logger.ts';
import { HostOrchestrator } from './client.ts';
import { serveRuntime } from './serve.ts';
import type { IpcPort } from './rpc.ts';
import { BOX_SSH_CHECK, type ServiceCheck } from '@exploit-grid/operator/catalogue';

/**
 * Two ends of an IPC channel in one process: what one sends the other receives a structured
 * clone of, a turn later, as Node's `advanced` serialization delivers it between processes.
 */
function channel(): [IpcPort & { disconnect(): void }, IpcPort] {
  const a = new EventEmitter();
  const b = new EventEmitter();
  let connected = true;
  const end = (self: EventEmitter, other: EventEmitter) =>
    Object.assign(self, {
      get connected() {
        return connected;
      },
      send(message: unknown, callback?: (error: Error | null) => void) {
        const copy = structuredClone(message);
        setImmediate(() => {
          if (connected) other.emit('message', copy);
          callback?.(connected ? null : new Error('channel closed'));
        });
        return true;
      },
    });
  const api = Object.assign(end(a, b), {
    disconnect() {
      connected = false;
      a.emit('disconnect');
      b.emit('disconnect');
    },
  });
  return [api as never, end(b, a) as never];
}

const rejection = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => expect.fail('expected a rejection'),
    (err: Error) => err,
  );

const spec = (overrides: Partial<BoxSpec> = {}): BoxSpec => ({
  id: randomUUID(),
  slot: 3,
  hostname: 'host-test-box',
  ownerId: randomUUID(),
  power: true,
  rootPassword: 'Secret-pass123',
  sshPublicKey: null,
  agentToken: null,
  loadout: [],
  resources: { memoryMiB: 384, cpuMillis: 500, pids: 300 },
  ...overrides,
});

describe('the API and the host process', () => {
  describe('the runtime served over the channel keeps the runtime contract', () => {
    const owner = randomUUID();
    const other = randomUUID();
    const refused = randomUUID();
    const runtime = new TestOrchestrator();
    const [apiEnd, hostEnd] = channel();
    const served = serveRuntime(hostEnd, runtime, testLogger);
    const orchestrator = new HostOrchestrator(apiEnd, testLogger);
    const box = spec({ ownerId: owner, slot: 9, hostname: 'contract-box' });
    const serials = new Map<string, string>();

    before(async () => {
      orchestrator.setVpnAuthorizer(async (userId) => userId !== refused);
      await orchestrator.start();
      for (const user of [owner, other])
        serials.set(user, (await orchestrator.issueVpnIdentity(user)).serialNumber);
    });
    after(async () => {
      await orchestrator.close();
      await served.stop();
      await runtime.close();
    });

    it('answers the synchronous calls from the host’s state: status, pool and the same client configuration', async () => {
      expect(orchestrator.status()).to.deep.equal(runtime.status());
      expect(orchestrator.poolUsage().UDP.maxClients).to.equal(runtime.poolUsage().UDP.maxClients);
      const identity = await orchestrator.issueVpnIdentity(owner);
      expect(orchestrator.vpnClientConfig('TCP', identity, 'alice')).to.equal(
        runtime.vpnClientConfig('TCP', identity, 'alice'),
      );
    });

    orchestratorContract(() => ({
      orchestrator,
      owner,
      other,
      refused,
      box,
      connect: async (userId) => {
        const known = orchestrator.vpnSessions().find((s) => s.userId === userId);
        if (known) return known;
        const session = await runtime.connectVpn(userId);
        // The API hears of it a turn later.
        await new Promise((resolve) => setTimeout(resolve, 20));
        return session;
      },
      disconnect: async (userId) => {
        runtime.disconnectVpn(userId);
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
      reaches: async (userId) => runtime.reaches(userId, box.id),
      reachedFromBox: async (userId) => runtime.reachedFromBox(box.id, userId),
      holdSsh: async (userId) => {
        if (!runtime.holdSsh(userId, box.id)) throw new Error('the box’s sshd is out of reach');
        return async () => runtime.releaseSsh(userId, box.id);
      },
      serialOf: (userId) => serials.get(userId)!,
      powerOffInside: async () => runtime.powerOffInside(box.id),
      crash: async () => runtime.crash(box.id),
      bootMs: 5000,
    }));
  });

  describe('the host refuses what an honest API would not ask', () => {
    const runtime = new TestOrchestrator();
    const [apiEnd, hostEnd] = channel();
    const served = serveRuntime(hostEnd, runtime, testLogger);
    const orchestrator = new HostOrchestrator(apiEnd, testLogger);
    before(() => orchestrator.start());
    after(async () => {
      await served.stop();
      await runtime.close();
    });

    for (const [what, bad] of [
      ['a hostname that is a path', { hostname: '../../etc' }],
      ['an id that is not a UUID', { id: '../x' }],
      ['a password over two lines', { rootPassword: 'a\nb' }],
      ['a key with a second line', { sshPublicKey: 'ssh-ed25519 AAAA\nroot-command' }],
      ['a memory size beyond the limits', { resources: { memoryMiB: 1 << 30, cpuMillis: 500, pids: 300 } }],
      ['a field the protocol does not have', { privileged: true } as Partial<BoxSpec>],
    ] as const) {
      it(`refuses a box with ${what}, and the runtime never sees it`, async () => {
        const box = spec(bad as Partial<BoxSpec>);
        const error = await rejection(orchestrator.applyBox(box));
        expect(error).to.be.instanceOf(TypeError);
        expect(error.message).to.equal('Bad arguments for applyBox');
        expect(runtime.appliedTo(box.id)).to.have.length(0);
      });
    }

    it('runs service checks in the host for the API, and refuses checks no entry could have', async () => {
      const attacker = randomUUID();
      const target = spec();
      await orchestrator.applyBox(target);
      // No window on the box: nothing is checked.
      expect(await orchestrator.checkServices(attacker, target.id, [BOX_SSH_CHECK], 1000)).to.equal(null);
      orchestrator.setVpnAuthorizer(async () => true);
      expect(await runtime.connectVpn(attacker)).to.not.equal(null);
      await orchestrator.openAttackWindow(attacker, target.id, new Date(Date.now() + 60_000));
      runtime.serviceAnswers.set(target.id, new Map([[8080, false]]));
      const web: ServiceCheck = {
        type: 'http',
        port: 8080,
        path: '/',
        method: 'GET',
        status: 200,
        contains: 'ok',
      };
      const results = await orchestrator.checkServices(attacker, target.id, [BOX_SSH_CHECK, web], 1000);
      expect(results!.map((r) => r.ok)).to.deep.equal([true, false]);
      for (const [what, checks, timeout] of [
        ['a port beyond 65535', [{ ...BOX_SSH_CHECK, port: 70_000 }], 1000],
        ['a path that is no path', [{ ...web, path: 'http://elsewhere/' }], 1000],
        ['a wait of a minute', [BOX_SSH_CHECK], 60_000],
        ['a hundred checks at once', Array(100).fill(BOX_SSH_CHECK), 1000],
      ] as const) {
        const error = await rejection(
          orchestrator.checkServices(attacker, target.id, checks as ServiceCheck[], timeout),
        );
        expect(error.message, what).to.equal('Bad arguments for checkServices');
      }
    });

    it('answers an unknown call with an error and ignores messages that are not calls', async () => {
      const [rawApi, rawHost] = channel();
      const rawServed = serveRuntime(rawHost, runtime, testLogger);
      const answers: unknown[] = [];
      rawApi.on('message', (message) => answers.push(message));
      rawApi.send!({ kind: 'call', id: 1, method: 'destroy', args: [] });
      rawApi.send!({ kind: 'call', id: 2, method: 'constructor', args: [] });
      rawApi.send!('rm -rf /');
      rawApi.send!({ kind: 'call', id: 'x', method: 'boxIds' });
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(answers).to.deep.equal([
        { kind: 'result', id: 1, ok: false, error: { name: 'Error', message: 'No such call: destroy' } },
        { kind: 'result', id: 2, ok: false, error: { name: 'Error', message: 'No such call: constructor' } },
      ]);
      await rawServed.stop();
    });

    it('fails calls in flight, and later ones, when the other process goes away', async () => {
      const [lonelyEnd] = channel();
      const lonely = new HostOrchestrator(lonelyEnd, testLogger);
      const pending = lonely.boxIds();
      lonelyEnd.disconnect();
      expect((await rejection(pending)).message).to.match(/went away/);
      expect((await rejection(lonely.boxIds())).message).to.match(/went away/);
    });
  });

  describe('the referee runs in the host process and writes its verdicts through the API', () => {
    it('passes attacks in and verdicts out, validating both', async () => {
      const attack: Attack = {
        id: randomUUID(),
        attacker: { id: randomUUID(), handle: 'mallory' },
        target: { id: randomUUID(), handle: 'alice' },
        box: null,
        outcome: 'PENDING',
        winnerId: null,
        loserId: null,
        mmrChange: null,
        rated: true,
        services: [],
        servicesUp: true,
        createdAt: new Date().toISOString(),
        endsAt: new Date(Date.now() + 60_000).toISOString(),
        endedAt: null,
      };
      const watched: Attack[] = [];
      let hostSink: VerdictSink | null = null;
      const runtime = new TestOrchestrator();
      Object.assign(runtime, {
        referee: (sink: VerdictSink): Referee => {
          hostSink = sink;
          return {
            start: async () => undefined,
            watch: async (a) => void watched.push(a),
            unwatch: () => undefined,
            settled: async () => undefined,
            close: async () => undefined,
          };
        },
      });
      const [apiEnd, hostEnd] = channel();
      const served = serveRuntime(hostEnd, runtime, testLogger);
      const orchestrator = new HostOrchestrator(apiEnd, testLogger);
      await orchestrator.start();
      const recorded: string[] = [];
      const referee = orchestrator.referee({
        running: async () => [attack],
        recordCommands: async (_id, commands) => commands.map((c) => (recorded.push(c.command), true)),
        recordFoothold: async () => true,
        recordEviction: async () => undefined,
        recordOwn: async (_id, message) => (recorded.push(message), true),
      });
      await referee.start();
      await referee.watch(attack);
      expect(watched).to.deep.equal([attack]);
      expect((await rejection(referee.watch({ ...attack, id: 'not-a-uuid' }))).message).to.match(
        /Bad arguments/,
      );

      const sink = hostSink as unknown as VerdictSink;
      expect(await sink.running()).to.deep.equal([attack]);
      const time = new Date();
      expect(
        await sink.recordCommands(attack.id, [
          { key: 'k', time, user: 'root', uid: 0, cwd: '/root', command: 'id', pid: 42, peer: null },
        ]),
      ).to.deep.equal([true]);
      expect(await sink.recordOwn(attack.id, 'Owned')).to.equal(true);
      expect(recorded).to.deep.equal(['id', 'Owned']);
      await served.stop();
      await runtime.close();
    });
  });
});
