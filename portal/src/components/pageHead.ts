/**
 * The head of a prerendered page (prerender.tsx, at build time only): title, description, robots, canonical
 * address, and the sharing cards link previews read (Open Graph, Twitter).
 */
import {
  SITE_DESCRIPTION,
  SITE_NAME,
  SOCIAL_IMAGE_ALT,
  SOCIAL_IMAGE_HEIGHT,
  SOCIAL_IMAGE_PATH,
  SOCIAL_IMAGE_WIDTH,
} from '../strings/site.ts';
import { pageTitle, truncateDescription, type PageMeta } from './pageMeta.ts';

/**
 * Stands for the site's address in prerendered pages: the API puts its PUBLIC_URL there when it serves them
 * (api/src/portal/pages.ts), since Open Graph wants absolute addresses and the build does not know the site's.
 */
export const PUBLIC_URL_TOKEN = '__EG_PUBLIC_URL__';

/**
 * The tags of a page's head: title, description, robots, canonical address, Open Graph and Twitter cards with
 * the default 1200×630 image. `origin` is the site's address (or PUBLIC_URL_TOKEN), `path` the page's (null for
 * the page every other address is answered with, which has no address of its own).
 */
export function metaTags(
  meta: PageMeta,
  path: string | null,
  origin: string,
): { name: string; property: boolean; content: string }[] {
  const title = pageTitle(meta.title);
  const description = truncateDescription(meta.description ?? SITE_DESCRIPTION);
  const image = `${origin}${SOCIAL_IMAGE_PATH}`;
  return [
    { name: 'description', property: false, content: description },
    ...(meta.noIndex ? [{ name: 'robots', property: false, content: 'noindex, nofollow' }] : []),
    { name: 'og:type', property: true, content: 'website' },
    { name: 'og:site_name', property: true, content: SITE_NAME },
    { name: 'og:title', property: true, content: title },
    { name: 'og:description', property: true, content: description },
    ...(path === null ? [] : [{ name: 'og:url', property: true, content: `${origin}${path}` }]),
    { name: 'og:image', property: true, content: image },
    { name: 'og:image:width', property: true, content: String(SOCIAL_IMAGE_WIDTH) },
    { name: 'og:image:height', property: true, content: String(SOCIAL_IMAGE_HEIGHT) },
    { name: 'og:image:alt', property: true, content: SOCIAL_IMAGE_ALT },
    { name: 'twitter:card', property: false, content: 'summary_large_image' },
    { name: 'twitter:title', property: false, content: title },
    { name: 'twitter:description', property: false, content: description },
    { name: 'twitter:image', property: false, content: image },
  ];
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** The head of a prerendered page (title, meta tags, canonical link) as HTML. */
export function headHtml(meta: PageMeta, path: string | null, origin: string): string {
  return [
    `<title>${escapeHtml(pageTitle(meta.title))}</title>`,
    ...metaTags(meta, path, origin).map(
      (tag) =>
        `<meta ${tag.property ? 'property' : 'name'}="${tag.name}" content="${escapeHtml(tag.content)}" />`,
    ),
    ...(meta.noIndex || path === null
      ? []
      : [`<link rel="canonical" href="${escapeHtml(`${origin}${path}`)}" />`]),
  ].join('\n    ');
}
