import type { Server as HttpServer } from 'node:http';
import { Server, type Namespace, type Socket } from 'socket.io';
import {
  ACCOUNT_BANNED,
  GRID_NAMESPACE,
  SOCKET_PATH,
  SOCKET_UNAUTHORIZED,
  VPN_STATUS_NAMESPACE,
  socketHandshakeSchema,
  type GridClientToServerEvents,
  type GridServerToClientEvents,
  type VpnStatusClientToServerEvents,
  type VpnStatusServerToClientEvents,
} from '../contracts/index.ts';
import type { Logger } from '../logger.ts';

/** Who a socket belongs to, set by the handshake middleware. */
export interface SocketData {
  userId: string;
  sessionId: string;
}

/** Checks an access token and answers the user and live session it belongs to, or null. */
export type TokenVerifier = (token: string) => Promise<VerifiedToken | null> | VerifiedToken | null;

/** Whom a token names; `banned`: staff banned the account (docs/accounts.md). */
export interface VerifiedToken {
  userId: string;
  sessionId: string;
  banned?: boolean;
}

export type GridNamespace = Namespace<GridClientToServerEvents, GridServerToClientEvents, object, SocketData>;
export type VpnStatusNamespace = Namespace<
  VpnStatusClientToServerEvents,
  VpnStatusServerToClientEvents,
  object,
  SocketData
>;

export interface Realtime {
  io: Server;
  grid: GridNamespace;
  vpnStatus: VpnStatusNamespace;
}

/** The room every socket of a user joins; domain code emits to it. */
export const userRoom = (userId: string) => `user:${userId}`;
/** The room of the sockets opened with one session's tokens: cut when the session ends. */
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;

export function createRealtime(
  httpServer: HttpServer,
  deps: { verifyToken: TokenVerifier; logger: Logger },
): Realtime {
  const log = deps.logger.child({ component: 'realtime' });
  const io = new Server(httpServer, {
    path: SOCKET_PATH,
    // Websocket only: no long-polling fallback, no sticky sessions needed when scaled out.
    transports: ['websocket'],
    serveClient: false,
    maxHttpBufferSize: 64 * 1024,
    pingInterval: 25_000,
    pingTimeout: 20_000,
  });

  /** `refuseBanned`: the namespace is closed to banned accounts (the Grid: chat, presence, challenges). */
  const authenticate = (refuseBanned: boolean) => async (socket: Socket, next: (err?: Error) => void) => {
    const parsed = socketHandshakeSchema.safeParse({
      token: socket.handshake.auth?.token,
      userId: socket.handshake.query?.userId,
    });
    if (!parsed.success) {
      next(new Error(SOCKET_UNAUTHORIZED));
      return;
    }
    try {
      const claims = await deps.verifyToken(parsed.data.token);
      // The token decides who you are; a userId in the query that disagrees is refused.
      if (!claims || claims.userId !== parsed.data.userId) {
        next(new Error(SOCKET_UNAUTHORIZED));
        return;
      }
      if (refuseBanned && claims.banned) {
        next(new Error(ACCOUNT_BANNED));
        return;
      }
      Object.assign(socket.data as SocketData, { userId: claims.userId, sessionId: claims.sessionId });
      await socket.join([userRoom(claims.userId), sessionRoom(claims.sessionId)]);
      next();
    } catch (err) {
      log.error({ err }, 'Socket authentication failed');
      next(new Error(SOCKET_UNAUTHORIZED));
    }
  };

  // The main namespace is not used; refuse it rather than leave it open.
  io.of('/').use((_socket, next) => next(new Error(SOCKET_UNAUTHORIZED)));
  const grid: GridNamespace = io.of(GRID_NAMESPACE);
  const vpnStatus: VpnStatusNamespace = io.of(VPN_STATUS_NAMESPACE);
  for (const namespace of [grid, vpnStatus] as Namespace[]) {
    namespace.use(authenticate(namespace === (grid as Namespace)));
    namespace.on('connection', (socket) => {
      log.debug(
        { namespace: namespace.name, userId: (socket.data as SocketData).userId },
        'Socket connected',
      );
    });
  }
  return { io, grid, vpnStatus };
}

/** Disconnects every socket of ended sessions (or of every session of a user), in all namespaces. */
export function disconnectSessions(
  realtime: Realtime,
  ended: { userId: string; sessionIds?: string[] },
): void {
  const rooms = ended.sessionIds ? ended.sessionIds.map(sessionRoom) : [userRoom(ended.userId)];
  for (const namespace of [realtime.grid, realtime.vpnStatus] as Namespace[]) {
    namespace.in(rooms).disconnectSockets(true);
  }
}

/**
 * Re-checks the sessions of every connected socket every `intervalMs` and cuts the sockets whose session is
 * no longer live: it expired or was ended on another API replica (a ban ends them too). Sessions ended
 * in this process are cut at once (disconnectSessions); this catches everything else. Answers a stop function.
 */
export function watchSessions(
  realtime: Realtime,
  deps: { liveSessions: (ids: string[]) => Promise<Set<string>>; intervalMs: number; logger: Logger },
): () => void {
  const log = deps.logger.child({ component: 'realtime' });
  const namespaces = [realtime.grid, realtime.vpnStatus] as Namespace[];
  let running = false;
  const sweep = async () => {
    const ids = new Set<string>();
    for (const namespace of namespaces)
      for (const socket of namespace.sockets.values()) {
        const { sessionId } = socket.data as Partial<SocketData>;
        if (sessionId) ids.add(sessionId);
      }
    if (ids.size === 0) return;
    const live = await deps.liveSessions([...ids]);
    const ended = [...ids].filter((id) => !live.has(id));
    if (ended.length === 0) return;
    for (const namespace of namespaces) namespace.in(ended.map(sessionRoom)).disconnectSockets(true);
    log.info({ sessions: ended.length }, 'Disconnected the sockets of ended sessions');
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweep()
      .catch((err: unknown) => log.error({ err }, 'Could not re-check the sessions of sockets'))
      .finally(() => (running = false));
  }, deps.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
