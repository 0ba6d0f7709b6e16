import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler, Router } from 'express';

/** Paths the portal never answers: the API, sockets, health and internal endpoints. */
const NOT_PORTAL = /^\/(api|socket\.io|internal|healthz|readyz)(\/|$)/;

/**
 * Serves the built portal: hashed assets cached for a year, everything else
 * revalidated, and any other GET of an HTML page answered with index.html so that
 * client-side routes (including the not-found screen) work on reload.
 */
export function portalStatic(distDir: string): Router | null {
  const index = path.join(distDir, 'index.html');
  if (!existsSync(index)) return null;
  const router = Router();
  router.use(
    '/assets',
    express.static(path.join(distDir, 'assets'), {
      immutable: true,
      maxAge: '1y',
      index: false,
      fallthrough: false,
    }),
  );
  router.use(express.static(distDir, { index: false, maxAge: 0 }));
  const spaFallback: RequestHandler = (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_PORTAL.test(req.path)) {
      next();
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  };
  router.use(spaFallback);
  return router;
}
