/** Boxes and VPN access (core-app spec: My Box, entities, calls, /vpn-status socket). */
import { z } from 'zod';

export const BOX_STATUSES = ['PROVISIONING', 'RUNNING', 'STOPPED', 'CRASHED'] as const;
export type BoxStatus = (typeof BOX_STATUSES)[number];

export const VPN_PROTOCOLS = ['UDP', 'TCP'] as const;
export type VpnProtocol = (typeof VPN_PROTOCOLS)[number];

export const vpnClientSchema = z
  .object({
    protocol: z.enum(VPN_PROTOCOLS),
    isConnected: z.boolean(),
    /** The player's address on the VPN while connected (what their box sees). */
    vpnIp: z.string().nullable(),
    connectedAt: z.iso.datetime().nullable(),
    /**
     * Where the player's VPN client connects from while connected: its public address as the VPN server sees
     * it (OpenVPN's `untrusted_ip`), null when the server did not say. Only ever shown to that player.
     */
    realAddress: z.string().nullable(),
  })
  .meta({ id: 'VpnClient' });
export type VpnClient = z.infer<typeof vpnClientSchema>;

/** A service of the box's loadout its owner must keep up (docs/catalogue.md); never its weakness. */
export const boxServiceSchema = z
  .object({
    name: z.string(),
    port: z.number().int(),
    /** What the service must keep doing (what the platform's checks ask of it). */
    keeps: z.string(),
  })
  .meta({ id: 'BoxService' });
export type BoxServiceInfo = z.infer<typeof boxServiceSchema>;

export const boxSchema = z
  .object({
    id: z.uuid(),
    hostname: z.string(),
    /** The box's address on the arena network, reachable over the VPN. */
    ip: z.string().nullable(),
    status: z.enum(BOX_STATUSES),
    /** Root password for ssh (shown to the owner only). */
    ssh_password: z.string(),
    accumulatedUsageSeconds: z.number().int(),
    lastPoweredAt: z.iso.datetime().nullable(),
    vpnClients: z.array(vpnClientSchema),
    /** Listening TCP ports inside the box, port → service name (or 'unknown'). */
    openPorts: z.record(z.string(), z.string()),
    owner: z.object({ id: z.uuid(), handle: z.string() }),
    /** Box time left today for tiers with a daily limit (BASIC), null when unlimited. */
    dailyRemainingSeconds: z.number().int().nullable(),
    /** Why the box is in its state: boot progress, a crash, a stop for lack of credits; else null. */
    statusReason: z.string().nullable(),
    /** Why the box cannot run on this platform right now (runtime unavailable), else null. */
    unavailableReason: z.string().nullable(),
    /** The services the box was given to defend and keep up, by port. */
    services: z.array(boxServiceSchema),
  })
  .meta({ id: 'Box' });
export type Box = z.infer<typeof boxSchema>;

export const createBoxRequest = z
  .strictObject({
    /** Optional OpenSSH public key installed for root next to the password. */
    sshPublicKey: z
      .string()
      .trim()
      .max(8192, 'SSH public key is too long.')
      .regex(
        /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com) [A-Za-z0-9+/=]+( [^\r\n]*)?$/,
        'SSH public key must be one line in OpenSSH format, e.g. "ssh-ed25519 AAAA... you@host".',
      )
      .optional(),
  })
  .meta({ id: 'CreateBoxRequest' });
export type CreateBoxRequest = z.input<typeof createBoxRequest>;

export const powerBoxRequest = z
  .strictObject({ on: z.boolean({ error: 'on must be true or false' }) })
  .meta({ id: 'PowerBoxRequest' });
export type PowerBoxRequest = z.input<typeof powerBoxRequest>;

export const deleteBoxResponse = z.object({ deleted: z.literal(true) }).meta({ id: 'DeleteBoxResponse' });

/**
 * A saved state of a box's disk (the tiers' snapshot slots; docs/boxes.md): restored in place of a fresh
 * reset, with the services the box had then.
 */
export const boxSnapshotSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    createdAt: z.iso.datetime(),
    /** What the snapshot takes on the platform's disk (compressed). */
    sizeBytes: z.number().int(),
  })
  .meta({ id: 'BoxSnapshot' });
export type BoxSnapshot = z.infer<typeof boxSnapshotSchema>;

export const boxSnapshotsSchema = z
  .object({
    snapshots: z.array(boxSnapshotSchema),
    /** How many the owner's tier allows (0 on BASIC). */
    slots: z.number().int(),
  })
  .meta({ id: 'BoxSnapshots' });
export type BoxSnapshots = z.infer<typeof boxSnapshotsSchema>;

