import { z } from 'zod';
import type { RequestHandler } from 'express';
import {
  attackEventSchema,
  attackHistoryItemSchema,
  attackHistoryQuery,
  attackSchema,
  commandLogSchema,
  startAttackResponse,
} from '../contracts/index.ts';
import { caller } from '../auth/middleware.ts';
import { ApiRouter } from '../http/route.ts';
import type { AttackService } from './service.ts';

const boxParams = z.strictObject({ boxId: z.uuid({ error: 'boxId must be a box id' }) });
const attackParams = z.strictObject({ attackId: z.uuid({ error: 'attackId must be an attack id' }) });
const idParams = z.strictObject({ id: z.uuid({ error: 'id must be an attack id' }) });

export function attackRoutes(deps: { attacks: AttackService; requireAuth: RequestHandler }): ApiRouter {
  const before = [deps.requireAuth];
  const errors = { 401: 'Not signed in' };
  return new ApiRouter()
    .route({
      method: 'get',
      path: '/attack/history/all',
      summary: "The caller's attacks, as attacker or defender, newest first",
      tags: ['attacks'],
      before,
      errors,
      query: attackHistoryQuery,
      response: z.array(attackHistoryItemSchema),
      handler: ({ query, res }) => deps.attacks.history(caller(res).userId, query.limit),
    })
    .route({
      method: 'get',
      path: '/attack/:id/logs',
      summary: 'Commands the attacker ran on the target (the kill chain); the two players only',
      tags: ['attacks'],
      before,
      errors: { ...errors, 404: 'No such attack of yours' },
      params: idParams,
      response: z.array(commandLogSchema),
      handler: ({ params, res }) => deps.attacks.commandLogs(caller(res).userId, params.id),
    })
    .route({
      method: 'get',
      path: '/attack/:id/attack-logs',
      summary: 'Events of the attack (FOOTHOLD, OWN, COMMAND, ...); the two players only',
      tags: ['attacks'],
      before,
      errors: { ...errors, 404: 'No such attack of yours' },
      params: idParams,
      response: z.array(attackEventSchema),
      handler: ({ params, res }) => deps.attacks.attackEvents(caller(res).userId, params.id),
    })
    .route({
      method: 'post',
      path: '/attack/:attackId/cancel',
      summary: "'Too Hard For Me': the attacker gives up (CANCELLED)",
      tags: ['attacks'],
      before,
      errors: {
        ...errors,
        403: 'Only the attacker can cancel',
        404: 'No such attack of yours',
        409: 'Already ended',
      },
      params: attackParams,
      response: z.object({ attack: attackSchema }),
      handler: async ({ params, res }) => ({
        attack: await deps.attacks.cancel(caller(res).userId, params.attackId),
      }),
    })
    .route({
      method: 'post',
      path: '/attack/:boxId',
      summary: 'Attack a running box whose owner is on the VPN (costs credits by tier)',
      tags: ['attacks'],
      before,
      errors: {
        ...errors,
        402: 'Not enough credits',
        403: 'Your own box',
        404: 'No such box',
        409: 'A player is busy, a box is not running or a player is off the VPN',
      },
      params: boxParams,
      status: 201,
      response: startAttackResponse,
      handler: ({ params, res }) => deps.attacks.launch(caller(res).userId, params.boxId),
    });
}
