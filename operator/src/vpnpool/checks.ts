/**
 * The service checks the VPN servers make for the API on the Kubernetes runtime (docs/game-rules.md,
 * "Services stay up"; docs/kubernetes.md). The API decides what is checked and judges the answers
 * (`runCheck`); a server holding the attacker's session only makes the connection, from its arena address
 * renamed to the attacker's VPN address, on the source port the API chose. The servers ask for work with a
 * long poll (`POST /internal/vpn/checks/next`) and post each outcome (`POST /internal/vpn/checks/result`),
 * with the pool's hook token: nothing reaches into a server.
 */
import * as z from 'zod/mini';
import { MAX_ANSWER, PROBE_PORTS } from '../catalogue/transports.ts';

/** How long the API holds a server's long poll when there is nothing to check. */
export const CHECKS_POLL_MS = 20_000;
/** A check's connection waits this long at most. */
export const CHECK_TIMEOUT_MAX_MS = 30_000;

// zod's small build: these schemas go into the VPN servers' checker bundle too (a ConfigMap).
const int = (min: number, max: number) => z.number().check(z.int(), z.minimum(min), z.maximum(max));
const port = int(1, 65535);
const text = z.string().check(z.maxLength(4096));
const server = z.string().check(z.minLength(1), z.maxLength(253));
const id = z.uuid();

export const checkJobSchema = z.strictObject({
  id,
  /** The box's arena address, and the port checked on it. */
  box: z.ipv4(),
  port,
  /** The attacker's VPN address: the box sees the check come from it. */
  speakingAs: z.ipv4(),
  /** Chosen by the API (never one of the attacker's witnessed flows with the box). */
  sourcePort: int(PROBE_PORTS.first, PROBE_PORTS.last),
  timeoutMs: int(100, CHECK_TIMEOUT_MAX_MS),
  request: z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('http'),
      method: z.enum(['GET', 'POST']),
      /** Path and query, from the box's root. */
      path: z.string().check(z.startsWith('/'), z.maxLength(2048)),
      form: z.optional(z.record(z.string().check(z.maxLength(256)), text)),
    }),
    z.strictObject({ type: z.literal('tcp'), send: text, contains: text }),
  ]),
});
export type CheckJob = z.infer<typeof checkJobSchema>;

/** A poll's answer: each job is validated on its own (one the server refuses is one check not made). */
export const checkJobsSchema = z.strictObject({ jobs: z.array(z.unknown()).check(z.maxLength(1024)) });

export const checksPollSchema = z.strictObject({ server });

/**
 * What became of a job: `answered` (an HTTP status and body, or what a TCP service said), `failed` (the
 * service did not answer: the defender's), `not-run` (the server could not make the check: nobody's), or
 * `port-taken` (the source port is in use there: the API asks again with another).
 */
export const checkOutcomeSchema = z.discriminatedUnion('outcome', [
  z.strictObject({
    server,
    id,
    outcome: z.literal('answered'),
    status: z.optional(int(0, 999)),
    body: z.string().check(z.maxLength(MAX_ANSWER)),
  }),
  z.strictObject({ server, id, outcome: z.literal('failed'), error: z.string().check(z.maxLength(512)) }),
  z.strictObject({ server, id, outcome: z.literal('not-run'), reason: z.string().check(z.maxLength(512)) }),
  z.strictObject({ server, id, outcome: z.literal('port-taken') }),
]);
export type CheckOutcome = z.infer<typeof checkOutcomeSchema>;
