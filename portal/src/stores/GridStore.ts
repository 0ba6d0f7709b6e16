import {
  GRID_TIMINGS,
  targetInfoSchema,
  type Attack,
  type AttackEndedPayload,
  type AttackOutcome,
  type BlockedUser,
  type GridClientToServerEvents,
  type GridInitialState,
  type GridPlayer,
  type PvpIncomingPayload,
  type ServiceState,
  type TargetBox,
  type TargetInfo,
} from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, observableRef, runInAction } from 'mobx';
import { serverMessageOf } from '../api/ApiError.ts';
import { log } from '../logging.ts';
import { playSound as playBrowserSound, type SoundPlayer } from '../notifications/sounds.ts';
import { toast } from '../notifications/toast.ts';
import type { GridSocket } from '../realtime/sockets.ts';
import {
  ATTACK_CALLED_OFF,
  GRID_NOT_READY,
  OUTCOME_OVERLAY_MS,
  PVP_PROMPT_MS,
  SOUNDS,
  TARGET_INFO_FAILED,
  attackCancelFailed,
  pvpAccepted,
  pvpDeclined,
  pvpSent,
} from '../strings/grid.ts';
import { keepGridPart } from './gridStorage.ts';
import type { RootStore } from './RootStore.ts';

/** The 5 s win/lose overlay of an attack this operator was in. */
export type AttackResult = {
  attackId: string;
  outcome: AttackOutcome;
  won: boolean;
  opponent: string;
  /** False for a fight past the pair's rated fights of the day: no MMR moved. */
  rated: boolean;
};

/** The target popup: a player picked on the globe, and what GET /attack/target-info said about them. */
export type Selection = {
  playerId: string;
  info: TargetInfo | null;
  loading: boolean;
};

/** An open PVP challenge to this operator, until it is answered or its 30 s run out. */
export type PvpPrompt = PvpIncomingPayload;

/**
 * The Grid (core-app sections 2, 7): who is online and where, the attacks in flight, this operator's active
 * attack and its outcome, the target popup, PVP challenges and blocks. The RealtimeStore hands it the /grid
 * socket, and `attach` is the one place that listens to the game's events: it hands matchmaking's to the
 * MatchmakingStore and notifications to the NotificationsStore. The active attack is persisted per operator
 * (gridStorage.ts), so a reload keeps it.
 */
export class GridStore {
  readonly players = observable.map<string, GridPlayer>([], { deep: false });
  readonly attacks = observable.map<string, Attack>([], { deep: false });
  blockedUsers: readonly BlockedUser[] = [];
  /** `initialState` has arrived on the current socket. */
  initialized = false;
  activeAttack: Attack | null = null;
  attackResult: AttackResult | null = null;
  pvpPrompts: readonly PvpPrompt[] = [];
  selection: Selection | null = null;

  private readonly root: RootStore;
  private readonly play: SoundPlayer;
  private socket: GridSocket | null = null;
  private overlayTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly pvpTimers = new Map<string, ReturnType<typeof setTimeout>>();
  /** GET /attack/target-info answers, kept 5 min; this account's only, like the rest of the store. */
  private readonly targetInfoCache = new Map<string, { info: TargetInfo; at: number }>();
  /** Bumped by every selection and by a reset, so that an overtaken target-info answer is dropped. */
  private selectionRevision = 0;

  constructor(root: RootStore, storage: Storage, play: SoundPlayer = playBrowserSound) {
    this.root = root;
    this.play = play;
    makeObservable<
      this,
      'applyInitialState' | 'applyAttackEnded' | 'applyAttackBox' | 'applyAttackServices' | 'reset'
    >(this, {
      blockedUsers: observableRef,
      initialized: observable,
      activeAttack: observableRef,
      attackResult: observableRef,
      pvpPrompts: observableRef,
      selection: observableRef,
      me: computed,
      incomingAttack: computed,
      selectedPlayer: computed,
      onlinePlayers: computed,
      targetIds: computed,
      arcs: computed,
      applyInitialState: action,
      applyAttackStarted: action,
      applyAttackEnded: action,
      applyAttackBox: action,
      applyAttackServices: action,
      select: action,
      closeSelection: action,
      dismissResult: action,
      reset: action,
    });
    // Another account (or none): nothing of the previous one stays; the new one gets back its active attack.
    keepGridPart(root, storage, 'activeAttack', {
      read: () => this.activeAttack,
      reset: () => this.reset(),
      restore: (attack) => (this.activeAttack = attack),
    });
  }

