/**
 * What the in-box agent of a virtual machine sends to `POST /internal/agent/report`
 * (Authorization: Bearer <box secret>): the programs its judge gave to a network peer, and
 * heartbeats (docs/detection.md). Events carry a per-box sequence number: a batch may be
 * delivered again after a failure, and events at or below the last stored number are skipped,
 * so each is stored once.
 */
import { z } from 'zod';

/** Text for the database: never a NUL character (an agent refused gives that one event up). */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((value) => !value.includes('\0'), 'must not contain NUL characters');

export const agentProcessSchema = z.strictObject({
  pid: z.number().int().min(1),
  uid: z.number().int().min(0),
  command: text(4096),
});

export const agentExecEventSchema = z.strictObject({
  kind: z.literal('exec'),
  seq: z.number().int().min(1),
  time: z.iso.datetime(),
  pid: z.number().int().min(1),
  ppid: z.number().int().min(0),
  /** Real uid. */
  uid: z.number().int().min(0),
  /** Effective uid, when the agent could confirm it (a set-user-ID root shell has 0 here). */
  euid: z.number().int().min(0).optional(),
  user: text(64),
  cwd: text(4096),
  command: text(8192),
  /** Ancestors, nearest first. */
  chain: z.array(agentProcessSchema).max(64),
  /** The peer's end of the connection its process tree held (the judge's attribution). */
  peer: z.ipv4(),
  peerPort: z.number().int().min(1).max(65535),
  /** What saw it: the agent's /proc scan or the exec hook (snoopy). */
  source: z.enum(['scan', 'hook']).optional(),
});

export const agentHeartbeatSchema = z.strictObject({
  kind: z.literal('heartbeat'),
  seq: z.number().int().min(1),
  time: z.iso.datetime(),
  /**
   * Peers whose programs run right now, by the connection that made them theirs (the peer's
   * address and port), with the lowest real uid among them.
   */
  sessions: z
    .array(
      z.strictObject({
        peer: z.ipv4(),
        peerPort: z.number().int().min(1).max(65535),
        uid: z.number().int().min(0),
      }),
    )
    .max(256),
  /** The box's TCP connections with the peers the API watches (its last answer's `watch`). */
  connections: z
    .array(
      z.strictObject({
        peer: z.ipv4(),
        peerPort: z.number().int().min(1).max(65535),
        localPort: z.number().int().min(1).max(65535),
      }),
    )
    .max(8192),
});

export const agentReportSchema = z
  .strictObject({
    events: z
      .array(z.discriminatedUnion('kind', [agentExecEventSchema, agentHeartbeatSchema]))
      .min(1)
      .max(500),
  })
  .meta({ id: 'AgentReport' });
export type AgentReport = z.infer<typeof agentReportSchema>;
export type AgentExecEvent = z.infer<typeof agentExecEventSchema>;
export type AgentHeartbeat = z.infer<typeof agentHeartbeatSchema>;

export const agentReportResponse = z
  .object({
    lastSeq: z.number().int(),
    /** Events taken for the running attack on the box. */
    stored: z.number().int(),
    /**
     * The peers whose connections heartbeats must list: the attacker's VPN addresses during an attack; outside
     * one, the owner's until their first ssh login to the box is seen (the dashboard's checklist).
     */
    watch: z.array(z.ipv4()),
  })
  .meta({ id: 'AgentReportResponse' });
