import { z } from 'zod';
import { attackSchema } from '../contracts/index.ts';
import { VPN_PROTOCOLS } from '../contracts/boxes.ts';
import { checkSchema } from '@exploit-grid/operator/catalogue';
import { method } from './rpc.ts';

/**
 * The narrow interface between the API (unprivileged) and the host process (root), which
 * runs the local box runtime and its referee (docs/architecture.md, "Privileges"). What the
 * API may ask is what the BoxOrchestrator port offers, with every argument validated here:
 * a compromised API can do what the API's own calls do, and nothing else that needs root.
 */

const id = z.uuid();
const none = z.tuple([]);
const nothing = z.void();

const boxSpec = z.strictObject({
  id,
  slot: z.number().int().min(0).max(65_535),
  hostname: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/),
  ownerId: id,
  ownerHandle: z.string().max(64).optional(),
  power: z.boolean(),
  // Printable ASCII: it goes to `openssl passwd` on stdin, one line.
  rootPassword: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[\x21-\x7e]+$/),
  sshPublicKey: z
    .string()
    .max(8192)
    .regex(/^[^\r\n\0]+$/)
    .nullable(),
  agentToken: z
    .string()
    .max(256)
    .regex(/^[\x21-\x7e]+$/)
    .nullable(),
  // Catalogue entry ids: the host reads their files from the catalogue (operator/catalogue/<id>).
  loadout: z
    .array(z.string().regex(/^[a-z][a-z0-9-]{1,30}[a-z0-9]$/))
    .max(16)
    .refine((ids) => new Set(ids).size === ids.length, 'an entry appears twice'),
  resources: z.strictObject({
    memoryMiB: z.number().int().min(64).max(65_536),
    cpuMillis: z.number().int().min(50).max(64_000),
    pids: z.number().int().min(32).max(100_000),
  }),
});

const observation = z.object({
  phase: z.enum(['PROVISIONING', 'RUNNING', 'STOPPED', 'CRASHED']),
  ip: z.string().nullable(),
  openPorts: z.record(z.string(), z.string()),
  reason: z.string().nullable(),
  poweredOffInside: z.boolean().optional(),
  sshClients: z.array(z.string().max(64)).max(65_536).optional(),
});

const protocol = z.enum(VPN_PROTOCOLS);

const vpnSession = z.object({
  userId: z.string(),
  protocol,
  vpnAddress: z.string(),
  connectedAt: z.date(),
  realAddress: z.string().max(64).nullable().optional(),
});

const runtimeStatus = z.object({
  available: z.boolean(),
  reason: z.string().nullable(),
  image: z.object({
    state: z.enum(['missing', 'building', 'ready', 'failed']),
    percent: z.number(),
    step: z.string().nullable(),
  }),
});

const pool = z.object({ clients: z.number().int(), maxClients: z.number().int() });

/** What the API keeps a copy of, for the port's synchronous calls. */
export const hostStateSchema = z.object({
  status: runtimeStatus,
  sessions: z.array(vpnSession),
  pool: z.object({ UDP: pool, TCP: pool }),
  /** What every client configuration holds besides the player's own certificate. */
  vpnProfile: z
    .object({
      remoteHost: z.string(),
      ports: z.object({ UDP: z.number().int(), TCP: z.number().int() }),
      serverName: z.string(),
      caPem: z.string(),
      tlsCryptKey: z.string(),
    })
    .nullable(),
});
export type HostState = z.infer<typeof hostStateSchema>;

const identity = z.object({
  certificatePem: z.string(),
  privateKeyPem: z.string(),
  serialNumber: z.string(),
});

const recordedCommand = z.object({
  key: z.string().nullable(),
  time: z.union([z.date(), z.string()]),
  user: z.string(),
  uid: z.number().int(),
  cwd: z.string(),
  command: z.string(),
  pid: z.number().int(),
  peer: z.string().nullable(),
});

/** What the host process serves. */
export const hostMethods = {
  start: method(none, hostStateSchema),
  applyBox: method(z.tuple([boxSpec]), observation),
  deleteBox: method(z.tuple([id]), nothing),
  boxIds: method(none, z.array(z.string())),
  issueVpnIdentity: method(z.tuple([id]), identity),
  setRevoked: method(
    z.tuple([
      z
        .array(
          z.strictObject({
            userId: id,
            serialNumber: z.string().regex(/^[0-9a-fA-F]{1,64}$/),
            revokedAt: z.date(),
          }),
        )
        .max(1_000_000),
    ]),
    nothing,
  ),
  openAttackWindow: method(z.tuple([id, id, z.date()]), nothing),
  closeAttackWindow: method(z.tuple([id, id]), nothing),
  // null: the box has no disk yet.
  snapshotBox: method(z.tuple([id, id]), z.object({ sizeBytes: z.number().int().min(0).nullable() })),
  restoreBox: method(z.tuple([id, id]), z.enum(['restored', 'image-gone'])),
  deleteSnapshot: method(z.tuple([id, id]), nothing),
  checkServices: method(
    z.tuple([id, id, z.array(checkSchema).max(32), z.number().int().min(100).max(10_000)]),
    z.array(z.object({ ok: z.boolean(), detail: z.string() })).nullable(),
  ),
  prepareSpares: method(z.tuple([z.array(z.number().int().min(0).max(65_535)).max(65_536)]), nothing),
  spareLoadout: method(
    z.tuple([z.number().int().min(0).max(65_535)]),
    z.array(z.string().max(64)).max(16).nullable(),
  ),
  close: method(none, nothing),
  refereeStart: method(none, z.boolean()),
  refereeWatch: method(z.tuple([attackSchema]), nothing),
  refereeUnwatch: method(z.tuple([id]), nothing),
  refereeSettled: method(none, nothing),
  refereeClose: method(none, nothing),
};

/** What the API serves the host process: who may use the VPN, and where the referee's verdicts go. */
export const apiMethods = {
  authorize: method(z.tuple([z.string().max(64)]), z.boolean()),
  running: method(none, z.array(attackSchema)),
  recordCommands: method(z.tuple([id, z.array(recordedCommand)]), z.array(z.boolean())),
  recordFoothold: method(z.tuple([id, z.string()]), z.boolean()),
  recordEviction: method(z.tuple([id, z.string()]), nothing),
  recordOwn: method(z.tuple([id, z.string()]), z.boolean()),
};

export const hostEvents = {
  vpnConnected: z.tuple([vpnSession]),
  vpnDisconnected: z.tuple([vpnSession]),
  boxChanged: z.tuple([z.string()]),
  state: z.tuple([hostStateSchema]),
};
export const apiEvents = {};

/** Tells the API that the host process started it and serves the box runtime (internal). */
export const HOST_CHANNEL_ENV = 'EXPLOIT_GRID_HOST_CHANNEL';