export const SNAPSHOT_NAME_MAX = 40;
export const createSnapshotRequest = z
  .strictObject({
    name: z
      .string({ error: 'Name your snapshot.' })
      .trim()
      .min(1, 'Name your snapshot.')
      .max(SNAPSHOT_NAME_MAX, `A snapshot name has at most ${SNAPSHOT_NAME_MAX} characters.`)
      // A refinement, not a pattern: OpenAPI tools cannot build strings for Unicode property classes.
      .refine(
        (name) => !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name),
        'A snapshot name is one line of plain text.',
      ),
  })
  .meta({ id: 'CreateSnapshotRequest' });
export type CreateSnapshotRequest = z.input<typeof createSnapshotRequest>;

export const CAPACITY_LEVELS = ['available', 'limited', 'full'] as const;
export type CapacityLevel = (typeof CAPACITY_LEVELS)[number];

const poolCapacity = z.object({ capacity_level: z.enum(CAPACITY_LEVELS), is_exhausted: z.boolean() });
export const vpnPoolStatusSchema = z
  .object({ tcp: poolCapacity, udp: poolCapacity })
  .meta({ id: 'VpnPoolStatus' });
export type VpnPoolStatus = z.infer<typeof vpnPoolStatusSchema>;

export const vpnConfigSchema = z
  .object({
    protocol: z.enum(VPN_PROTOCOLS),
    /** The whole OpenVPN client configuration (inline certificates and keys). */
    ovpn_config: z.string(),
  })
  .meta({ id: 'VpnConfig' });
export type VpnConfig = z.infer<typeof vpnConfigSchema>;

/** State of the box runtime of this platform (local runtime: the base image build). */
export const boxRuntimeSchema = z
  .object({
    available: z.boolean(),
    reason: z.string().nullable(),
    image: z.object({
      state: z.enum(['missing', 'building', 'ready', 'failed']),
      percent: z.number().int().min(0).max(100),
      step: z.string().nullable(),
    }),
  })
  .meta({ id: 'BoxRuntime' });
export type BoxRuntime = z.infer<typeof boxRuntimeSchema>;

/** `boxUpdate` on /vpn-status: the spec's fields plus id/hostname/ip so a client can match it. */
export interface BoxUpdatePayload {
  id: string;
  hostname: string;
  status: BoxStatus;
  accumulatedUsageSeconds: number;
  lastPoweredAt: string | null;
  /** The box's address reachable over the VPN (same as Box.ip). */
  vpnIp: string | null;
  vpnClients: VpnClient[];
  dailyRemainingSeconds: number | null;
  statusReason: string | null;
  openPorts: Record<string, string>;
  /** True when the box was deleted (no further updates follow). */
  deleted?: boolean;
}

/** Messages the portal shows verbatim (spec section 8). */
export const BOX_MESSAGES = {
  vpnRevoked: 'VPN access has been revoked',
  dailyLimit:
    'Daily time limit reached. Your box will be available again tomorrow, or consider upgrading for unlimited access.',
  alreadyHaveBox: 'You already have a box.',
  noBox: 'Box not found.',
  reset: 'Reset: a fresh system with new services to defend. Start it to boot the new system.',
  resetFailed: 'The box could not be reset right now. It is as it was; try again in a moment.',
  cannotPay: 'Not enough credits to run your box. Buy credits or redeem a gift to continue.',
  notYourVpn: 'You can only download your own VPN configuration.',
  runtimeUnavailable: 'Boxes cannot run on this platform right now.',
  /** Boxes are switched off on purpose (no runtime configured). */
  boxesOff: 'Boxes are turned off on this platform.',
  vpnUnavailable: 'The VPN is not available right now. Try again in a moment.',
} as const;

/** What the snapshot calls answer (docs/boxes.md, "Snapshots"): the portal shows the server's text. */
export const SNAPSHOT_MESSAGES = {
  notInTier: 'Snapshots come with the HACKER, ELITE and TEAM plans.',
  slotsFull: 'All your snapshot slots are in use: delete a snapshot first.',
  nameTaken: 'You already have a snapshot with that name.',
  notFound: 'Snapshot not found.',
  unavailable: 'Snapshots are not available on this platform’s box runtime.',
  failed: 'The snapshot could not be taken right now. Your box is as it was; try again in a moment.',
  taking: 'A snapshot of your box is being taken: wait for it to finish.',
  noDisk: 'Your box has no disk to save yet: start it once, then take the snapshot.',
  restored: 'Restored from a snapshot. Start your box to boot it.',
  restoreFailed:
    'The snapshot could not be restored right now. Your box is as it was; try again in a moment.',
  imageGone: 'This snapshot was taken on a box image this platform no longer has: it cannot be restored.',
} as const;
