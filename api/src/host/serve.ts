import type { Logger } from '../logger.ts';
import { BoxHasNoDisk, SnapshotImageGone, type BoxOrchestrator } from '../boxes/orchestrator.ts';
import type { Referee, VerdictSink } from '../referee/host.ts';
import { apiEvents, apiMethods, hostEvents, hostMethods, type HostState } from './protocol.ts';
import { RpcPeer, type IpcPort } from './rpc.ts';

export type HostPeer = RpcPeer<typeof hostMethods, typeof apiMethods, typeof hostEvents, typeof apiEvents>;

/** How often the runtime's status is looked at for changes the API should hear of (image builds). */
const STATE_POLL_MS = 500;

/**
 * The host process's side: serves a box runtime (the local one, run as root) to the API over
 * its IPC channel. The VPN's authorizer and the referee's verdicts go back to the API.
 * `stop` stops serving; the caller closes the runtime.
 */
export function serveRuntime(
  port: IpcPort,
  runtime: BoxOrchestrator,
  logger: Logger,
): { peer: HostPeer; stop(): Promise<void> } {
  const log = logger.child({ component: 'host' });
  const peer: HostPeer = new RpcPeer({
    port,
    serves: hostMethods,
    calls: apiMethods,
    emits: hostEvents,
    hears: apiEvents,
    logger: log,
  });
  let referee: Referee | null = null;
  let lastState = '';

  const state = (): HostState => {
    const status = runtime.status();
    return {
      status,
      sessions: runtime.vpnSessions(),
      pool: runtime.poolUsage(),
      vpnProfile: status.available ? (runtime.vpnProfile?.() ?? null) : null,
    };
  };
  const pushState = () => {
    const now = state();
    const key = JSON.stringify(now);
    if (key === lastState) return;
    lastState = key;
    peer.emit('state', now);
  };
  const timer = setInterval(pushState, STATE_POLL_MS);
  timer.unref();

  runtime.setVpnAuthorizer((userId) => peer.call('authorize', userId));
  runtime.events.on('vpnConnected', (session) => {
    peer.emit('vpnConnected', session);
    pushState();
  });
  runtime.events.on('vpnDisconnected', (session) => {
    peer.emit('vpnDisconnected', session);
    pushState();
  });
  runtime.events.on('boxChanged', (id) => peer.emit('boxChanged', id));

  const sink: VerdictSink = {
    running: () => peer.call('running'),
    recordCommands: (attackId, commands) => peer.call('recordCommands', attackId, commands),
    recordFoothold: (attackId, message) => peer.call('recordFoothold', attackId, message),
    recordEviction: (attackId, message) => peer.call('recordEviction', attackId, message),
    recordOwn: (attackId, message) => peer.call('recordOwn', attackId, message),
  };
  const running = (): Referee => {
    if (!referee) throw new Error('The referee is not running.');
    return referee;
  };
  const closeReferee = async () => {
    const was = referee;
    referee = null;
    await was?.close();
  };

  peer.serve({
    start: async () => {
      await runtime.start();
      const now = state();
      lastState = JSON.stringify(now);
      return now;
    },
    applyBox: (spec) => runtime.applyBox(spec),
    deleteBox: (id) => runtime.deleteBox(id),
    boxIds: () => runtime.boxIds(),
    issueVpnIdentity: (userId) => runtime.issueVpnIdentity(userId),
    setRevoked: (revoked) => runtime.setRevoked(revoked),
    openAttackWindow: (attacker, box, until) => runtime.openAttackWindow(attacker, box, until),
    closeAttackWindow: (attacker, box) => runtime.closeAttackWindow(attacker, box),
    snapshotBox: async (box, snapshot) => {
      if (!runtime.snapshotBox) throw new Error('This box runtime takes no snapshots.');
      try {
        return await runtime.snapshotBox(box, snapshot);
      } catch (err) {
        if (err instanceof BoxHasNoDisk) return { sizeBytes: null };
        throw err;
      }
    },
    // An error that means something to the API crosses the channel as an answer.
    restoreBox: async (box, snapshot) => {
      if (!runtime.restoreBox) throw new Error('This box runtime takes no snapshots.');
      try {
        await runtime.restoreBox(box, snapshot);
        return 'restored' as const;
      } catch (err) {
        if (err instanceof SnapshotImageGone) return 'image-gone' as const;
        throw err;
      }
    },
    deleteSnapshot: async (box, snapshot) => runtime.deleteSnapshot?.(box, snapshot),
    checkServices: async (attacker, box, checks, timeoutMs) =>
      runtime.checkServices ? runtime.checkServices(attacker, box, checks, timeoutMs) : null,
    prepareSpares: async (slots) => runtime.prepareSpares?.(slots),
    spareLoadout: async (slot) => (runtime.spareLoadout ? runtime.spareLoadout(slot) : null),
    // The API lets go; the host process closes the runtime once the API has exited.
    close: closeReferee,
    refereeStart: async () => {
      if (!runtime.referee || !runtime.status().available) return false;
      if (referee) return true;
      const made = runtime.referee(sink);
      await made.start();
      referee = made;
      return true;
    },
    refereeWatch: (attack) => running().watch(attack),
    refereeUnwatch: async (attackId) => running().unwatch(attackId),
    refereeSettled: () => running().settled(),
    refereeClose: closeReferee,
  });

  return {
    peer,
    stop: async () => {
      clearInterval(timer);
      await closeReferee();
      peer.close();
    },
  };
}
