import {
  SOCKET_PATH,
  type GRID_NAMESPACE,
  type GridClientToServerEvents,
  type GridServerToClientEvents,
  type SocketHandshake,
  type VPN_STATUS_NAMESPACE,
  type VpnStatusClientToServerEvents,
  type VpnStatusServerToClientEvents,
} from '@exploit-grid/api/contracts';
import { io, type Socket } from 'socket.io-client';

export type RealtimeNamespace = typeof GRID_NAMESPACE | typeof VPN_STATUS_NAMESPACE;
export type GridSocket = Socket<GridServerToClientEvents, GridClientToServerEvents>;
export type VpnStatusSocket = Socket<VpnStatusServerToClientEvents, VpnStatusClientToServerEvents>;

/** Opens one namespace for one session; the RealtimeStore takes another in tests. */
export type SocketFactory = (namespace: RealtimeNamespace, handshake: SocketHandshake) => Socket;

/**
 * Websocket transport only, `auth.token` and `query.userId` (core-app section 7). Each session gets its own
 * connection (`forceNew`): a socket reopened with a fresh token or for another user never reuses a
 * connection whose handshake carried the old one.
 */
export const openSocket: SocketFactory = (namespace, { token, userId }) =>
  io(namespace, {
    path: SOCKET_PATH,
    transports: ['websocket'],
    auth: { token },
    query: { userId },
    forceNew: true,
  });
