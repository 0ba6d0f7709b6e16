import { Router } from 'express';
import {
  hallOfFameSchema,
  vulnerabilityReportRequest,
  vulnerabilityReportResponse,
} from '../contracts/index.ts';
import { ApiRouter } from '../http/route.ts';
import type { SecurityKey } from './pgp-key.ts';
import type { VulnerabilityReports } from './reports.ts';
import { SECURITY_PATHS, type SecurityTxt } from './security-txt.ts';

/** `POST /security/vulnerability-report` and `GET /security/hall-of-fame`: public, no sign-in. */
export function securityRoutes(deps: { reports: VulnerabilityReports }): ApiRouter {
  const tags = ['security'];
  return new ApiRouter()
    .route({
      method: 'post',
      path: '/security/vulnerability-report',
      summary:
        'Report a vulnerability (public). Stored, mailed to the security team, acknowledged to a reporter who gave an address',
      tags,
      body: vulnerabilityReportRequest,
      response: vulnerabilityReportResponse,
      errors: { 429: 'Too many reports from this address' },
      // req.ip: the client's address, from X-Forwarded-For only behind a trusted proxy (TRUST_PROXY).
      handler: ({ body, req }) => deps.reports.submit(body, req.ip ?? 'unknown'),
    })
    .route({
      method: 'get',
      path: '/security/hall-of-fame',
      summary: 'Researchers thanked for the findings staff accepted (public)',
      tags,
      response: hallOfFameSchema,
      handler: () => deps.reports.hallOfFame(),
    });
}

/**
 * `/pgp-key.asc` (the public key only) and `/.well-known/security.txt` (RFC 9116, signed): files at the site's
 * root, mounted before the portal, whose fallback would answer them with index.html.
 */
export function securityFiles(deps: { key: SecurityKey; securityTxt: SecurityTxt }): Router {
  const router = Router();
  router.get(SECURITY_PATHS.pgpKey, (_req, res) => {
    res
      .type('application/pgp-keys')
      .set('Cache-Control', 'public, max-age=3600')
      .set('Content-Disposition', 'inline; filename="pgp-key.asc"')
      .send(deps.key.armoredPublicKey);
  });
  router.get(SECURITY_PATHS.securityTxt, async (_req, res, next) => {
    try {
      const text = await deps.securityTxt.text();
      res.type('text/plain; charset=utf-8').set('Cache-Control', 'public, max-age=3600').send(text);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
