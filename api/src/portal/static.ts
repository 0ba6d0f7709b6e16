import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { type RequestHandler, Router } from 'express';
import expressStaticGzip from 'express-static-gzip';
import type { PortalPages } from './pages.ts';

/** Paths the portal never answers: the API, sockets, health and internal endpoints. */
const NOT_PORTAL = /^\/(api|socket\.io|internal|healthz|readyz)(\/|$)/;

/**
 * The build writes every text file also as `.br` and `.gz` beside it (portal/vite.config.ts); the variant
 * the browser accepts is sent (brotli first), with `Content-Encoding`, the original file's `Content-Type`
 * and `Vary: Accept-Encoding`. Nothing is compressed per request.
 */
const precompressed: expressStaticGzip.ExpressStaticGzipOptions = {
  enableBrotli: true,
  orderPreference: ['br', 'gzip'],
  index: false,
};

/** Files that keep their name from build to build (index.html, favicon, sounds) are revalidated on each use. */
const revalidate = (res: ServerResponse) => void res.setHeader('Cache-Control', 'no-cache');

/**
 * Serves the built portal: hashed assets cached for a year as immutable, everything else revalidated, and
 * any other GET of an HTML page answered with its prerendered page, else the app's page (pages.ts), so that
 * client-side routes (including the not-found screen) work on reload. Source maps are not in `distDir` (the build keeps them in
 * `portal/dist-maps`), so none is ever served.
 */
export function portalStatic(distDir: string, pages: PortalPages | null): Router | null {
  const index = path.join(distDir, 'index.html');
  if (!existsSync(index)) return null;
  const router = Router();
  router.use(
    '/assets',
    readsOnly(
      expressStaticGzip(path.join(distDir, 'assets'), {
        ...precompressed,
        serveStatic: { immutable: true, maxAge: '1y', index: false, fallthrough: false },
      }),
    ),
  );
  const files: RequestHandler = expressStaticGzip(distDir, {
    ...precompressed,
    serveStatic: { index: false, cacheControl: false, setHeaders: revalidate },
  });
  // The prerendered pages (dist/.pages) are served by their addresses only, with the site's address in them:
  // serve-static ignores dotted names, however the path is written.
  // With prerendered pages the bare template has nothing to offer: its address is the home page's.
  if (pages) router.get('/index.html', (_req, res) => res.redirect(301, '/'));
  router.use(readsOnly(files));
  const spaFallback: RequestHandler = (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_PORTAL.test(req.path)) {
      next();
      return;
    }
    if (pages) {
      pages.send(req, res).catch(next);
      return;
    }
    // Served as the file itself is, compressed variant included (the log keeps the path asked for).
    const url = req.url;
    req.url = '/index.html';
    files(req, res, (error?: unknown) => {
      req.url = url;
      next(error);
    });
  };
  router.use(spaFallback);
  return router;
}

/**
 * Files answer GET and HEAD only. express-static-gzip sets the variant's Content-Encoding and Content-Type
 * before serve-static looks at the method, and leaves them on whatever answers a POST next (a JSON 404
 * labelled as a brotli-encoded SVG): other methods go past it untouched.
 */
function readsOnly(handler: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') handler(req, res, next);
    else next();
  };
}
