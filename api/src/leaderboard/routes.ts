import type { RequestHandler } from 'express';
import { leaderboardPageSchema, leaderboardQuery } from '../contracts/index.ts';
import { ApiRouter } from '../http/route.ts';
import type { LeaderboardService } from './service.ts';

/** The leaderboard (docs/leaderboard.md): one page of players, searched by handle, in any column's order. */
export function leaderboardRoutes(deps: { leaderboard: LeaderboardService; requireAuth: RequestHandler }) {
  return new ApiRouter().route({
    method: 'get',
    path: '/leaderboard',
    summary: 'A page of players ranked by MMR: search by handle, sort by any column',
    tags: ['leaderboard'],
    before: [deps.requireAuth],
    errors: { 401: 'Not signed in' },
    query: leaderboardQuery,
    response: leaderboardPageSchema,
    handler: ({ query }) => deps.leaderboard.page(query),
  });
}
