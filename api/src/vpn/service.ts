import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  BOX_MESSAGES,
  VPN_PROTOCOLS,
  type VpnClient,
  type VpnConfig,
  type VpnPoolStatus,
  type VpnProtocol,
} from '../contracts/index.ts';
import type { Sealer } from '../crypto/sealer.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import { forbidden, notFound, serviceUnavailable } from '../http/errors.ts';
import { isUuid } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { recordFirstTunnel } from '../onboarding/milestones.ts';
import type { VpnRuntime, VpnSession } from './port.ts';

export interface VpnServiceOptions {
  orm: Orm;
  /** Whichever box runtime serves the tunnels (its VPN part). */
  runtime: VpnRuntime;
  /** Seals players' private keys at rest. */
  sealer: Sealer;
  logger: Logger;
  /** From this share of a protocol's capacity on, its servers are shown as limited (VPN_LIMITED_PERCENT). */
  limitedPercent: number;
}

export interface VpnServiceEvents {
  /** A player's tunnels changed: whether they hold one now. */
  status: [userId: string, connected: boolean];
}

/**
 * Players' VPN access (docs/architecture.md, "VPN"): who is connected and from where, their client configurations (one
 * certificate per player, issued once, its key sealed at rest), the pool's capacity, revocation (the CRL, and
 * live tunnels cut), and who may connect at all (not revoked, not banned: asked by the runtime for every
 * client). The runtime (vpn/port.ts) does the tunnels.
 */
export class VpnService {
  readonly events = new EventEmitter<VpnServiceEvents>();
  readonly #o: VpnServiceOptions;
  readonly #log: Logger;
  #stopped = false;

