/**
 * Socket.IO contracts (core-app spec, section 7). Both namespaces use the websocket
 * transport only; the handshake carries `auth.token` (access JWT) and `query.userId`.
 * Event maps grow with the features that emit them.
 */
import { z } from 'zod';
import type { BoxUpdatePayload } from './boxes.ts';
import type { BalancePayload } from './commerce.ts';
import type { Attack, AttackEndedPayload, ServiceState, TargetBox } from './attacks.ts';
import type {
  ChatStartedEvent,
  GlobalChatMessageEvent,
  OlderGlobalMessagesEvent,
  PrivateMessageEvent,
  PrivateMessageFailedEvent,
  chatRequestPayload,
  chatResponsePayload,
  globalMessagePayload,
  olderGlobalMessagesPayload,
  privateMessagePayload,
} from './chat.ts';
import type {
  BlockedUser,
  GridInitialState,
  GridNotification,
  GridPlayer,
  MatchExpiredPayload,
  MatchProposal,
  PvpAcceptedPayload,
  PvpDeclinedPayload,
  PvpIncomingPayload,
} from './grid.ts';

export const SOCKET_PATH = '/socket.io';
export const GRID_NAMESPACE = '/grid';
export const VPN_STATUS_NAMESPACE = '/vpn-status';

export const socketHandshakeSchema = z.object({
  token: z.string().min(1).max(4096),
  userId: z.string().min(1).max(64),
});
export type SocketHandshake = z.infer<typeof socketHandshakeSchema>;

/** Message of the `error` a client gets for events past its per-user limit on /vpn-status. */
export const SOCKET_RATE_LIMITED = 'Too many requests. Slow down.';

/** Message of the `connect_error` a client gets when its handshake is refused. */
export const SOCKET_UNAUTHORIZED = 'Unauthorized';

/**
 * The outcome of a client event sent with an acknowledgement callback (the portal does for `chat:response`):
 * the callback gets it instead of the event's failure event.
 */
export type EventAnswer = { ok: true } | { ok: false; message: string };

export interface SocketErrorPayload {
  message: string;
  /** The tempId of the `chat:global` message it refuses: the portal marks that message failed. */
  tempId?: string;
}

/** Payloads of client events on /grid (validated by the server; a bad one gets `error`). */
export const targetIdPayload = z.strictObject({ targetId: z.uuid({ error: 'targetId must be a user id' }) });
export const requesterIdPayload = z.strictObject({
  requesterId: z.uuid({ error: 'requesterId must be a user id' }),
});
export const blockPayload = z.strictObject({
  blockUserId: z.uuid({ error: 'blockUserId must be a user id' }),
});
export const unblockPayload = z.strictObject({
  unblockUserId: z.uuid({ error: 'unblockUserId must be a user id' }),
});
export const notificationAckPayload = z.strictObject({ ids: z.array(z.uuid()).min(1).max(100) });

export interface GridServerToClientEvents {
  readyForState: () => void;
  initialState: (state: GridInitialState) => void;
  /** A player came online or changed (MMR after an attack, location). */
  playerUpdated: (player: GridPlayer) => void;
  /** The player's last socket closed (after a grace period): their id. */
  playerOffline: (playerId: string) => void;
  attackStarted: (attack: Attack) => void;
  attackEnded: (payload: AttackEndedPayload) => void;
  attackBoxUpdated: (payload: { attackId: string; box: TargetBox }) => void;
  /** The checks of the target's services during a running attack (both players). */
  attackServices: (payload: { attackId: string; services: ServiceState[] }) => void;
  'match:found': (proposal: MatchProposal) => void;
  'match:expired': (payload: MatchExpiredPayload) => void;
  'queue:noMatch': (payload: { message: string }) => void;
  'pvp:request:incoming': (payload: PvpIncomingPayload) => void;
  'pvp:request:accepted': (payload: PvpAcceptedPayload) => void;
  'pvp:request:declined': (payload: PvpDeclinedPayload) => void;
  userBlocked: (user: BlockedUser) => void;
  userUnblocked: (payload: { id: string }) => void;
  /** Sent until acknowledged with `notifications:ack` (again at the next `getInitialState`). */
  notification: (notification: GridNotification) => void;
  /** The user's balances changed (a purchase credited, a gift, a refund, box time). */
  balance: (payload: BalancePayload) => void;
  error: (payload: SocketErrorPayload) => void;
  // Chat (issue 8).
  /**
   * One message of the global channel, or several in the order they were sent: messages posted while the
   * server was delivering others travel together, one argument each (docs/chat.md, Fan-out).
   */
  globalChatMessage: (...messages: GlobalChatMessageEvent[]) => void;
  olderGlobalChatMessages: (payload: OlderGlobalMessagesEvent) => void;
  'chat:privateMessage': (message: PrivateMessageEvent) => void;
  'chat:privateMessageFailed': (payload: PrivateMessageFailedEvent) => void;
  'chat:started': (chat: ChatStartedEvent) => void;
}
export interface GridClientToServerEvents {
  getInitialState: () => void;
  'pvp:request': (payload: z.input<typeof targetIdPayload>) => void;
  'pvp:accept': (payload: z.input<typeof requesterIdPayload>) => void;
  'pvp:decline': (payload: z.input<typeof requesterIdPayload>) => void;
  'chat:block': (payload: z.input<typeof blockPayload>) => void;
  'chat:unblock': (payload: z.input<typeof unblockPayload>) => void;
  'notifications:ack': (payload: z.input<typeof notificationAckPayload>) => void;
  logout: () => void;
  // Chat (issue 8).
  'chat:global': (payload: z.input<typeof globalMessagePayload>) => void;
  'chat:getOlderGlobalMessages': (payload: z.input<typeof olderGlobalMessagesPayload>) => void;
  'chat:request': (payload: z.input<typeof chatRequestPayload>) => void;
  'chat:response': (
    payload: z.input<typeof chatResponsePayload>,
    ack?: (answer: EventAnswer) => void,
  ) => void;
  'chat:privateMessage': (payload: z.input<typeof privateMessagePayload>) => void;
}

export interface VpnStatusServerToClientEvents {
  /** Whether the user has a live VPN client (any protocol). */
  status: (payload: { status: boolean }) => void;
  /** The user's box changed (status, usage, VPN clients); `deleted` when it is gone. */
  boxUpdate: (payload: BoxUpdatePayload) => void;
  /** A client event was refused (too many of them). */
  error: (payload: SocketErrorPayload) => void;
}
export interface VpnStatusClientToServerEvents {
  requestStatus: () => void;
}
