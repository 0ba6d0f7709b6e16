import type { RequestHandler } from 'express';
import { z } from 'zod';
import { VPN_PROTOCOLS, vpnClientSchema, vpnConfigSchema, vpnPoolStatusSchema } from '../contracts/index.ts';
import { caller } from '../auth/middleware.ts';
import { ApiRouter } from '../http/route.ts';
import type { VpnService } from './service.ts';

const vpnConfigParams = z.strictObject({
  userId: z.uuid({ error: 'userId must be a user id' }),
  protocol: z.enum(VPN_PROTOCOLS, { error: 'protocol must be UDP or TCP' }),
});

/** The player's VPN: their clients, the pool's capacity, their `.ovpn` files. */
export function vpnRoutes(deps: { vpn: VpnService; requireAuth: RequestHandler }): ApiRouter {
  const before = [deps.requireAuth];
  const errors = { 401: 'Not signed in' };
  return new ApiRouter()
    .route({
      method: 'get',
      path: '/user-vpn/my-clients',
      summary: "The signed-in user's VPN clients (one per protocol) and whether they are connected",
      tags: ['vpn'],
      before,
      errors: { ...errors, 403: 'VPN access has been revoked' },
      response: z.array(vpnClientSchema),
      handler: ({ res }) => deps.vpn.myClients(caller(res).userId),
    })
    .route({
      method: 'get',
      path: '/user-vpn/pool-status',
      summary: 'Capacity of the UDP and TCP VPN servers',
      tags: ['vpn'],
      before,
      errors,
      response: vpnPoolStatusSchema,
      handler: () => deps.vpn.poolStatus(),
    })
    .route({
      method: 'get',
      path: '/user-vpn/:userId/:protocol',
      summary: 'An OpenVPN client configuration for the signed-in user (only their own)',
      tags: ['vpn'],
      before,
      errors: { ...errors, 403: 'Not yours, or VPN access has been revoked', 503: 'VPN not available' },
      params: vpnConfigParams,
      response: vpnConfigSchema,
      handler: ({ params, res }) => deps.vpn.config(caller(res).userId, params.userId, params.protocol),
    });
}
