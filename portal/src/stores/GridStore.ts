import {
  GRID_TIMINGS,
  attackSchema,
  engageResponseSchema,
  matchProposalSchema,
  queueEstimateSchema,
  queueInfoSchema,
  targetInfoSchema,
  type Attack,
  type AttackEndedPayload,
  type AttackOutcome,
  type BlockedUser,
  type GridClientToServerEvents,
  type GridInitialState,
  type GridNotification,
  type GridPlayer,
  type MatchExpiredPayload,
  type MatchProposal,
  type PvpIncomingPayload,
  type ServiceState,
  type TargetBox,
  type TargetInfo,
} from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, observableRef, reaction, runInAction } from 'mobx';
import { z } from 'zod';
import { ApiError, serverMessageOf } from '../api/ApiError.ts';
import { log } from '../logging.ts';
import { playSound as playBrowserSound } from '../notifications/sounds.ts';
import { toast } from '../notifications/toast.ts';
import type { GridSocket } from '../realtime/sockets.ts';
import { paths } from '../routes/paths.ts';
import {
  ATTACK_CALLED_OFF,
  CLEAR_QUEUE_STATE_EVENT,
  DEFAULT_QUEUE_ESTIMATE_SECONDS,
  DISMISS_FAILED,
  ENGAGE_FAILED,
  ESTIMATE_POLL_MS,
  GRID_NOT_READY,
  MATCH_COUNTDOWN_MS,
  MATCH_EXPIRED_NO_RESPONSE,
  MATCH_EXPIRED_TEXTS,
  MATCH_EXPIRED_TOAST_MS,
  MATCH_FOUND_TOAST_MS,
  NO_MATCH_TOAST_MS,
  OUTCOME_OVERLAY_MS,
  PVP_PROMPT_MS,
  QUEUE_JOIN_FAILED,
  QUEUE_JOINED,
  QUEUE_JOINED_TOAST_MS,
  QUEUE_LEAVE_FAILED,
  QUEUE_TICK_MS,
  SOUNDS,
  TARGET_INFO_FAILED,
  VPN_REQUIRED_TO_QUEUE,
  attackCancelFailed,
  matchFoundToast,
  notificationText,
  pvpAccepted,
  pvpDeclined,
  pvpSent,
} from '../strings/grid.ts';
import type { RootStore } from './RootStore.ts';

/** Plays one of the game's sounds; the RootStore takes another in tests. */
export type SoundPlayer = (url: string) => void;

/** The matchmaking queue as this operator is in it. */
export type QueueState = {
  position: number;
  /** The last estimate, counted down locally every second between polls. */
  secondsLeft: number;
};

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

/** Why Find a Mark is disabled now (core-app section 2), or null when it can be pressed. */
export type FindBlocker = 'connecting' | 'queued' | 'matched' | 'attacking' | 'defending';
/** Why Find a Mark is disabled: the game's state, or the player's setup the server requires (a box, the VPN). */
export type QueueBlocker = FindBlocker | 'noBox' | 'noVpn';

const GRID_STORAGE_KEY = 'exploit-grid.grid';
const GRID_STORAGE_VERSION = 1;
const persistedGrid = z.object({
  version: z.literal(GRID_STORAGE_VERSION),
  userId: z.string(),
  activeAttack: z.unknown().nullable(),
  matchmakingProposal: z.unknown().nullable(),
});

/**
 * The Grid (core-app sections 2, 4, 7, 8): who is online and where, the attacks in flight, this operator's
 * matchmaking (queue, proposal, engage), PVP challenges, blocks, notifications and the outcome of their
 * attacks. The RealtimeStore hands it the /grid socket; every event lands here, never in components. The
 * active attack and the match proposal are persisted, per operator, so a reload keeps them.
 */
export class GridStore {
  readonly players = observable.map<string, GridPlayer>([], { deep: false });
  readonly attacks = observable.map<string, Attack>([], { deep: false });
  blockedUsers: readonly BlockedUser[] = [];
  /** `initialState` has arrived on the current socket. */
  initialized = false;
  activeAttack: Attack | null = null;
  attackResult: AttackResult | null = null;
  queue: QueueState | null = null;
  joiningQueue = false;
  proposal: MatchProposal | null = null;
  /** Seconds until the proposal expires, refreshed every 500 ms. */
  proposalSecondsLeft = 0;
  /** This operator engaged the proposal and waits for the opponent. */
  engaged = false;
  engaging = false;
  pvpPrompts: readonly PvpPrompt[] = [];
  selection: Selection | null = null;

