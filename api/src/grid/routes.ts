import { z } from 'zod';
import type { RequestHandler } from 'express';
import {
  engageResponseSchema,
  proposalRequest,
  queueEstimateSchema,
  queueInfoSchema,
  targetInfoSchema,
} from '../contracts/index.ts';
import { caller } from '../auth/middleware.ts';
import { ApiRouter } from '../http/route.ts';
import type { Grid } from './grid.ts';

const userParams = z.strictObject({ userId: z.uuid({ error: 'userId must be a user id' }) });

/** Matchmaking and target info (core-app section 7). Mounted before `/attack/:boxId`. */
export function gridRoutes(deps: { grid: Grid; requireAuth: RequestHandler }): ApiRouter {
  const { matchmaking, targetInfo } = deps.grid;
  const before = [deps.requireAuth];
  const errors = { 401: 'Not signed in' };
  return new ApiRouter()
    .route({
      method: 'post',
      path: '/attack/queue/join',
      summary: 'Join the matchmaking queue (a running box and a connected VPN needed)',
      tags: ['matchmaking'],
      before,
      errors: { ...errors, 409: 'Not eligible: no running box, no VPN, in an attack or a match' },
      response: queueInfoSchema,
      handler: ({ res }) => matchmaking.join(caller(res).userId),
    })
    .route({
      method: 'post',
      path: '/attack/queue/leave',
      summary: 'Leave the queue (and a match waiting for you: the opponent stays queued)',
      tags: ['matchmaking'],
      before,
      errors,
      status: 204,
      handler: async ({ res }) => {
        await matchmaking.leave(caller(res).userId);
      },
    })
    .route({
      method: 'get',
      path: '/attack/queue/estimate',
      summary: 'Expected wait in seconds; -1 when not queued',
      tags: ['matchmaking'],
      before,
      errors,
      response: queueEstimateSchema,
      handler: async ({ res }) => ({
        estimateSeconds: (await matchmaking.info(caller(res).userId)).estimateSeconds,
      }),
    })
    .route({
      method: 'post',
      path: '/attack/queue/engage',
      summary: 'Accept a match; the second of the two to engage starts the attack',
      tags: ['matchmaking'],
      before,
      errors: {
        ...errors,
        402: 'The attacker cannot pay',
        404: 'No such open match of yours',
        409: 'A player is busy or off the VPN, or a box is not running',
      },
      body: proposalRequest,
      response: engageResponseSchema,
      handler: ({ body, res }) => matchmaking.engage(caller(res).userId, body.proposalId),
    })
    .route({
      method: 'post',
      path: '/attack/queue/dismiss',
      summary: 'Refuse a match: it ends for both players',
      tags: ['matchmaking'],
      before,
      errors: { ...errors, 404: 'No such open match of yours' },
      body: proposalRequest,
      status: 204,
      handler: async ({ body, res }) => {
        await matchmaking.dismiss(caller(res).userId, body.proposalId);
      },
    })
    .route({
      method: 'get',
      path: '/attack/target-info/:userId',
      summary: "A player's Defense %: the share of finished defenses they survived (cached 5 minutes)",
      tags: ['matchmaking'],
      before,
      errors: { ...errors, 404: 'No such player' },
      params: userParams,
      response: targetInfoSchema,
      handler: ({ params }) => targetInfo.get(params.userId),
    });
}
