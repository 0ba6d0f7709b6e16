/**
 * Socket.IO contracts (core-app spec, section 7). Both namespaces use the websocket
 * transport only; the handshake carries `auth.token` (access JWT) and `query.userId`.
 * Event maps grow with the features that emit them.
 */
import { z } from 'zod';
import type { BoxUpdatePayload } from './boxes.ts';
import type { Attack, AttackEndedPayload, TargetBox } from './attacks.ts';

export const SOCKET_PATH = '/socket.io';
export const GRID_NAMESPACE = '/grid';
export const VPN_STATUS_NAMESPACE = '/vpn-status';

export const socketHandshakeSchema = z.object({
  token: z.string().min(1).max(4096),
  userId: z.string().min(1).max(64),
});
export type SocketHandshake = z.infer<typeof socketHandshakeSchema>;

/** Message of the `connect_error` a client gets when its handshake is refused. */
export const SOCKET_UNAUTHORIZED = 'Unauthorized';

export interface SocketErrorPayload {
  message: string;
}

export interface GridServerToClientEvents {
  readyForState: () => void;
  attackStarted: (attack: Attack) => void;
  attackEnded: (payload: AttackEndedPayload) => void;
  attackBoxUpdated: (payload: { attackId: string; box: TargetBox }) => void;
  error: (payload: SocketErrorPayload) => void;
}
export interface GridClientToServerEvents {
  getInitialState: () => void;
  logout: () => void;
}

export interface VpnStatusServerToClientEvents {
  /** Whether the user has a live VPN client (any protocol). */
  status: (payload: { status: boolean }) => void;
  /** The user's box changed (status, usage, VPN clients); `deleted` when it is gone. */
  boxUpdate: (payload: BoxUpdatePayload) => void;
}
export interface VpnStatusClientToServerEvents {
  requestStatus: () => void;
}