  // ---- derived state ------------------------------------------------------------------------

  get me(): string | null {
    return this.root.auth.user?.id ?? null;
  }

  /** An attack on this operator's box that is running now. */
  get incomingAttack(): Attack | null {
    const me = this.me;
    for (const attack of this.attacks.values())
      if (attack.target.id === me && attack.outcome === 'PENDING') return attack;
    return this.activeAttack && this.activeAttack.target.id === me ? this.activeAttack : null;
  }

  get onlinePlayers(): GridPlayer[] {
    return [...this.players.values()].sort((a, b) => b.mmr - a.mmr || a.handle.localeCompare(b.handle));
  }

  /** Players under attack now (drawn apart on the globe). */
  get targetIds(): ReadonlySet<string> {
    return new Set([...this.attacks.values()].map((attack) => attack.target.id));
  }

  get selectedPlayer(): GridPlayer | null {
    return this.selection ? (this.players.get(this.selection.playerId) ?? null) : null;
  }

  /** Running attacks between two players whose places are known: the globe's arcs. */
  get arcs(): { attack: Attack; from: GridPlayer; to: GridPlayer }[] {
    const arcs = [];
    for (const attack of this.attacks.values()) {
      const from = this.players.get(attack.attacker.id);
      const to = this.players.get(attack.target.id);
      if (from?.latitude != null && to?.latitude != null) arcs.push({ attack, from, to });
    }
    return arcs;
  }

  isBlocked(userId: string): boolean {
    return this.blockedUsers.some((user) => user.id === userId);
  }

  // ---- the socket ---------------------------------------------------------------------------

  /**
   * The RealtimeStore opened the /grid socket: every game event is handled from here on, each by the store it
   * is for (the ChatStore listens to the chat's).
   */
  attach(socket: GridSocket) {
    this.socket = socket;
    const { matchmaking, notifications } = this.root;
    socket.on('readyForState', () => matchmaking.stateRequested());
    socket.on('initialState', (state) => this.applyInitialState(state));
    socket.on('disconnect', () => runInAction(() => (this.initialized = false)));
    socket.on('playerUpdated', (player) =>
      runInAction(() => {
        this.players.set(player.id, player);
        // The top bar shows the operator's MMR: an attack just moved it.
        const user = this.root.auth.user;
        if (user && user.id === player.id && user.mmr !== player.mmr)
          this.root.auth.setUser({ ...user, mmr: player.mmr });
      }),
    );
    socket.on('playerOffline', (playerId) =>
      runInAction(() => {
        this.players.delete(playerId);
        if (this.selection?.playerId === playerId) this.selection = null;
      }),
    );
    socket.on('attackStarted', (attack) => this.applyAttackStarted(attack));
    socket.on('attackEnded', (payload) => this.applyAttackEnded(payload));
    socket.on('attackBoxUpdated', ({ attackId, box }) => this.applyAttackBox(attackId, box));
    socket.on('attackServices', ({ attackId, services }) => this.applyAttackServices(attackId, services));
    socket.on('match:found', (proposal) => matchmaking.applyMatchFound(proposal));
    socket.on('match:expired', (payload) => matchmaking.applyMatchExpired(payload));
    socket.on('queue:noMatch', ({ message }) => matchmaking.applyNoMatch(message));
    socket.on('pvp:request:incoming', (prompt) => this.addPvpPrompt(prompt));
    socket.on('pvp:request:accepted', ({ attack }) => {
      this.applyAttackStarted(attack);
      // Both players hear of it; the challenger (the attacker) is the one told to engage.
      if (attack.attacker.id === this.me) toast.success(pvpAccepted(attack.target.handle));
    });
    socket.on('pvp:request:declined', ({ decliner }) => toast.error(pvpDeclined(decliner.handle)));
    socket.on('userBlocked', (user) =>
      runInAction(() => {
        if (!this.isBlocked(user.id)) this.blockedUsers = [...this.blockedUsers, user];
      }),
    );
    socket.on('userUnblocked', ({ id }) =>
      runInAction(() => (this.blockedUsers = this.blockedUsers.filter((user) => user.id !== id))),
    );
    socket.on('notification', (notification) => notifications.notify(notification));
  }

