import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { startTestPlatform, type TestPlatform } from '../testing/fixtures.ts';

/** A built portal as portal/scripts/prerender.ts leaves it: pages with the address token, and their manifest. */
async function builtPortal(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'eg-portal-pages-'));
  await mkdir(path.join(dir, '.pages'), { recursive: true });
  await writeFile(
    path.join(dir, 'index.html'),
    '<!doctype html><title>Exploit Grid</title><div id="root"></div>',
  );
  const page = (title: string, body: string) =>
    `<!doctype html><title>${title}</title><meta property="og:image" content="__EG_PUBLIC_URL__/social-card.png" /><link rel="canonical" href="__EG_PUBLIC_URL__/x" /><div id="root" data-prerendered="">${body}</div>`;
  await writeFile(path.join(dir, '.pages', 'home.html'), page('Home | Exploit Grid', '<h1>Live-fire</h1>'));
  await writeFile(
    path.join(dir, '.pages', 'features.html'),
    page('The Grid | Exploit Grid', '<h1>The Grid</h1>'),
  );
  await writeFile(
    path.join(dir, '.pages', 'security--hall-of-fame.html'),
    page('Hall of Fame | Exploit Grid', '<h1>Hall of Fame</h1>'),
  );
  // The app's page as the build writes it: the site's default head (portal/src/components/pageMeta.ts).
  await writeFile(
    path.join(dir, '.pages', 'fallback.html'),
    [
      '<!doctype html><html lang="en"><head>',
      '<title>Exploit Grid</title>',
      '<meta name="description" content="A live-fire hacking arena." />',
      '<meta property="og:title" content="Exploit Grid" />',
      '<meta property="og:description" content="A live-fire hacking arena." />',
      '<meta property="og:image" content="__EG_PUBLIC_URL__/social-card.png" />',
      '<meta name="twitter:title" content="Exploit Grid" />',
      '<meta name="twitter:description" content="A live-fire hacking arena." />',
      '</head><body><div id="root"></div></body></html>',
    ].join('\n'),
  );
  await writeFile(
    path.join(dir, '.pages', 'manifest.json'),
    JSON.stringify({
      pages: [
        { path: '/', file: 'home.html' },
        { path: '/features', file: 'features.html' },
        { path: '/security/hall-of-fame', file: 'security--hall-of-fame.html' },
      ],
      routes: ['/', '/features', '/login', '/security/hall-of-fame', '/careers/jobs/:slug', '/dashboard'],
      noIndex: ['/login', '/dashboard'],
    }),
  );
  return dir;
}

