import {
  GRID_NAMESPACE,
  SOCKET_UNAUTHORIZED,
  VPN_STATUS_NAMESPACE,
  type SocketHandshake,
} from '@exploit-grid/api/contracts';
import {
  action,
  compareStructural,
  makeObservable,
  observable,
  reaction,
  type IReactionDisposer,
} from 'mobx';
import { toast } from '../notifications/toast.ts';
import {
  openSocket,
  type GridSocket,
  type SocketFactory,
  type VpnStatusSocket,
} from '../realtime/sockets.ts';
import { paths } from '../routes/paths.ts';
import { connectionErrorToast } from '../strings/appShell.ts';
import { socketErrorToast } from '../strings/chat.ts';
import type { RootStore } from './RootStore.ts';

/**
 * The two realtime connections of a signed-in page, /grid and /vpn-status. `start()` (entering the
 * authenticated layout) keeps them open for the current token and user, reopening them whenever the token
 * is renewed; `stop()` (leaving) closes both. Socket events land here and in the domain stores (`boxUpdate`
 * in the BoxStore, `balance` in the AuthStore's user), never in components.
 */
export class RealtimeStore {
  /** The grid connection is up: the connection badge reads 'On the Grid'. */
  connected = false;
  /** The VPN status socket's last `status` event: a VPN client of this user is connected. */
  vpnConnected = false;

  private readonly root: RootStore;
  private readonly openSocket: SocketFactory;
  private grid: GridSocket | null = null;
  private vpnStatus: VpnStatusSocket | null = null;
  private watching: IReactionDisposer | null = null;
  /** The token a refused handshake already asked to renew, so a refusal does not renew in a loop. */
  private renewedAfterRefusal: string | null = null;

  constructor(root: RootStore, socketFactory: SocketFactory = openSocket) {
    this.root = root;
    this.openSocket = socketFactory;
    makeObservable<this, 'setConnected' | 'setVpnConnected'>(this, {
      connected: observable,
      vpnConnected: observable,
      setConnected: action,
      setVpnConnected: action,
    });
  }

  start() {
    if (this.watching) return;
    this.watching = reaction(
      (): SocketHandshake | null => {
        // A user restored from storage is not enough: wait until this page has loaded it with the token.
        const { accessToken, user, userStatus } = this.root.auth;
        return accessToken && user && userStatus === 'ready' ? { token: accessToken, userId: user.id } : null;
      },
      (handshake) => {
        this.close();
        if (handshake) this.open(handshake);
      },
      { fireImmediately: true, equals: compareStructural },
    );
  }

  stop() {
    this.watching?.();
    this.watching = null;
    this.close();
  }

  /** Logging out: the grid hears `logout` before both sockets close. */
  closeForLogout() {
    this.grid?.emit('logout');
    this.close();
  }

  private open(handshake: SocketHandshake) {
    const grid: GridSocket = this.openSocket(GRID_NAMESPACE, handshake);
    grid.on('connect', () => this.setConnected(true));
    grid.on('disconnect', () => this.setConnected(false));
    grid.on('connect_error', (error) => {
      this.setConnected(false);
      this.renewIfRefused(error, handshake.token);
    });
    grid.on('readyForState', () => grid.emit('getInitialState'));
    // The server's refusals: worded as the chat screen words them there, as the Grid does elsewhere (section 8).
    grid.on('error', ({ message }) =>
      toast.error(
        this.root.currentPath().startsWith(paths.chats)
          ? socketErrorToast(message)
          : connectionErrorToast(message),
      ),
    );
    grid.on('balance', (balance) => this.root.auth.applyBalance(balance));
    this.root.grid.attach(grid);
    this.root.chat.attach(grid);
    this.grid = grid;

    const vpnStatus: VpnStatusSocket = this.openSocket(VPN_STATUS_NAMESPACE, handshake);
    vpnStatus.on('connect', () => vpnStatus.emit('requestStatus'));
    vpnStatus.on('status', ({ status }) => this.setVpnConnected(status));
    vpnStatus.on('boxUpdate', (update) => this.root.box.applyUpdate(update));
    vpnStatus.on('disconnect', () => this.setVpnConnected(false));
    vpnStatus.on('connect_error', (error) => this.renewIfRefused(error, handshake.token));
    this.vpnStatus = vpnStatus;
  }

  private close() {
    for (const socket of [this.grid, this.vpnStatus]) {
      socket?.removeAllListeners();
      socket?.disconnect();
    }
    if (this.grid) this.root.grid.detach();
    if (this.grid) this.root.chat.detach();
    this.grid = null;
    this.vpnStatus = null;
    this.setConnected(false);
    this.setVpnConnected(false);
  }

  /**
   * A handshake refused as Unauthorized usually means the access token expired while the socket was
   * reconnecting: renew it once; the new token reopens both sockets. Like any refresh, only one refused
   * with 401 ends the session; a transient failure (429, 5xx, offline) keeps it, sockets closed until the
   * token changes.
   */
  private renewIfRefused(error: Error, token: string) {
    if (error.message !== SOCKET_UNAUTHORIZED || this.renewedAfterRefusal === token) return;
    this.renewedAfterRefusal = token;
    this.root.renewSession();
  }

  private setConnected(connected: boolean) {
    this.connected = connected;
  }

  private setVpnConnected(connected: boolean) {
    this.vpnConnected = connected;
  }
}