  private readonly root: RootStore;
  private readonly play: SoundPlayer;
  private readonly storage: Storage;
  private socket: GridSocket | null = null;
  private readonly seenNotifications = new Set<string>();
  private queueTimers: ReturnType<typeof setInterval>[] = [];
  private proposalTimer: ReturnType<typeof setInterval> | null = null;
  /** The proposal the server sent since the client asked for the state (it sends the open one first). */
  private proposalResent: string | null = null;
  private overlayTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly pvpTimers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Bumped when the account changes: answers to requests of the previous account are dropped. */
  private session = 0;
  /** Notification ids to acknowledge, sent together (the server counts every event against a rate limit). */
  private pendingAcks: string[] = [];
  private ackTimer: ReturnType<typeof setTimeout> | null = null;
  /** GET /attack/target-info answers, kept 5 min; this account's only, like the rest of the store. */
  private readonly targetInfoCache = new Map<string, { info: TargetInfo; at: number }>();
  /** Bumped by every selection, so that an overtaken target-info answer is dropped. */
  private selectionRevision = 0;

  constructor(root: RootStore, storage: Storage, play: SoundPlayer = playBrowserSound) {
    this.root = root;
    this.storage = storage;
    this.play = play;
    makeObservable<
      this,
      | 'applyInitialState'
      | 'applyAttackStarted'
      | 'applyAttackEnded'
      | 'applyAttackBox'
      | 'applyAttackServices'
      | 'applyMatchFound'
      | 'applyMatchExpired'
      | 'setQueue'
      | 'clearProposal'
      | 'tickProposal'
      | 'reset'
      | 'restore'
    >(this, {
      blockedUsers: observableRef,
      initialized: observable,
      activeAttack: observableRef,
      attackResult: observableRef,
      queue: observableRef,
      joiningQueue: observable,
      proposal: observableRef,
      proposalSecondsLeft: observable,
      engaged: observable,
      engaging: observable,
      pvpPrompts: observableRef,
      selection: observableRef,
      me: computed,
      incomingAttack: computed,
      findBlocker: computed,
      queueBlocker: computed,
      selectedPlayer: computed,
      onlinePlayers: computed,
      targetIds: computed,
      arcs: computed,
      applyInitialState: action,
      applyAttackStarted: action,
      applyAttackEnded: action,
      applyAttackBox: action,
      applyAttackServices: action,
      applyMatchFound: action,
      applyMatchExpired: action,
      setQueue: action,
      clearQueue: action,
      clearProposal: action,
      tickProposal: action,
      select: action,
      closeSelection: action,
      dismissResult: action,
      reset: action,
      restore: action,
    });
    // Another account (or none): nothing of the previous one stays; the new one gets back what it left.
    reaction(
      () => this.root.auth.user?.id ?? null,
      (userId) => {
        this.reset();
        if (userId) this.restore(userId);
      },
      { fireImmediately: true },
    );
    reaction(
      () => [this.activeAttack, this.proposal] as const,
      () => this.persist(),
    );
    if (typeof window !== 'undefined')
      window.addEventListener(CLEAR_QUEUE_STATE_EVENT, this.onClearQueueState);
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

  get findBlocker(): FindBlocker | null {
    if (!this.initialized || !this.root.realtime.connected) return 'connecting';
    if (this.queue || this.joiningQueue) return 'queued';
    if (this.proposal) return 'matched';
    if (this.incomingAttack) return 'defending';
    if (this.activeAttack) return 'attacking';
    return null;
  }

  /**
   * What keeps Find a Mark disabled, shown beside it: the game's state first, then what the server would
   * refuse the queue for (the box must be running, the VPN connected), so that a press never fails.
   */
  get queueBlocker(): QueueBlocker | null {
    if (this.findBlocker) return this.findBlocker;
    if (this.root.auth.box?.status !== 'RUNNING') return 'noBox';
    if (!this.root.realtime.vpnConnected) return 'noVpn';
    return null;
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

  /** The RealtimeStore opened the /grid socket: every grid event is handled here from now on. */
  attach(socket: GridSocket) {
    this.socket = socket;
    socket.on('readyForState', () => (this.proposalResent = null));
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
    socket.on('match:found', (proposal) => this.applyMatchFound(proposal));
    socket.on('match:expired', (payload) => this.applyMatchExpired(payload));
    socket.on('queue:noMatch', ({ message }) => {
      this.clearQueue();
      toast.show(message, { durationMs: NO_MATCH_TOAST_MS });
    });
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
    socket.on('notification', (notification) => this.notify(notification));
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
    // A proposal kept from before that the server did not send again just before the state has ended meanwhile.
    if (this.proposal && this.proposal.proposalId !== this.proposalResent) this.clearProposal();
    if (this.proposal && Date.parse(this.proposal.expiresAt) <= Date.now()) this.clearProposal();
    if (this.proposal) this.startProposalCountdown();
    // Queued in an earlier visit: the queue card comes back.
    if (!this.queue && !this.proposal) void this.pollEstimate(true);
  }

  private applyAttackStarted(attack: Attack) {
    this.attacks.set(attack.id, attack);
    const me = this.me;
    if (attack.attacker.id !== me && attack.target.id !== me) return;
    // A box the engage answer carried is kept when the broadcast has none.
    const box = attack.box ?? (this.activeAttack?.id === attack.id ? this.activeAttack.box : null);
    this.activeAttack = { ...attack, box };
    this.clearQueue();
    this.clearProposal();
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

  // ---- matchmaking --------------------------------------------------------------------------

  /** Find a Mark: join the queue (core-app sections 4, 5, 8). */
  async findMark(): Promise<void> {
    if (!this.initialized || !this.root.realtime.connected || !this.socket) {
      toast.error(GRID_NOT_READY);
      return;
    }
    if (!this.root.realtime.vpnConnected) {
      toast.error(VPN_REQUIRED_TO_QUEUE);
      return;
    }
    if (this.findBlocker) return;
    const session = this.session;
    runInAction(() => (this.joiningQueue = true));
    try {
      const info = await this.root.api.post('/attack/queue/join', queueInfoSchema);
      if (session !== this.session) return;
      // A match can be found (within a tick) before the answer arrives: then the queue is already behind us.
      runInAction(() => {
        if (!this.proposal && !this.activeAttack) this.setQueue(info.position, info.estimateSeconds);
      });
      toast.success(QUEUE_JOINED, { durationMs: QUEUE_JOINED_TOAST_MS });
    } catch (error) {
      if (session !== this.session) return;
      log.warn('Could not join the queue', error);
      toast.error(serverMessageOf(error) ?? QUEUE_JOIN_FAILED);
    } finally {
      runInAction(() => (this.joiningQueue = false));
    }
  }

  async leaveQueue(): Promise<void> {
    try {
      await this.root.api.send('POST', '/attack/queue/leave');
      runInAction(() => {
        this.clearQueue();
        // A match found while leaving was ended by the leave (the opponent stays queued).
        this.clearProposal();
      });
    } catch (error) {
      log.warn('Could not leave the queue', error);
      toast.error(serverMessageOf(error) ?? QUEUE_LEAVE_FAILED);
    }
  }

  /** Queued: the estimate is polled every 10 s and counted down every second in between. */
  private setQueue(position: number, estimateSeconds: number) {
    this.queue = {
      position,
      secondsLeft: estimateSeconds >= 0 ? estimateSeconds : DEFAULT_QUEUE_ESTIMATE_SECONDS,
    };
    if (this.queueTimers.length > 0) return;
    this.queueTimers = [
      setInterval(() => void this.pollEstimate(false), ESTIMATE_POLL_MS),
      setInterval(
        () =>
          runInAction(() => {
            if (this.queue)
              this.queue = { ...this.queue, secondsLeft: Math.max(0, this.queue.secondsLeft - 1) };
          }),
        QUEUE_TICK_MS,
      ),
    ];
  }

  clearQueue() {
    for (const timer of this.queueTimers) clearInterval(timer);
    this.queueTimers = [];
    this.queue = null;
  }

  /** GET /attack/queue/estimate: -1 means not queued (any more). `restoring`: only to find an old place. */
  private async pollEstimate(restoring: boolean): Promise<void> {
    const session = this.session;
    try {
      const { estimateSeconds } = await this.root.api.get('/attack/queue/estimate', queueEstimateSchema);
      if (session !== this.session) return;
      runInAction(() => {
        if (estimateSeconds < 0) {
          if (!restoring) this.clearQueue();
          return;
        }
        if (restoring && (this.queue || this.proposal)) return;
        if (!restoring && !this.queue) return;
        this.setQueue(this.queue?.position ?? 0, estimateSeconds);
      });
    } catch (error) {
      log.warn('Could not poll the queue estimate', error);
    }
  }

  private applyMatchFound(proposal: MatchProposal) {
    this.proposalResent = proposal.proposalId;
    if (this.proposal?.proposalId === proposal.proposalId) return;
    this.clearQueue();
    this.proposal = proposal;
    this.engaged = false;
    this.startProposalCountdown();
    const me = this.me;
    const opponent = proposal.attacker.id === me ? proposal.defender : proposal.attacker;
    toast.success(matchFoundToast(opponent.handle), { durationMs: MATCH_FOUND_TOAST_MS });
  }

  private startProposalCountdown() {
    this.tickProposal();
    if (this.proposalTimer) clearInterval(this.proposalTimer);
    this.proposalTimer = setInterval(() => this.tickProposal(), MATCH_COUNTDOWN_MS);
  }

  private tickProposal() {
    if (!this.proposal) return;
    const left = Math.max(0, Math.ceil((Date.parse(this.proposal.expiresAt) - Date.now()) / 1000));
    this.proposalSecondsLeft = left;
    if (left > 0) return;
    // Nobody answered in time on this side: the server says so too, for the same proposal, ignored then.
    this.clearProposal();
    toast.error(MATCH_EXPIRED_NO_RESPONSE, { durationMs: MATCH_EXPIRED_TOAST_MS });
    raiseClearQueueState();
  }

  private clearProposal() {
    if (this.proposalTimer) clearInterval(this.proposalTimer);
    this.proposalTimer = null;
    this.proposal = null;
    this.engaged = false;
    this.proposalSecondsLeft = 0;
  }

  private applyMatchExpired({ proposalId, reason, message }: MatchExpiredPayload) {
    if (this.proposal?.proposalId !== proposalId) return;
    this.clearProposal();
    if (reason === 'OPPONENT_LEFT') {
      // Still queued on the server: back to the queue card.
      this.setQueue(0, DEFAULT_QUEUE_ESTIMATE_SECONDS);
      void this.pollEstimate(false);
      toast.show(MATCH_EXPIRED_TEXTS.OPPONENT_LEFT, { durationMs: MATCH_EXPIRED_TOAST_MS });
      return;
    }
    if (reason === 'OPPONENT_DISMISSED' || reason === 'EXPIRED')
      toast.show(MATCH_EXPIRED_TEXTS[reason], { durationMs: MATCH_EXPIRED_TOAST_MS });
    else if (reason === 'UNAVAILABLE')
      toast.error(message ?? MATCH_EXPIRED_TEXTS.EXPIRED, { durationMs: MATCH_EXPIRED_TOAST_MS });
    raiseClearQueueState();
  }

  private readonly onClearQueueState = () => this.clearQueue();

  /** Engage: the second of the two to engage starts the attack. */
  async engage(): Promise<void> {
    const proposal = this.proposal;
    if (!proposal || this.engaging) return;
    runInAction(() => (this.engaging = true));
    try {
      const answer = await this.root.api.post('/attack/queue/engage', engageResponseSchema, {
        body: { proposalId: proposal.proposalId },
      });
      runInAction(() => {
        if (answer.started && answer.attack)
          this.applyAttackStarted({ ...answer.attack, box: answer.box ?? answer.attack.box });
        else if (this.proposal?.proposalId === proposal.proposalId) this.engaged = true;
      });
    } catch (error) {
      log.warn('Could not engage', error);
      // When the attack could not start, `match:expired` (UNAVAILABLE) may have told it already.
      if (this.proposal?.proposalId !== proposal.proposalId) return;
      toast.error(serverMessageOf(error) ?? ENGAGE_FAILED);
      // The match is gone on the server (not found; or it ended because the attack could not start).
      if (error instanceof ApiError && [402, 404, 409].includes(error.status))
        runInAction(() => this.clearProposal());
    } finally {
      runInAction(() => (this.engaging = false));
    }
  }

  /** Dismiss: the proposal leaves the screen whatever the server says. */
  async dismiss(): Promise<void> {
    const proposal = this.proposal;
    if (!proposal) return;
    this.clearProposal();
    try {
      await this.root.api.send('POST', '/attack/queue/dismiss', {
        body: { proposalId: proposal.proposalId },
      });
    } catch (error) {
      log.warn('Could not dismiss the match', error);
      toast.error(DISMISS_FAILED);
    }
  }

  // ---- attacks ------------------------------------------------------------------------------

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

  // ---- notifications ------------------------------------------------------------------------

  /** A notification (core-app section 8): toasted once, with its sound, then acknowledged. */
  private notify(notification: GridNotification) {
    const { id, type, title, body } = notification;
    if (!this.seenNotifications.has(id)) {
      this.seenNotifications.add(id);
      switch (type) {
        case 'ATTACK_INBOUND':
          toast.error(notificationText(title, body));
          this.play(SOUNDS.underAttack);
          break;
        case 'CHAT_REQUEST':
          // On the Grid the request's prompt shows it (ChatStore.requestPrompts); elsewhere, a toast.
          if (!this.root.currentPath().startsWith(paths.attack)) toast.info(notificationText(title, body));
          this.play(SOUNDS.chatRequest);
          break;
        case 'PRIVATE_MESSAGE':
          if (!this.root.currentPath().startsWith(paths.chats)) toast.info(notificationText(title, body));
          break;
        case 'GENERIC':
          toast.show(body);
          break;
        case 'ERROR':
          toast.error(body);
          break;
        default:
          // An attack's end: the Grid's overlay tells it when it is on screen; elsewhere, a toast.
          if (
            this.attackResult?.attackId !== notification.attackId ||
            !this.root.currentPath().startsWith(paths.attack)
          )
            toast.info(notificationText(title, body));
      }
    }
    this.acknowledge(id);
  }

  /**
   * Acknowledges notifications together, at most 100 an event, a moment after they arrived: a returning player
   * may have dozens pending, and every client event counts against the server's rate limit.
   */
  private acknowledge(id: string) {
    if (!this.pendingAcks.includes(id)) this.pendingAcks.push(id);
    this.ackTimer ??= setTimeout(() => {
      this.ackTimer = null;
      const ids = this.pendingAcks.splice(0);
      for (let i = 0; i < ids.length; i += NOTIFICATION_ACK_BATCH)
        this.socket?.emit('notifications:ack', { ids: ids.slice(i, i + NOTIFICATION_ACK_BATCH) });
    }, NOTIFICATION_ACK_DELAY_MS);
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

  private persist() {
    const userId = this.me;
    if (!userId) return;
    try {
      this.storage.setItem(
        GRID_STORAGE_KEY,
        JSON.stringify({
          version: GRID_STORAGE_VERSION,
          userId,
          activeAttack: this.activeAttack,
          matchmakingProposal: this.proposal,
        }),
      );
    } catch (error) {
      log.warn('Could not save the grid state', error);
    }
  }

  private restore(userId: string) {
    let stored: unknown;
    try {
      stored = JSON.parse(this.storage.getItem(GRID_STORAGE_KEY) ?? 'null');
    } catch {
      return;
    }
    const parsed = persistedGrid.safeParse(stored);
    if (!parsed.success || parsed.data.userId !== userId) return;
    const attack = attackOrNull(parsed.data.activeAttack);
    const proposal = proposalOrNull(parsed.data.matchmakingProposal);
    this.activeAttack = attack;
    this.proposal = proposal && Date.parse(proposal.expiresAt) > Date.now() ? proposal : null;
  }

  private reset() {
    this.clearQueue();
    this.clearProposal();
    if (this.overlayTimer) clearTimeout(this.overlayTimer);
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    this.pendingAcks = [];
    this.session += 1;
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
    this.seenNotifications.clear();
    this.targetInfoCache.clear();
  }
}

/** Notification ids acknowledged in one event at most (the server takes up to 100). */
const NOTIFICATION_ACK_BATCH = 100;
/** Notifications arriving together (a reconnect sends every pending one) are acknowledged together. */
const NOTIFICATION_ACK_DELAY_MS = 250;

function raiseClearQueueState() {
  if (typeof window !== 'undefined') window.dispatchEvent(new Event(CLEAR_QUEUE_STATE_EVENT));
}

function attackOrNull(value: unknown): Attack | null {
  const parsed = attackSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function proposalOrNull(value: unknown): MatchProposal | null {
  const parsed = matchProposalSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
