import { activityLogRequest, userSchema, userStatsSchema } from '../contracts/index.ts';
import { caller } from '../auth/middleware.ts';
import { ApiRouter } from '../http/route.ts';
import type { RequestHandler } from 'express';
import type { UserService } from './service.ts';

export function userRoutes(deps: { users: UserService; requireAuth: RequestHandler }): ApiRouter {
  const before = [deps.requireAuth];
  const errors = { 401: 'Not signed in' };
  return new ApiRouter()
    .route({
      method: 'get',
      path: '/users/me',
      summary: 'The signed-in user',
      tags: ['users'],
      before,
      errors,
      response: userSchema,
      handler: ({ res }) => deps.users.get(caller(res).userId),
    })
    .route({
      method: 'get',
      path: '/user/stats',
      summary: 'Rank and wins of the signed-in user',
      tags: ['users'],
      before,
      errors,
      response: userStatsSchema,
      handler: ({ res }) => deps.users.stats(caller(res).userId),
    })
    .route({
      method: 'post',
      path: '/user-activity/log',
      summary: 'Record that the signed-in user viewed an upsell surface',
      tags: ['users'],
      before,
      errors,
      body: activityLogRequest,
      status: 204,
      handler: async ({ body, res }) => {
        await deps.users.logActivity(caller(res).userId, body.activityType);
      },
    });
}
