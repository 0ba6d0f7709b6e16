/**
 * The Grid (core-app spec: The Grid, entities, states, calls, /grid socket, error catalogue, constants):
 * presence on the globe, matchmaking, PvP challenges, target info, blocking and notifications.
 */
import { z } from 'zod';
import { attackSchema, targetBoxSchema, type Attack } from './attacks.ts';
import type { GlobalChatMessage } from './chat.ts';

/** Someone online on the globe. Coordinates are coarse (country centroid), null when unknown. */
export const gridPlayerSchema = z
  .object({
    id: z.uuid(),
    handle: z.string(),
    mmr: z.number().int(),
    /** Country name, or null: the portal shows 'Location Unknown'. */
    country: z.string().nullable(),
    /** ISO 3166-1 alpha-2 code of `country`. */
    countryCode: z.string().nullable(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
  })
  .meta({ id: 'GridPlayer' });
export type GridPlayer = z.infer<typeof gridPlayerSchema>;

export const playerRefSchema = z.object({ id: z.uuid(), handle: z.string() }).meta({ id: 'PlayerRef' });
export type PlayerRef = z.infer<typeof playerRefSchema>;
/** A user the caller blocked. */
export type BlockedUser = PlayerRef;

export interface GridInitialState {
  players: GridPlayer[];
  /** Attacks running now, for the globe's arcs. */
  attacks: Attack[];
  globalChatMessages: GlobalChatMessage[];
  blockedUsers: BlockedUser[];
}

// ---- matchmaking ----------------------------------------------------------------------------

export const queueInfoSchema = z
  .object({
    /** Expected wait in seconds; -1 when the caller is not queued. */
    estimateSeconds: z.number().int(),
    /** 1-based place among the queued players (by time joined), 0 when not queued. */
    position: z.number().int(),
    queued: z.boolean(),
  })
  .meta({ id: 'QueueInfo' });
export type QueueInfo = z.infer<typeof queueInfoSchema>;

export const queueEstimateSchema = z
  .object({ estimateSeconds: z.number().int() })
  .meta({ id: 'QueueEstimate' });
export type QueueEstimate = z.infer<typeof queueEstimateSchema>;

export const proposalRequest = z
  .strictObject({ proposalId: z.uuid({ error: 'proposalId must be a proposal id' }) })
  .meta({ id: 'ProposalRequest' });
export type ProposalRequest = z.input<typeof proposalRequest>;

export const matchProposalSchema = z
  .object({
    proposalId: z.uuid(),
    attacker: playerRefSchema,
    defender: playerRefSchema,
    expiresAt: z.iso.datetime(),
  })
  .meta({ id: 'MatchProposal' });
export type MatchProposal = z.infer<typeof matchProposalSchema>;

/**
 * Answer of engage: `started` once both players engaged (then the attack and the target box; for both
 * players `attackStarted` follows on the socket); `started: false` while the other has not engaged yet.
 */
export const engageResponseSchema = z
  .object({ started: z.boolean(), attack: attackSchema.nullable(), box: targetBoxSchema.nullable() })
  .meta({ id: 'EngageResponse' });
export type EngageResponse = z.infer<typeof engageResponseSchema>;

/**
 * Why a proposal ended without an attack. OPPONENT_LEFT: the other left the queue or the grid (you
 * stay queued); OPPONENT_DISMISSED: the other dismissed it; EXPIRED: nobody engaged in time (both leave
 * the queue). Also DISMISSED to the one who dismissed, and UNAVAILABLE when the attack could not start.
 */
export const MATCH_EXPIRY_REASONS = [
  'OPPONENT_LEFT',
  'OPPONENT_DISMISSED',
  'EXPIRED',
  'DISMISSED',
  'UNAVAILABLE',
] as const;
export type MatchExpiryReason = (typeof MATCH_EXPIRY_REASONS)[number];

export interface MatchExpiredPayload {
  proposalId: string;
  reason: MatchExpiryReason;
  /** For UNAVAILABLE: why the attack could not start. */
  message?: string;
}

// ---- PvP ----------------------------------------------------------------------------------

export interface PvpIncomingPayload {
  requester: PlayerRef & { mmr: number };
  expiresAt: string;
}
export interface PvpAcceptedPayload {
  attack: Attack;
}
export interface PvpDeclinedPayload {
  decliner: PlayerRef;
}

// ---- target info --------------------------------------------------------------------------

export const targetInfoSchema = z
  .object({
    userId: z.uuid(),
    handle: z.string(),
    mmr: z.number().int(),
    /** Share of the player's finished defenses they survived (DEFENDED, TIMEOUT), in percent, 0 when none. */
    defense: z.number(),
    defensesSurvived: z.number().int(),
    defensesTotal: z.number().int(),
    /** The services the target's box publishes (its loadout's), by port: what a scan would find. Empty without a box. */
    ports: z.array(z.object({ port: z.number().int(), name: z.string() })),
  })
  .meta({ id: 'TargetInfo' });
export type TargetInfo = z.infer<typeof targetInfoSchema>;

// ---- notifications ------------------------------------------------------------------------

export const NOTIFICATION_TYPES = [
  'ATTACK_INBOUND',
  'ATTACK_OWNED',
  'ATTACK_FOOTHOLD',
  'ATTACK_DEFENDED',
  'ATTACK_TIMEOUT',
  'CHAT_REQUEST',
  'PRIVATE_MESSAGE',
  'GENERIC',
  'ERROR',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface GridNotification {
  id: string;
  type: NotificationType;
  title: string;
  body: string;
  initiator: PlayerRef | null;
  chatId: string | null;
  attackId: string | null;
  createdAt: string;
}

// ---- texts --------------------------------------------------------------------------------

export const GRID_MESSAGES = {
  notQueued: 'You are not in the matchmaking queue.',
  alreadyQueued: 'You are already in the matchmaking queue.',
  needBox: 'Your box must be running to queue.',
  needVpn: 'You must be connected to the VPN to queue.',
  busyAttack: 'You are already in an attack.',
  busyProposal: 'You already have a match waiting for you.',
  proposalNotFound: 'Match not found or no longer available.',
  noMatch: 'No opponent within range right now. Try again in a few minutes.',
  playerNotFound: 'Player not found.',
  pvpSelf: 'You cannot challenge yourself.',
  pvpOffline: 'That player is not on the grid.',
  pvpBlocked: 'You cannot challenge this player.',
  pvpPending: 'You already challenged this player.',
  pvpNotFound: 'That challenge is no longer open.',
  blockSelf: 'You cannot block yourself.',
  rateLimited: 'Too many requests. Slow down.',
  invalid: 'Invalid request.',
} as const;

/** Timings of the grid (core-app section 9 where it sets them). */
export const GRID_TIMINGS = {
  proposalMs: 30_000,
  pvpRequestMs: 30_000,
  targetInfoCacheMs: 5 * 60_000,
} as const;
