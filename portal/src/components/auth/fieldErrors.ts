import type { z } from 'zod';
import { ApiError } from '../../api/ApiError.ts';

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
