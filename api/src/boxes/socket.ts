import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { SOCKET_RATE_LIMITED } from '../contracts/index.ts';
import type { Logger } from '../logger.ts';
import { userRoom, type VpnStatusNamespace } from '../realtime/io.ts';
import type { VpnService } from '../vpn/service.ts';
import type { BoxService } from './service.ts';

/** /vpn-status: the VPN flag on request, and every change of a user's box, to that user only. */
export function wireBoxEvents(
  ns: VpnStatusNamespace,
  boxes: BoxService,
  vpn: VpnService,
  logger: Logger,
): void {
  boxes.events.on('boxUpdate', (userId, payload) => ns.to(userRoom(userId)).emit('boxUpdate', payload));
  vpn.events.on('status', (userId, connected) =>
    ns.to(userRoom(userId)).emit('status', { status: connected }),
  );
  // The portal asks once a connection; a client that loops is told to slow down.
  const limiter = new RateLimiterMemory({ points: 10, duration: 10 });
  ns.on('connection', (socket) => {
    const { userId } = socket.data;
    socket.on('requestStatus', async () => {
      try {
        await limiter.consume(userId);
      } catch (err) {
        if (err instanceof RateLimiterRes) socket.emit('error', { message: SOCKET_RATE_LIMITED });
        else logger.error({ err }, 'Rate limiter failed');
        return;
      }
      socket.emit('status', { status: vpn.isConnected(userId) });
      boxes
        .currentUpdate(userId)
        .then((update) => {
          if (update) socket.emit('boxUpdate', update);
        })
        .catch((err: unknown) => logger.error({ err }, 'Could not send the box state'));
    });
  });
}
