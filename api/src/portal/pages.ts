import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import { z } from 'zod';

/** What the portal's build writes beside its pages (portal/scripts/prerender.ts). */
const manifestSchema = z.object({
  pages: z.array(
    z.object({ path: z.string().startsWith('/'), file: z.string().regex(/^[a-z0-9-]+\.html$/) }),
  ),
  routes: z.array(z.string().startsWith('/')),
  noIndex: z.array(z.string().startsWith('/')),
});

/** The token the build puts where the site's address goes (portal/src/components/pageMeta.ts). */
const PUBLIC_URL_TOKEN = '__EG_PUBLIC_URL__';

const escapeAttribute = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** The head of a page of data (a job): its title and description. */
export interface PageHead {
  title: string;
  description: string;
}

/**
 * A route whose page is data (`/careers/jobs/:slug`): its head is made per request from what `head` answers
 * for the path's parameter, and an address whose data is gone (a closed job) answers 404.
 */
export interface DataPage {
  pattern: string;
  head(param: string): Promise<PageHead | null>;
}

/** Descriptions are cut to 160 characters: the first 157 and an ellipsis (as the portal's pageMeta.ts). */
function truncate(text: string, max = 160): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 3)}...`;
}

/** One HTML document, compressed for each encoding when first asked for. */
class Document {
  readonly #identity: Buffer;
  readonly #encoded = new Map<'br' | 'gzip', Buffer>();

  readonly #quality: number;

  /** `quality`: brotli's, 11 for the pages kept for the process's life; a page made per request takes less. */
  constructor(html: string, quality = 11) {
    this.#identity = Buffer.from(html);
    this.#quality = quality;
  }

  body(encoding: 'br' | 'gzip' | 'identity'): Buffer {
    if (encoding === 'identity') return this.#identity;
    let body = this.#encoded.get(encoding);
    if (!body) {
      body =
        encoding === 'br'
          ? brotliCompressSync(this.#identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: this.#quality } })
          : gzipSync(this.#identity, { level: this.#quality >= 11 ? 9 : 6 });
      this.#encoded.set(encoding, body);
    }
    return body;
  }
}

/** A pattern with one parameter (`/careers/jobs/:slug`) as a function answering the parameter of a path. */
function routeParam(pattern: string): (pathname: string) => string | null {
  const [prefix, param] = pattern.split('/:') as [string, string | undefined];
  if (!param || param.includes('/')) throw new Error(`${pattern}: a data page has one parameter, last`);
  return (pathname) => {
    if (!pathname.startsWith(`${prefix}/`)) return null;
    const value = pathname.slice(prefix.length + 1);
    if (!value || value.includes('/')) return null;
    try {
      return decodeURIComponent(value);
    } catch {
      return null;
    }
  };
}

/** A route pattern of the portal (`/careers/jobs/:slug`) as a test of a path. */
function routeTest(pattern: string): (pathname: string) => boolean {
  const source = pattern
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const regex = new RegExp(`^${source}/?$`);
  return (pathname) => regex.test(pathname);
}

/**
 * The portal's HTML as the API serves it: the public pages prerendered by the build (their text, styles and
 * head, for crawlers and link previews) and, for every other address, the app's page with the site's default
 * head. The site's address (PUBLIC_URL) goes into each page's absolute links (Open Graph, canonical). An address
 * that is no route of the portal answers 404 (the app shows its not-found screen); the sign-in pages and the
 * signed-in ones carry `X-Robots-Tag: noindex`.
 */
export class PortalPages {
  readonly #pages = new Map<string, Document>();
  readonly #fallback: Document;
  readonly #routes: ((pathname: string) => boolean)[];
  readonly #noIndex: ((pathname: string) => boolean)[];
  /** The prerendered public pages' paths (the sitemap). */
  readonly paths: readonly string[];

  readonly #fallbackHtml: string;
  readonly #origin: string;
  readonly #dataPages: {
    prefix: string;
    test: (pathname: string) => string | null;
    head: DataPage['head'];
  }[];

  private constructor(dir: string, publicUrl: string, dataPages: DataPage[]) {
    const manifest = manifestSchema.parse(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')));
    const origin = escapeAttribute(publicUrl);
    const read = (file: string) =>
      new Document(readFileSync(path.join(dir, file), 'utf8').replaceAll(PUBLIC_URL_TOKEN, origin));
    for (const page of manifest.pages) this.#pages.set(page.path, read(page.file));
    this.#fallback = read('fallback.html');
    this.#fallbackHtml = readFileSync(path.join(dir, 'fallback.html'), 'utf8').replaceAll(
      PUBLIC_URL_TOKEN,
      origin,
    );
    this.#origin = origin;
    this.#dataPages = dataPages.map((page) => ({
      prefix: page.pattern.slice(0, page.pattern.lastIndexOf('/:')),
      test: routeParam(page.pattern),
      head: page.head,
    }));
    this.#routes = manifest.routes.map(routeTest);
    this.#noIndex = manifest.noIndex.map(routeTest);
    this.paths = manifest.pages.map((page) => page.path);
  }

  /** The pages of a built portal (`distDir/.pages`), or null when the build wrote none. */
  static load(distDir: string, publicUrl: string, dataPages: DataPage[] = []): PortalPages | null {
    try {
      return new PortalPages(path.join(distDir, '.pages'), publicUrl, dataPages);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** The app's page with a data page's title, description and address in its head. */
  #withHead(head: PageHead, pathname: string): string {
    const title = escapeAttribute(`${head.title} | Exploit Grid`);
    const description = escapeAttribute(truncate(head.description));
    const url = `${this.#origin}${escapeAttribute(pathname)}`;
    return this.#fallbackHtml
      .replace(/<title>[^<]*<\/title>/, () => `<title>${title}</title>`)
      .replace(
        /(<meta (?:name|property)="(?:description|og:description|twitter:description)" content=")[^"]*(")/g,
        (_m, start: string, end: string) => `${start}${description}${end}`,
      )
      .replace(
        /(<meta (?:name|property)="(?:og:title|twitter:title)" content=")[^"]*(")/g,
        (_m, start: string, end: string) => `${start}${title}${end}`,
      )
      .replace(
        '</head>',
        () =>
          `<meta property="og:url" content="${url}" />\n    <link rel="canonical" href="${url}" />\n  </head>`,
      );
  }

  /** Answers a GET or HEAD of a portal address. */
  async send(req: Request, res: Response): Promise<void> {
    const pathname = req.path.replace(/\/+$/, '') || '/';
    let known = this.#routes.some((test) => test(pathname));
    let document = this.#pages.get(pathname) ?? this.#fallback;
    for (const page of this.#dataPages) {
      const param = page.test(pathname);
      if (param === null) continue;
      const head = await page.head(param);
      // The page's own address, however the request spelled it (`%65vil-job` is `evil-job`).
      // Made for this request: compressed quickly, not with the kept pages' best effort.
      if (head)
        document = new Document(this.#withHead(head, `${page.prefix}/${encodeURIComponent(param)}`), 5);
      else known = false;
      break;
    }
    // Brotli first, as for the portal's files (static.ts), whatever order the browser lists them in.
    const encoding = req.acceptsEncodings('br') ? 'br' : req.acceptsEncodings('gzip') ? 'gzip' : 'identity';
    res.status(known ? 200 : 404);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Vary', 'Accept-Encoding');
    if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
    if (!known || this.#noIndex.some((test) => test(pathname))) res.setHeader('X-Robots-Tag', 'noindex');
    res.send(document.body(encoding));
  }
}
