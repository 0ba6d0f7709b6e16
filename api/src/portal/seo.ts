import { Router } from 'express';
import type { Logger } from '../logger.ts';

/** A page of the sitemap: its path and, when known, when it last changed. */
export interface SitemapEntry {
  path: string;
  lastModified?: Date;
}

const escapeXml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

/**
 * `/robots.txt` and `/sitemap.xml` for search engines: the sitemap lists the public pages the portal's build
 * prerendered and the pages of data that are public too (the open jobs), at the site's address (PUBLIC_URL).
 * Crawlers may read everything but the API; the sign-in and signed-in pages say noindex themselves (pages.ts).
 */
export function seoFiles(options: {
  publicUrl: string;
  /** The prerendered public pages (none when the portal is not built). */
  pages: () => readonly string[];
  /** Public pages of data (open jobs), read when the sitemap is asked for. */
  more: () => Promise<SitemapEntry[]>;
  logger: Logger;
}): Router {
  const router = Router();
  router.get('/robots.txt', (_req, res) => {
    res
      .type('text/plain')
      .set('Cache-Control', 'public, max-age=3600')
      .send(
        [
          'User-agent: *',
          'Allow: /',
          'Disallow: /api/',
          'Disallow: /socket.io/',
          '',
          `Sitemap: ${options.publicUrl}/sitemap.xml`,
          '',
        ].join('\n'),
      );
  });
  router.get('/sitemap.xml', (_req, res, next) => {
    options.more().then(
      (more) => {
        const entries: SitemapEntry[] = [...options.pages().map((path) => ({ path })), ...more];
        const urls = entries.map(
          (entry) =>
            `  <url><loc>${escapeXml(`${options.publicUrl}${entry.path}`)}</loc>${entry.lastModified ? `<lastmod>${entry.lastModified.toISOString()}</lastmod>` : ''}</url>`,
        );
        res
          .type('application/xml')
          .set('Cache-Control', 'public, max-age=3600')
          .send(
            `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`,
          );
      },
      (err: unknown) => {
        options.logger.error({ err }, 'Could not list the public pages of data for the sitemap');
        next(err);
      },
    );
  });
  return router;
}
