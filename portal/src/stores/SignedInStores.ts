import { BoxStore } from './BoxStore.ts';
import { ChatStore } from './ChatStore.ts';
import { DashboardStore } from './DashboardStore.ts';
import { GridStore } from './GridStore.ts';
import { HistoryStore } from './HistoryStore.ts';
import { LeaderboardStore } from './LeaderboardStore.ts';
import { LedgerStore } from './LedgerStore.ts';
import { MatchmakingStore } from './MatchmakingStore.ts';
import { NotificationsStore } from './NotificationsStore.ts';
import { OnboardingStore } from './OnboardingStore.ts';
import { RealtimeStore } from './RealtimeStore.ts';
import { RedeemStore } from './RedeemStore.ts';
import type { RootStore, RootStoreOptions } from './RootStore.ts';

/**
 * The stores of the signed-in pages: the realtime sockets (and with them socket.io-client) and the domain
 * stores they feed. Their code comes in a chunk of its own with the authenticated layout, so that the public
 * pages never download it; the RootStore makes them on first use (`RootStore.grid`, ...).
 */
export class SignedInStores {
  readonly realtime: RealtimeStore;
  readonly box: BoxStore;
  readonly dashboard: DashboardStore;
  readonly history: HistoryStore;
  readonly grid: GridStore;
  readonly matchmaking: MatchmakingStore;
  readonly notifications: NotificationsStore;
  readonly leaderboard: LeaderboardStore;
  readonly chat: ChatStore;
  readonly redeem: RedeemStore;
  readonly ledger: LedgerStore;
  readonly onboarding: OnboardingStore;

  constructor(root: RootStore, options: RootStoreOptions) {
    this.realtime = new RealtimeStore(root, options.socketFactory);
    this.box = new BoxStore(root, options.saveFile);
    this.dashboard = new DashboardStore(root);
    this.history = new HistoryStore(root);
    const storage = options.storage ?? localStorage;
    this.grid = new GridStore(root, storage, options.playSound);
    this.matchmaking = new MatchmakingStore(root, storage);
    this.notifications = new NotificationsStore(root, options.playSound);
    this.leaderboard = new LeaderboardStore(root);
    this.chat = new ChatStore(root);
    this.redeem = new RedeemStore(root);
    this.ledger = new LedgerStore(root);
    this.onboarding = new OnboardingStore(root);
  }
}
