import type { RequestHandler } from 'express';
import { onboardingSchema } from '../contracts/index.ts';
import { caller } from '../auth/middleware.ts';
import { ApiRouter } from '../http/route.ts';
import type { OnboardingService } from './service.ts';

export function onboardingRoutes(deps: {
  onboarding: OnboardingService;
  requireAuth: RequestHandler;
}): ApiRouter {
  return new ApiRouter().route({
    method: 'get',
    path: '/users/me/onboarding',
    summary:
      "The signed-in user's first-hour checklist: box deployed, VPN config downloaded, tunnel up, first ssh " +
      'login, first match, each read from what the platform saw',
    tags: ['users'],
    before: [deps.requireAuth],
    errors: { 401: 'Not signed in' },
    response: onboardingSchema,
    handler: ({ res }) => deps.onboarding.status(caller(res).userId),
  });
}
