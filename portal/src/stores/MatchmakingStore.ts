import {
  engageResponseSchema,
  queueEstimateSchema,
  queueInfoSchema,
  type MatchExpiredPayload,
  type MatchProposal,
} from '@exploit-grid/api/contracts';
import { action, computed, makeObservable, observable, observableRef, runInAction } from 'mobx';
import { ApiError, serverMessageOf } from '../api/ApiError.ts';
import { log } from '../logging.ts';
import { toast } from '../notifications/toast.ts';
import {
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
  QUEUE_JOIN_FAILED,
  QUEUE_JOINED,
  QUEUE_JOINED_TOAST_MS,
  QUEUE_LEAVE_FAILED,
  QUEUE_TICK_MS,
  VPN_REQUIRED_TO_QUEUE,
  matchFoundToast,
} from '../strings/grid.ts';
import { keepGridPart } from './gridStorage.ts';
import type { RootStore } from './RootStore.ts';

/** The matchmaking queue as this operator is in it. */
export type QueueState = {
  position: number;
  /** The last estimate, counted down locally every second between polls. */
  secondsLeft: number;
};

/** Why Find a Mark is disabled now (core-app section 2), or null when it can be pressed. */
export type FindBlocker = 'connecting' | 'queued' | 'matched' | 'attacking' | 'defending';
/** Why Find a Mark is disabled: the game's state, or the player's setup the server requires (a box, the VPN). */
export type QueueBlocker = FindBlocker | 'noBox' | 'noVpn';

/**
 * Matchmaking (core-app sections 4, 5, 8): Find a Mark, the queue (its estimate polled every 10 s and
 * counted down every second in between), the match proposal (its countdown, Engage, Dismiss) and the ways a
 * match ends. The GridStore hands it the /grid socket's match events; an attack of this operator that starts
 * ends the search. The proposal is persisted per operator (gridStorage.ts), so a reload keeps it.
 */
export class MatchmakingStore {
  queue: QueueState | null = null;
  joiningQueue = false;
  proposal: MatchProposal | null = null;
  /** Seconds until the proposal expires, refreshed every 500 ms. */
  proposalSecondsLeft = 0;
  /** This operator engaged the proposal and waits for the opponent. */
  engaged = false;
  engaging = false;

  private readonly root: RootStore;
  private queueTimers: ReturnType<typeof setInterval>[] = [];
  private proposalTimer: ReturnType<typeof setInterval> | null = null;
  /** The proposal the server sent since the client asked for the state (it sends the open one first). */
  private proposalResent: string | null = null;
  /** Bumped when the account changes: answers to requests of the previous account are dropped. */
  private session = 0;

  constructor(root: RootStore, storage: Storage) {
    this.root = root;
    makeObservable<this, 'setQueue' | 'clearQueue' | 'clearProposal' | 'tickProposal' | 'reset'>(this, {
      queue: observableRef,
      joiningQueue: observable,
      proposal: observableRef,
      proposalSecondsLeft: observable,
      engaged: observable,
      engaging: observable,
      findBlocker: computed,
      queueBlocker: computed,
      applyInitialState: action,
      applyMatchFound: action,
      applyMatchExpired: action,
      applyNoMatch: action,
      attackStarted: action,
      setQueue: action,
      clearQueue: action,
      clearProposal: action,
      tickProposal: action,
      reset: action,
    });
    // Another account (or none): nothing of the previous one stays; the new one gets back its proposal.
    keepGridPart(root, storage, 'matchmakingProposal', {
      read: () => this.proposal,
      reset: () => this.reset(),
      restore: (proposal) => {
        this.proposal = proposal && Date.parse(proposal.expiresAt) > Date.now() ? proposal : null;
      },
    });
    if (typeof window !== 'undefined')
      window.addEventListener(CLEAR_QUEUE_STATE_EVENT, this.onClearQueueState);
  }

  // ---- derived state ------------------------------------------------------------------------

  get me(): string | null {
    return this.root.auth.user?.id ?? null;
  }

  get findBlocker(): FindBlocker | null {
    const grid = this.root.grid;
    if (!grid.initialized || !this.root.realtime.connected) return 'connecting';
    if (this.queue || this.joiningQueue) return 'queued';
    if (this.proposal) return 'matched';
    if (grid.incomingAttack) return 'defending';
    if (grid.activeAttack) return 'attacking';
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

  // ---- the socket's events (handed over by the GridStore) ------------------------------------

  /** The client asked for the state: the server sends the open proposal again before it. */
  stateRequested() {
    this.proposalResent = null;
  }

  /** The state arrived: a proposal kept from before stays only if it was sent again; a queue comes back. */
  applyInitialState() {
    if (this.proposal && this.proposal.proposalId !== this.proposalResent) this.clearProposal();
    if (this.proposal && Date.parse(this.proposal.expiresAt) <= Date.now()) this.clearProposal();
    if (this.proposal) this.startProposalCountdown();
    // Queued in an earlier visit: the queue card comes back.
    if (!this.queue && !this.proposal) void this.pollEstimate(true);
  }

  applyMatchFound(proposal: MatchProposal) {
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

  applyMatchExpired({ proposalId, reason, message }: MatchExpiredPayload) {
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

  /** `queue:noMatch`: the server took this operator out of the queue, and says why. */
  applyNoMatch(message: string) {
    this.clearQueue();
    toast.show(message, { durationMs: NO_MATCH_TOAST_MS });
  }

  /** An attack of this operator started: the queue and the proposal are behind them. */
  attackStarted() {
    this.clearQueue();
    this.clearProposal();
  }

  // ---- the player's actions -----------------------------------------------------------------

  /** Find a Mark: join the queue (core-app sections 4, 5, 8). */
  async findMark(): Promise<void> {
    if (!this.root.grid.initialized || !this.root.realtime.connected) {
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
        if (!this.proposal && !this.root.grid.activeAttack)
          this.setQueue(info.position, info.estimateSeconds);
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
          this.root.grid.applyAttackStarted({ ...answer.attack, box: answer.box ?? answer.attack.box });
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

  // ---- the queue and the proposal's countdown -------------------------------------------------

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

  private clearQueue() {
    for (const timer of this.queueTimers) clearInterval(timer);
    this.queueTimers = [];
    this.queue = null;
  }

  private readonly onClearQueueState = () => this.clearQueue();

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

  // ---- the account --------------------------------------------------------------------------

  private reset() {
    this.clearQueue();
    this.clearProposal();
    this.session += 1;
  }
}

function raiseClearQueueState() {
  if (typeof window !== 'undefined') window.dispatchEvent(new Event(CLEAR_QUEUE_STATE_EVENT));
}
