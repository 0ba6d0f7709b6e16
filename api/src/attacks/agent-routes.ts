import { agentReportResponse, agentReportSchema } from '../contracts/index.ts';
import { ApiRouter } from '../http/route.ts';
import type { AgentIngest } from './ingest.ts';

/** Where box agents report (`/internal/agent/report`): authenticated by the box's secret, not a user. */
export function agentRoutes(deps: { ingest: AgentIngest }): ApiRouter {
  return new ApiRouter().route({
    method: 'post',
    path: '/agent/report',
    summary: 'Process executions and heartbeats from a box agent (Authorization: Bearer <box secret>)',
    tags: ['internal'],
    errors: { 401: 'Unknown box secret' },
    body: agentReportSchema,
    response: agentReportResponse,
    handler: ({ body, req }) => {
      const header = req.get('authorization') ?? '';
      const token = header.startsWith('Bearer ') ? header.slice(7).trim() : null;
      return deps.ingest.report(token, body);
    },
  });
}