  /** The socket closed (leaving the signed-in pages, a new token): presence is unknown until the next one. */
  detach() {
    this.socket = null;
    runInAction(() => {
      this.initialized = false;
      this.players.clear();
      this.attacks.clear();
    });
  }

  private applyInitialState(state: GridInitialState) {
    this.players.replace(state.players.map((player) => [player.id, player]));
    this.attacks.replace(state.attacks.map((attack) => [attack.id, attack]));
    this.blockedUsers = state.blockedUsers;
    this.initialized = true;
    // The attack kept from before survives only if it still runs; one of ours that runs is the active one.
    const me = this.me;
    const mine = state.attacks.find(
      (attack) => attack.outcome === 'PENDING' && (attack.attacker.id === me || attack.target.id === me),
    );
    const kept = this.activeAttack ? this.attacks.get(this.activeAttack.id) : undefined;
    this.activeAttack = kept ? { ...kept, box: kept.box ?? this.activeAttack?.box ?? null } : (mine ?? null);
    // The match kept from before, and a queue left in an earlier visit, are checked against the server too.
    this.root.matchmaking.applyInitialState();
  }

  // ---- attacks ------------------------------------------------------------------------------

  /** An attack started (broadcast, engage answer, accepted challenge); one of ours ends matchmaking. */
  applyAttackStarted(attack: Attack) {
    this.attacks.set(attack.id, attack);
    const me = this.me;
    if (attack.attacker.id !== me && attack.target.id !== me) return;
    // A box the engage answer carried is kept when the broadcast has none.
    const box = attack.box ?? (this.activeAttack?.id === attack.id ? this.activeAttack.box : null);
    this.activeAttack = { ...attack, box };
    this.root.matchmaking.attackStarted();
  }

  private applyAttackEnded({ attackId, result, winnerId }: AttackEndedPayload) {
    const attack =
      this.attacks.get(attackId) ?? (this.activeAttack?.id === attackId ? this.activeAttack : null);
    this.attacks.delete(attackId);
    if (this.activeAttack?.id === attackId) this.activeAttack = null;
    const me = this.me;
    if (!attack || (attack.attacker.id !== me && attack.target.id !== me)) return;
    if (result === 'CANCELLED') {
      if (attack.attacker.id === me) toast.show(ATTACK_CALLED_OFF);
      return;
    }
    const won = winnerId === me;
    this.attackResult = {
      attackId,
      outcome: result,
      won,
      opponent: attack.attacker.id === me ? attack.target.handle : attack.attacker.handle,
      rated: attack.rated,
    };
    this.play(won ? SOUNDS.victory : SOUNDS.defeat);
    if (this.overlayTimer) clearTimeout(this.overlayTimer);
    this.overlayTimer = setTimeout(() => this.dismissResult(), OUTCOME_OVERLAY_MS);
  }

  private applyAttackBox(attackId: string, box: TargetBox) {
    const attack = this.attacks.get(attackId);
    if (attack) this.attacks.set(attackId, { ...attack, box });
    if (this.activeAttack?.id === attackId) this.activeAttack = { ...this.activeAttack, box };
  }

  private applyAttackServices(attackId: string, services: ServiceState[]) {
    const attack = this.attacks.get(attackId);
    if (attack) this.attacks.set(attackId, { ...attack, services });
    if (this.activeAttack?.id === attackId) this.activeAttack = { ...this.activeAttack, services };
  }

  dismissResult() {
    this.attackResult = null;
  }

  /** 'Too Hard For Me': the attacker calls the attack off. */
  async cancelAttack(): Promise<void> {
    const attack = this.activeAttack;
    if (!attack) return;
    try {
      await this.root.api.send('POST', `/attack/${encodeURIComponent(attack.id)}/cancel`);
    } catch (error) {
      log.warn('Could not cancel the attack', error);
      toast.error(attackCancelFailed(serverMessageOf(error) ?? messageOf(error)));
    }
  }

