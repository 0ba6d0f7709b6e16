import { randomBytes } from 'node:crypto';
import type { ServiceCheck } from './catalogue.ts';

export interface CheckResult {
  ok: boolean;
  /** What was seen, for the attack's timeline and the defender (never the weakness). */
  detail: string;
  /** The platform could not make this check (CheckNotRun): nobody's result, the service's state stays. */
  notRun?: true;
}

/**
 * Thrown by a transport when the platform could not make the check at all (its own network setup failed):
 * no result, rather than a failure the defender would be blamed for.
 */
export class CheckNotRun extends Error {}

/** An HTTP request made from wherever the check runs (the attacker's side of the arena). */
export type HttpRequest = (
  url: string,
  init: { method: 'GET' | 'POST'; form?: Record<string, string>; timeoutMs: number },
) => Promise<{ status: number; body: string }>;

/** A TCP exchange made from wherever the check runs: sends `send`, answers what came back until `contains` or the end. */
export type TcpExchange = (
  address: string,
  port: number,
  init: { send: string; contains: string; timeoutMs: number },
) => Promise<string>;

/** How a check reaches the service: the runner's network, wherever it stands. */
export interface CheckTransports {
  http: HttpRequest;
  tcp: TcpExchange;
}

/**
 * Checks a service as a client would: the request an honest user makes, with a fresh nonce each
 * time where the entry asks for one (so a defender cannot answer from a cache), and the answer it
 * must contain.
 */
export async function runCheck(
  check: ServiceCheck,
  address: string,
  transports: CheckTransports,
  timeoutMs = 5000,
): Promise<CheckResult> {
  const nonce = randomBytes(6).toString('hex');
  const fill = (text: string) => text.replaceAll('{nonce}', nonce);
  if (check.type === 'tcp') {
    let received: string;
    try {
      received = await transports.tcp(address, check.port, {
        send: fill(check.send),
        contains: fill(check.contains),
        timeoutMs,
      });
    } catch (err) {
      if (err instanceof CheckNotRun) throw err;
      return {
        ok: false,
        detail: `port ${check.port}: no answer (${err instanceof Error ? err.message : err})`,
      };
    }
    return received.includes(fill(check.contains))
      ? { ok: true, detail: `port ${check.port}: answered as it should` }
      : { ok: false, detail: `port ${check.port}: the answer lacks what the service must say` };
  }
  const url = `http://${address}:${check.port}${fill(check.path)}`;
  const form = check.form
    ? Object.fromEntries(Object.entries(check.form).map(([k, v]) => [k, fill(v)]))
    : undefined;
  let answer: { status: number; body: string };
  try {
    answer = await transports.http(url, { method: check.method, ...(form ? { form } : {}), timeoutMs });
  } catch (err) {
    if (err instanceof CheckNotRun) throw err;
    return {
      ok: false,
      detail: `port ${check.port}: no answer (${err instanceof Error ? err.message : err})`,
    };
  }
  if (answer.status !== check.status)
    return { ok: false, detail: `port ${check.port}: answered ${answer.status}, not ${check.status}` };
  if (!answer.body.includes(fill(check.contains)))
    return { ok: false, detail: `port ${check.port}: the answer lacks what the service must say` };
  return { ok: true, detail: `port ${check.port}: answered as it should` };
}

/**
 * A round: every check at once from the same place (what a runtime's `checkServices` answers). A check the
 * platform could not make is `notRun` and the others stand (one that cannot be made must not void a round, or
 * a defender who could cause it would never be judged); when none could be made, the round throws CheckNotRun.
 */
export async function runChecks(
  checks: ServiceCheck[],
  address: string,
  transports: CheckTransports,
  timeoutMs?: number,
): Promise<CheckResult[]> {
  const results = await Promise.all(
    checks.map((check) =>
      runCheck(check, address, transports, timeoutMs).catch((err: unknown): CheckResult => {
        if (!(err instanceof CheckNotRun)) throw err;
        return { ok: false, notRun: true, detail: `port ${check.port}: not checked (${err.message})` };
      }),
    ),
  );
  if (results.length > 0 && results.every((r) => r.notRun))
    throw new CheckNotRun(results.map((r) => r.detail).join('; '));
  return results;
}
