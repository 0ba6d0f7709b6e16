/**
 * Wire contracts of the Exploit Grid API: the only module the portal imports from the API
 * (`@exploit-grid/api/contracts`). Keep it free of server-only dependencies.
 */
import { z } from 'zod';

/** Every error answer: HTTP status plus this body; the portal shows `message`. */
export const errorSchema = z
  .object({
    statusCode: z.number().int(),
    message: z.string(),
    error: z.string(),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorSchema>;

export const healthSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
export type Health = z.infer<typeof healthSchema>;

export const readinessSchema = z
  .object({
    status: z.literal('ok'),
    checks: z.object({ database: z.literal('ok') }),
  })
  .meta({ id: 'Readiness' });
export type Readiness = z.infer<typeof readinessSchema>;

export const versionSchema = z.object({ name: z.string(), version: z.string() }).meta({ id: 'Version' });
export type VersionInfo = z.infer<typeof versionSchema>;

export * from './paging.ts';
export * from './sockets.ts';
export * from './auth.ts';
export * from './users.ts';
export * from './boxes.ts';
export * from './constants.ts';
// The public pages' constants, each a module of its own so that a page loads only its feature's texts.
export * from './careers-constants.ts';
export * from './security-constants.ts';
export * from './contact-constants.ts';
export * from './attacks.ts';
export * from './agent.ts';
export * from './grid.ts';
export * from './chat.ts';
export * from './leaderboard.ts';
export * from './commerce.ts';
export * from './contact.ts';
export * from './onboarding.ts';
export * from './careers.ts';
export * from './security.ts';