  // ---- the target popup, PVP and blocks --------------------------------------------------------

  /** Picks a player on the globe: the popup opens and their target info loads (cached 5 min). */
  select(playerId: string) {
    const revision = ++this.selectionRevision;
    if (playerId === this.me) {
      this.selection = { playerId, info: null, loading: false };
      return;
    }
    const cached = this.targetInfoCache.get(playerId);
    if (cached && Date.now() - cached.at < GRID_TIMINGS.targetInfoCacheMs) {
      this.selection = { playerId, info: cached.info, loading: false };
      return;
    }
    this.selection = { playerId, info: null, loading: true };
    this.root.api.get(`/attack/target-info/${encodeURIComponent(playerId)}`, targetInfoSchema).then(
      (info) => {
        // Another selection, or another account, since: not ours to keep.
        if (revision !== this.selectionRevision) return;
        this.targetInfoCache.set(playerId, { info, at: Date.now() });
        runInAction(() => (this.selection = { playerId, info, loading: false }));
      },
      (error: unknown) => {
        log.warn('Could not load target info', error);
        if (revision !== this.selectionRevision) return;
        runInAction(() => (this.selection = null));
        toast.error(TARGET_INFO_FAILED);
      },
    );
  }

  closeSelection() {
    this.selectionRevision += 1;
    this.selection = null;
  }

  challenge(player: { id: string; handle: string }) {
    if (!this.emit('pvp:request', { targetId: player.id })) return;
    toast.info(pvpSent(player.handle));
  }

  private addPvpPrompt(prompt: PvpPrompt) {
    runInAction(() => {
      this.pvpPrompts = [...this.pvpPrompts.filter((p) => p.requester.id !== prompt.requester.id), prompt];
    });
    const key = prompt.requester.id;
    const existing = this.pvpTimers.get(key);
    if (existing) clearTimeout(existing);
    // The prompt stays 30 s from its arrival (section 9), whatever this computer's clock says of `expiresAt`.
    this.pvpTimers.set(
      key,
      setTimeout(() => this.removePvpPrompt(key), PVP_PROMPT_MS),
    );
  }

  private removePvpPrompt(requesterId: string) {
    const timer = this.pvpTimers.get(requesterId);
    if (timer) clearTimeout(timer);
    this.pvpTimers.delete(requesterId);
    runInAction(() => (this.pvpPrompts = this.pvpPrompts.filter((p) => p.requester.id !== requesterId)));
  }

  answerPvp(requesterId: string, accept: boolean) {
    this.removePvpPrompt(requesterId);
    this.emit(accept ? 'pvp:accept' : 'pvp:decline', { requesterId });
  }

  block(userId: string) {
    this.emit('chat:block', { blockUserId: userId });
  }

  unblock(userId: string) {
    this.emit('chat:unblock', { unblockUserId: userId });
  }

  // ---- plumbing -----------------------------------------------------------------------------

  /** Sends a player action on the grid, or says the grid is not ready. */
  private emit<E extends keyof GridClientToServerEvents>(
    event: E,
    ...args: Parameters<GridClientToServerEvents[E]>
  ): boolean {
    if (!this.socket || !this.root.realtime.connected) {
      toast.error(GRID_NOT_READY);
      return false;
    }
    this.socket.emit(event, ...args);
    return true;
  }

  /** Sends on the /grid socket while there is one (socket.io holds it while reconnecting). */
  send<E extends keyof GridClientToServerEvents>(event: E, ...args: Parameters<GridClientToServerEvents[E]>) {
    this.socket?.emit(event, ...args);
  }

  private reset() {
    if (this.overlayTimer) clearTimeout(this.overlayTimer);
    this.selectionRevision += 1;
    for (const timer of this.pvpTimers.values()) clearTimeout(timer);
    this.pvpTimers.clear();
    this.players.clear();
    this.attacks.clear();
    this.blockedUsers = [];
    this.initialized = false;
    this.activeAttack = null;
    this.attackResult = null;
    this.pvpPrompts = [];
    this.selection = null;
    this.targetInfoCache.clear();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