  constructor(options: VpnServiceOptions) {
    this.#o = options;
    this.#log = options.logger.child({ component: 'vpn' });
    const { runtime } = options;
    runtime.setVpnAuthorizer((userId) => this.#mayConnect(userId));
    const told = (session: VpnSession) =>
      this.events.emit('status', session.userId, this.isConnected(session.userId));
    // An admitted client is the player's tunnel up: recorded (the first one) before the player's pages are
    // told, so that what they read next (the dashboard's checklist) already has it.
    runtime.events.on(
      'vpnConnected',
      (session) => void this.#recordTunnel(session).finally(() => told(session)),
    );
    runtime.events.on('vpnDisconnected', told);
  }

  #sql(): Sql {
    return new Sql(this.#o.orm.em.fork() as EntityManager);
  }

  /** Gives the runtime the revocation list (the CRL) before anyone connects. */
  async start(): Promise<void> {
    await this.syncRevocations();
  }

  stop(): void {
    this.#stopped = true;
  }

  isConnected(userId: string): boolean {
    return this.#o.runtime.vpnSessions().some((s) => s.userId === userId);
  }

  /** The user whose VPN client holds this address now (attribution), or null. */
  userOfAddress(address: string): string | null {
    return this.#o.runtime.vpnSessions().find((s) => s.vpnAddress === address)?.userId ?? null;
  }

  addressesOf(userId: string): string[] {
    return this.#o.runtime
      .vpnSessions()
      .filter((s) => s.userId === userId)
      .map((s) => s.vpnAddress);
  }

  /** `GET /user-vpn/my-clients`: refused once the player's access is revoked. */
  async myClients(userId: string): Promise<VpnClient[]> {
    await this.#assertNotRevoked(this.#sql(), userId);
    return this.clientsOf(userId);
  }

  /** The player's client per protocol, connected or not (also part of their box's payload). */
  clientsOf(userId: string): VpnClient[] {
    const sessions = this.#o.runtime.vpnSessions().filter((s) => s.userId === userId);
    return VPN_PROTOCOLS.map((protocol) => {
      const session = sessions.find((s) => s.protocol === protocol);
      return {
        protocol,
        isConnected: Boolean(session),
        vpnIp: session?.vpnAddress ?? null,
        connectedAt: session ? session.connectedAt.toISOString() : null,
        realAddress: session?.realAddress ?? null,
      };
    });
  }

  poolStatus(): VpnPoolStatus {
    const usage = this.#o.runtime.poolUsage();
    const level = ({ clients, maxClients }: { clients: number; maxClients: number }) => {
      const full = clients >= maxClients;
      const limited = clients * 100 >= maxClients * this.#o.limitedPercent;
      return {
        capacity_level: full ? 'full' : limited ? 'limited' : 'available',
        is_exhausted: full,
      } as const;
    };
    return { udp: level(usage.UDP), tcp: level(usage.TCP) };
  }

  /** `GET /user-vpn/:userId/:protocol`: the player's own `.ovpn`, their certificate issued at the first call. */
  async config(callerId: string, userId: string, protocol: VpnProtocol): Promise<VpnConfig> {
    if (callerId !== userId) throw forbidden(BOX_MESSAGES.notYourVpn);
    const sql = this.#sql();
    const user = await this.#assertNotRevoked(sql, userId);
    const runtime = this.#o.runtime.status();
    if (!runtime.available) throw serviceUnavailable(runtime.reason ?? BOX_MESSAGES.vpnUnavailable);
    let identity = await sql.one<{ certificate_pem: string; private_key_enc: string; serial_number: string }>(
      'select * from vpn_identities where user_id = ?',
      [userId],
    );
    if (!identity) {
      const issued = await this.#o.runtime.issueVpnIdentity(userId);
      await sql.run(
        `insert into vpn_identities (user_id, serial_number, certificate_pem, private_key_enc)
         values (?, ?, ?, ?) on conflict (user_id) do nothing`,
        [userId, issued.serialNumber, issued.certificatePem, this.#o.sealer.seal(issued.privateKeyPem)],
      );
      identity = await sql.one('select * from vpn_identities where user_id = ?', [userId]);
    }
    const ovpn = this.#o.runtime.vpnClientConfig(
      protocol,
      {
        certificatePem: identity!.certificate_pem,
        privateKeyPem: this.#o.sealer.open(identity!.private_key_enc),
        serialNumber: identity!.serial_number,
      },
      user.handle,
    );
    return { protocol, ovpn_config: ovpn };
  }

  /** Ends a player's VPN access for good: certificate on the CRL, live sessions cut. */
  async revoke(userId: string): Promise<void> {
    await this.#sql().transaction(async (tx) => {
      await tx.run('update users set vpn_revoked_at = coalesce(vpn_revoked_at, now()) where id = ?', [
        userId,
      ]);
      await tx.run(
        `insert into vpn_revocations (serial_number, user_id)
         select serial_number, user_id from vpn_identities where user_id = ? on conflict do nothing`,
        [userId],
      );
    });
    await this.syncRevocations();
    this.#log.warn({ userId }, 'VPN access revoked');
  }

  /** Gives the runtime the whole revocation list again (at start, after a ban, after missed notifications). */
  async syncRevocations(): Promise<void> {
    const rows = await this.#sql().all<{ serial_number: string; user_id: string; revoked_at: string }>(
      'select * from vpn_revocations order by revoked_at',
    );
    await this.#o.runtime.setRevoked(
      rows.map((r) => ({
        userId: r.user_id,
        serialNumber: r.serial_number,
        revokedAt: new Date(r.revoked_at),
      })),
    );
  }

  async #recordTunnel(session: VpnSession): Promise<void> {
    if (this.#stopped || !isUuid(session.userId)) return;
    try {
      if (await recordFirstTunnel(this.#sql(), session.userId, session.connectedAt))
        this.#log.info({ userId: session.userId }, 'First VPN tunnel of a player');
    } catch (err) {
      this.#log.error({ err, userId: session.userId }, 'Could not record a first VPN tunnel');
    }
  }

  async #assertNotRevoked(sql: Sql, userId: string): Promise<{ handle: string }> {
    const user = await sql.one<{ handle: string; vpn_revoked_at: string | null }>(
      'select handle, vpn_revoked_at from users where id = ?',
      [userId],
    );
    if (!user) throw notFound('User not found');
    if (user.vpn_revoked_at) throw forbidden(BOX_MESSAGES.vpnRevoked, 'VPN_REVOKED');
    return user;
  }

  /** Whether a client certificate's common name may connect: a player neither revoked nor banned. */
  async #mayConnect(commonName: string): Promise<boolean> {
    if (!isUuid(commonName)) return false;
    const row = await this.#sql().one<{ ok: boolean }>(
      'select vpn_revoked_at is null and banned_at is null as ok from users where id = ?',
      [commonName],
    );
    return row?.ok === true;
  }
}
