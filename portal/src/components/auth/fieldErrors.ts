import type { z } from 'zod';
import { ApiError } from '../../api/ApiError.ts';
import { loadContracts, type Contracts } from '../../api/contracts.ts';
import { log } from '../../logging.ts';
import { FORM_CHECK_UNAVAILABLE } from '../../strings/auth.ts';

/** A form checked against its contract: its data, or the first error of each field (and why, when no check ran). */
export type FormCheck<T> =
  { ok: true; data: T } | { ok: false; errors: Record<string, string>; failure?: string };

/**
 * Checks a form against the API's own schema of the request, loaded on first use (api/contracts.ts): the
 * same rules and texts as the server's. When the schemas cannot be loaded (offline), the form says so.
 */
export async function checkForm<T>(
  schema: (contracts: Contracts) => z.ZodType<T>,
  value: unknown,
): Promise<FormCheck<T>> {
  let contracts: Contracts;
  try {
    contracts = await loadContracts();
  } catch (error) {
    log.warn('Could not load the form checks', error);
    return { ok: false, errors: {}, failure: FORM_CHECK_UNAVAILABLE };
  }
  const parsed = schema(contracts).safeParse(value);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, errors: fieldErrors(parsed.error) };
}

/** The first message of each field of a failed zod parse, by field name. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? '');
    errors[field] ??= issue.message;
  }
  return errors;
}

/**
 * The field an API refusal is about, and what it says of it, when it is one of `fields`. The API answers an
 * invalid field with 400 'field: message' (its request validation, and rules only it can check, such as a
 * password that is easy to guess); anything else is null and shown as the page shows failures.
 */
export function serverFieldError<F extends string>(
  error: unknown,
  fields: readonly F[],
): { field: F; message: string } | null {
  if (!(error instanceof ApiError) || error.status !== 400 || !error.serverMessage) return null;
  const match = /^(\w+): (.+)$/s.exec(error.serverMessage);
  const field = fields.find((f) => f === match?.[1]);
  return field && match?.[2] ? { field, message: match[2] } : null;
}
