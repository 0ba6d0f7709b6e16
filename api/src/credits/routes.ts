import type { RequestHandler } from 'express';
import {
  giftRedeemRequest,
  giftRedeemResponseSchema,
  ledgerPageSchema,
  ledgerQuery,
} from '../contracts/index.ts';
import { caller } from '../auth/middleware.ts';
import { ApiRouter } from '../http/route.ts';
import type { GiftService } from './gifts.ts';
import type { CreditStatement } from './statement.ts';

export function creditRoutes(deps: {
  gifts: GiftService;
  statement: CreditStatement;
  requireAuth: RequestHandler;
}): ApiRouter {
  const before = [deps.requireAuth];
  return new ApiRouter()
    .route({
      method: 'post',
      path: '/gifts/redeem',
      summary: 'Redeem a gift token for free credits (each token once)',
      tags: ['credits'],
      before,
      errors: {
        401: 'Not signed in',
        403: 'The account is banned',
        429: 'Too many attempts (Retry-After says when to try again)',
      },
      body: giftRedeemRequest,
      response: giftRedeemResponseSchema,
      handler: ({ body, req, res }) => deps.gifts.redeem(caller(res).userId, req.ip ?? 'unknown', body.token),
    })
    .route({
      method: 'get',
      path: '/credits/ledger',
      summary: "The signed-in user's credit ledger, newest first",
      tags: ['credits'],
      before,
      errors: { 401: 'Not signed in' },
      query: ledgerQuery,
      response: ledgerPageSchema,
      handler: ({ query, res }) => deps.statement.page(caller(res).userId, query),
    });
}
