import { healthSchema, readinessSchema } from '../contracts/index.ts';
import { pingDatabase, type Orm } from '../db/orm.ts';
import { ApiRouter } from '../http/route.ts';
import { serviceUnavailable } from '../http/errors.ts';

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers). */
export function healthRoutes(deps: { orm: Orm }): ApiRouter {
  return new ApiRouter()
    .route({
      method: 'get',
      path: '/healthz',
      summary: 'Liveness: the process is up',
      tags: ['health'],
      response: healthSchema,
      handler: () => ({ status: 'ok' as const }),
    })
    .route({
      method: 'get',
      path: '/readyz',
      summary: 'Readiness: the database is reachable',
      tags: ['health'],
      response: readinessSchema,
      errors: { 503: 'Not ready; the message says why' },
      handler: async () => {
        try {
          await pingDatabase(deps.orm);
        } catch (err) {
          throw serviceUnavailable(`Database unreachable: ${(err as Error).message}`);
        }
        return { status: 'ok' as const, checks: { database: 'ok' as const } };
      },
    });
}