describe('the portal’s pages for crawlers and link previews', () => {
  let platform: TestPlatform;
  let dir: string;

  before(async () => {
    dir = await builtPortal();
    platform = await startTestPlatform({
      env: { PORTAL_DIST: dir, PUBLIC_URL: 'https://grid.example' },
    });
  });
  after(async () => {
    await platform?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const get = (p: string, init?: RequestInit) => fetch(`${platform.baseUrl}${p}`, init);

  it('serves a public page prerendered, with the site’s address in its absolute links', async () => {
    for (const [p, heading] of [
      ['/features', '<h1>The Grid</h1>'],
      ['/features/', '<h1>The Grid</h1>'],
      ['/', '<h1>Live-fire</h1>'],
      ['/security/hall-of-fame', '<h1>Hall of Fame</h1>'],
    ] as const) {
      const res = await get(p);
      expect(res.status, p).to.equal(200);
      expect(res.headers.get('content-type'), p).to.equal('text/html; charset=utf-8');
      expect(res.headers.get('cache-control'), p).to.equal('no-cache');
      expect(res.headers.get('x-robots-tag'), p).to.equal(null);
      const html = await res.text();
      expect(html, p).to.include(heading);
      expect(html, p).to.include('content="https://grid.example/social-card.png"');
      expect(html, p).not.to.include('__EG_PUBLIC_URL__');
    }
  });

  it('compresses for browsers that accept it, brotli first, the same page in each encoding', async () => {
    const plain = await get('/features', { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).to.equal(null);
    const page = await plain.text();
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip;q=1, br;q=0', 'gzip'],
      ['gzip', 'gzip'],
    ] as const) {
      const res = await get('/features', { headers: { 'accept-encoding': accept } });
      expect(res.headers.get('content-encoding'), accept).to.equal(encoding);
      expect(res.headers.get('vary'), accept).to.include('Accept-Encoding');
      // fetch decodes what it was sent: the same page whichever encoding came.
      expect(await res.text(), accept).to.equal(page);
    }
  });

  /** A job as `jobs publish` writes it (the careers tables'); closed when `closed`. */
  async function job(slug: string, closed = false): Promise<void> {
    const db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
    try {
      await db.query(
        `insert into jobs (slug, title, short_description, description, requirements, category, type, level, closed_at)
         values ($1, $2, $3, 'All day in the arena.', 'Shells.', 'SECURITY', 'FULL_TIME', 'SENIOR', $4)`,
        [
          slug,
          `Red Teamer <${slug}>`,
          `Break "our" boxes & ${'teach '.repeat(40)}`,
          closed ? new Date() : null,
        ],
      );
    } finally {
      await db.end();
    }
  }

  it('gives a job’s page the job’s title, description and address for link previews', async () => {
    await job('senior-red-teamer');
    const res = await get('/careers/jobs/senior-red-teamer');
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-robots-tag')).to.equal(null);
    const html = await res.text();
    expect(html).to.include('<title>Red Teamer &lt;senior-red-teamer&gt; | Exploit Grid</title>');
    expect(html).to.include(
      '<meta property="og:title" content="Red Teamer &lt;senior-red-teamer&gt; | Exploit Grid" />',
    );
    const description = /<meta name="description" content="([^"]*)"/.exec(html)![1]!;
    expect(description)
      .to.match(/^Break &quot;our&quot; boxes &amp; teach teach/)
      .and.match(/\.\.\.$/);
    expect(html).to.include(`<meta property="og:description" content="${description}" />`);
    expect(html).to.include(
      '<meta property="og:url" content="https://grid.example/careers/jobs/senior-red-teamer" />',
    );
    expect(html).to.include(
      '<link rel="canonical" href="https://grid.example/careers/jobs/senior-red-teamer" />',
    );

    const sitemap = await (await get('/sitemap.xml')).text();
    expect(sitemap).to.match(
      /<url><loc>https:\/\/grid.example\/careers\/jobs\/senior-red-teamer<\/loc><lastmod>\d{4}-\d\d-\d\dT[^<]+<\/lastmod><\/url>/,
    );
  });

  it('answers a closed or unknown job, or an address no job could have, with 404 and noindex', async () => {
    await job('closed-role', true);
    for (const p of ['/careers/jobs/closed-role', '/careers/jobs/nobody', '/careers/jobs/Not%20A%20Slug']) {
      const res = await get(p);
      expect(res.status, p).to.equal(404);
      expect(res.headers.get('x-robots-tag'), p).to.equal('noindex');
      expect(await res.text(), p).to.include('<title>Exploit Grid</title>');
    }
    expect(await (await get('/sitemap.xml')).text()).not.to.include('closed-role');
  });

  it('answers the other routes with the app’s page, the sign-in and signed-in ones marked noindex', async () => {
    for (const [p, noIndex] of [
      ['/login', 'noindex'],
      ['/dashboard', 'noindex'],
    ] as const) {
      const res = await get(p);
      expect(res.status, p).to.equal(200);
      expect(res.headers.get('x-robots-tag'), p).to.equal(noIndex);
      const html = await res.text();
      expect(html, p)
        .to.include('<title>Exploit Grid</title>')
        .and.include('https://grid.example/social-card.png');
    }
  });

  it('gives a page one address: a job’s however it is spelled, trailing slashes dropped, /index.html moved to /', async () => {
    await job('spelled-job');
    const html = await (await get('/careers/jobs/%73pelled-job')).text();
    expect(html).to.include('<link rel="canonical" href="https://grid.example/careers/jobs/spelled-job" />');
    expect(await (await get('/features//')).text()).to.include('<h1>The Grid</h1>');
    const index = await get('/index.html', { redirect: 'manual' });
    expect(index.status).to.equal(301);
    expect(index.headers.get('location')).to.equal('/');
  });

  it('answers an address that is no page with 404 (the app shows its not-found screen) and noindex', async () => {
    for (const p of [
      '/nope',
      '/careers/jobs',
      '/features/extra',
      '/.pages/features.html',
      '/.pages/manifest.json',
      '/%2Epages/home.html',
      '//.pages/home.html',
      '/x/../.pages/home.html',
      '/.pages%2Ffallback.html',
    ]) {
      const res = await get(p);
      expect(res.status, p).to.equal(404);
      expect(res.headers.get('x-robots-tag'), p).to.equal('noindex');
      const html = await res.text();
      expect(html, p).to.include('<title>Exploit Grid</title>').and.not.include('__EG_PUBLIC_URL__');
    }
  });

  it('tells crawlers where the sitemap is and keeps them out of the API', async () => {
    const res = await get('/robots.txt');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    const text = await res.text();
    expect(text).to.include('User-agent: *\nAllow: /\nDisallow: /api/\n');
    expect(text).to.include('Sitemap: https://grid.example/sitemap.xml');
  });

  it('lists the prerendered public pages in the sitemap at the site’s address', async () => {
    const res = await get('/sitemap.xml');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/xml/);
    const xml = await res.text();
    expect(xml).to.match(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/,
    );
    const locations = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locations).to.include.members([
      'https://grid.example/',
      'https://grid.example/features',
      'https://grid.example/security/hall-of-fame',
    ]);
    expect(locations.some((l) => l!.includes('/login') || l!.includes('/dashboard'))).to.equal(false);
  });
});
