import type { VpnProtocol } from '../contracts/boxes.ts';

/**
 * The VPN's part of the BoxOrchestrator port (boxes/orchestrator.ts): what the VPN service asks of whichever
 * runtime serves the tunnels (the local runtime's OpenVPN servers on this host, the Kubernetes runtime's
 * VpnPool pods). The CA, certificates and CRL are made by `VpnPki` (operator/src/vpn/pki.ts: the operator
 * makes a pool's PKI on Kubernetes, and the local runtime uses the same class), the `.ovpn` file by
 * `clientConfig` (client-config.ts).
 */
export interface VpnRuntime {
  /** Where the runtime tells of tunnels opening and closing (the port's own emitter). */
  readonly events: {
    on<K extends keyof VpnEvents>(event: K, listener: (...args: VpnEvents[K]) => void): unknown;
  };
  /** Whether the runtime can serve now, and why not. */
  status(): { available: boolean; reason: string | null };
  /** A new client certificate for a player, from the VPN's CA. */
  issueVpnIdentity(userId: string): Promise<VpnIdentity>;
  /**
   * Optional: what every client configuration holds besides the player's own certificate
   * (null while the VPN is not ready), for a runtime served from another process.
   */
  vpnProfile?(): VpnProfile | null;
  /** The `.ovpn` file for one protocol with an identity issued earlier. */
  vpnClientConfig(protocol: VpnProtocol, identity: VpnIdentity, label: string): string;
  /** Replaces the revocation list and cuts live sessions of revoked players. */
  setRevoked(revoked: RevokedIdentity[]): Promise<void>;
  /** Who may connect: asked for every VPN client (and every renegotiation). */
  setVpnAuthorizer(authorize: (userId: string) => Promise<boolean>): void;
  vpnSessions(): VpnSession[];
  poolUsage(): Record<VpnProtocol, { clients: number; maxClients: number }>;
}

export interface VpnEvents {
  vpnConnected: [VpnSession];
  vpnDisconnected: [VpnSession];
}

export interface VpnIdentity {
  certificatePem: string;
  privateKeyPem: string;
  serialNumber: string;
}

export interface VpnProfile {
  remoteHost: string;
  ports: Record<VpnProtocol, number>;
  serverName: string;
  caPem: string;
  tlsCryptKey: string;
}

export interface RevokedIdentity {
  userId: string;
  serialNumber: string;
  revokedAt: Date;
}

export interface VpnSession {
  userId: string;
  protocol: VpnProtocol;
  vpnAddress: string;
  connectedAt: Date;
  /**
   * The address the player's client connects from, as the VPN server sees it (OpenVPN's `untrusted_ip`,
   * without the port), where the server tells it; shown to that player alone ('Your tunnel is up from ...').
   */
  realAddress?: string | null;
}
