/**
 * What the in-box agent sends to `POST /internal/agent/report` (Authorization: Bearer <box
 * secret>). Events carry a per-box sequence number: a batch may be delivered again after a
 * failure, and events at or below the last stored number are skipped, so each is stored once.
 */
import { z } from 'zod';

const text = (max: number) => z.string().max(max);

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
  /** The VPN address the process's session comes from (its own or an ancestor's socket, or SSH_CONNECTION). */
  peer: z.ipv4().nullable(),
  /** What saw it: the agent's /proc scan or the exec hook (snoopy). */
  source: z.enum(['scan', 'hook']).optional(),
});

export const agentHeartbeatSchema = z.strictObject({
  kind: z.literal('heartbeat'),
  seq: z.number().int().min(1),
  time: z.iso.datetime(),
  /** Peers that hold live sessions (processes attributed to them) right now, with the lowest uid among them. */
  sessions: z.array(z.strictObject({ peer: z.ipv4(), uid: z.number().int().min(0) })).max(256),
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
  .object({ lastSeq: z.number().int(), stored: z.number().int() })
  .meta({ id: 'AgentReportResponse' });
