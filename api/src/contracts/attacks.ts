/** Attacks (core-app spec: entities, Grid, History, calls; DESIGN.md game rules). */
import { z } from 'zod';
import { BOX_STATUSES } from './boxes.ts';

export const ATTACK_OUTCOMES = ['OWNED', 'DEFENDED', 'TIMEOUT', 'PENDING', 'FOOTHOLD', 'CANCELLED'] as const;
export type AttackOutcome = (typeof ATTACK_OUTCOMES)[number];

const playerRef = z.object({ id: z.uuid(), handle: z.string() });

/** The target's box as the attacker sees it: where to aim, never its secrets. */
export const targetBoxSchema = z
  .object({
    id: z.uuid(),
    hostname: z.string(),
    ip: z.string().nullable(),
    status: z.enum(BOX_STATUSES),
    openPorts: z.record(z.string(), z.string()),
  })
  .meta({ id: 'TargetBox' });
export type TargetBox = z.infer<typeof targetBoxSchema>;

/**
 * A service the target's box publishes, as the platform's checks during the attack see it (from the
 * attacker's side of the network): both players see it; the defender must keep it up (docs/game-rules.md).
 */
export const serviceStateSchema = z
  .object({
    name: z.string(),
    port: z.number().int(),
    /** Null until its first check of this attack. */
    up: z.boolean().nullable(),
    /** Since when it has been failing its checks (null while up). */
    downSince: z.iso.datetime().nullable(),
    /** What the last check saw (never the weakness). */
    detail: z.string().nullable(),
    checkedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ServiceState' });
export type ServiceState = z.infer<typeof serviceStateSchema>;

export const attackSchema = z
  .object({
    id: z.uuid(),
    attacker: playerRef,
    target: playerRef,
    box: targetBoxSchema.nullable(),
    /** PENDING while the attack runs; the outcome once settled. */
    outcome: z.enum(ATTACK_OUTCOMES),
    winnerId: z.uuid().nullable(),
    loserId: z.uuid().nullable(),
    /** MMR the attacker gained (negative: lost); the defender moved the opposite way. */
    mmrChange: z.number().int().nullable(),
    /** False when the pair's rated fights of the last day are used up: the result moves no MMR. */
    rated: z.boolean(),
    /** The target's published services and their checks' last results (empty for a box without a loadout). */
    services: z.array(serviceStateSchema),
    /**
     * Whether the target's services stayed up (SERVICE_UPTIME_MIN of their checks passed): only then does a
     * defence count as survived in Defense % and the leaderboard's defence rate.
     */
    servicesUp: z.boolean(),
    createdAt: z.iso.datetime(),
    endsAt: z.iso.datetime(),
    endedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Attack' });
export type Attack = z.infer<typeof attackSchema>;

export const startAttackResponse = z
  .object({ attack: attackSchema, box: targetBoxSchema })
  .meta({ id: 'StartAttackResponse' });
export type StartAttackResponse = z.infer<typeof startAttackResponse>;

export const attackHistoryQuery = z.strictObject({
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be between 1 and 100')
    .max(100, 'limit must be between 1 and 100')
    .default(20),
});

export const attackHistoryItemSchema = z
  .object({
    id: z.uuid(),
    attacker: playerRef,
    target: playerRef,
    outcome: z.enum(ATTACK_OUTCOMES),
    /** False for a fight past the pair's rated fights of the day (it moves no MMR). */
    rated: z.boolean(),
    /** The target box's address, while the box has one (both players know it: the owner and the attacker). */
    targetIp: z.string().nullable(),
    /** The target's services as their checks last saw them, and whether they stayed up (see Attack). */
    services: z.array(serviceStateSchema),
    servicesUp: z.boolean(),
    createdAt: z.iso.datetime(),
    endedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'AttackHistoryItem' });
export type AttackHistoryItem = z.infer<typeof attackHistoryItemSchema>;

export const ATTACK_EVENT_TYPES = [
  'COMMAND',
  'FOOTHOLD',
  'OWN',
  'EVICTED',
  'AGENT_SILENT',
  'AGENT_BACK',
  /** The defender's box went down, or its services stayed down past the grace period: the attacker wins. */
  'FORFEIT',
  /** A service of the target's failed its check (details: service, port, what the check saw). */
  'SERVICE_DOWN',
  /** A service that was down passes its check again. */
  'SERVICE_UP',
  /** The pair's rated results of the last day are used up: this attack moves no MMR. */
  'UNRATED',
  /** The attacker bailed after the grace period: MMR moves as for a TIMEOUT. */
  'BAILED',
] as const;
export type AttackEventType = (typeof ATTACK_EVENT_TYPES)[number];

export const attackEventSchema = z
  .object({
    id: z.string(),
    type: z.enum(ATTACK_EVENT_TYPES),
    createdAt: z.iso.datetime(),
    details: z.object({ message: z.string() }).catchall(z.unknown()),
  })
  .meta({ id: 'AttackEvent' });
export type AttackEvent = z.infer<typeof attackEventSchema>;

export const commandLogSchema = z
  .object({
    id: z.string(),
    timestamp: z.iso.datetime(),
    user: z.string(),
    cwd: z.string(),
    command: z.string(),
  })
  .meta({ id: 'CommandLog' });
export type CommandLog = z.infer<typeof commandLogSchema>;

/** `attackEnded` on /grid. */
export interface AttackEndedPayload {
  attackId: string;
  result: AttackOutcome;
  winnerId: string | null;
  loserId: string | null;
}

export const ATTACK_MESSAGES = {
  notFound: 'Attack not found.',
  targetNotFound: 'Target box not found.',
  ownBox: 'You cannot attack your own box.',
  targetNotRunning: "The target's box is not running.",
  targetOffline: 'The target is not connected to the VPN.',
  attackerNoBox: 'Your box must be running to attack.',
  attackerNoVpn: 'You must be connected to the VPN to attack.',
  attackerBusy: 'You are already in an attack.',
  targetBusy: 'The target is already in an attack.',
  cannotPay: 'Not enough credits to launch an attack.',
  notAttacker: 'Only the attacker can cancel an attack.',
  alreadyEnded: 'This attack has already ended.',
  noReferee: 'Attacks are off on this platform right now: the referee cannot watch the boxes.',
  noConsent: "An attack needs the target's consent: an engaged match or an accepted challenge.",
  blocked: 'You cannot attack a player you blocked or who blocked you.',
  underAttack: 'Your box is under attack: it cannot be powered off or deleted until the attack ends.',
  targetCannotPay: "The target's box cannot pay for the attack's time limit.",
} as const;
