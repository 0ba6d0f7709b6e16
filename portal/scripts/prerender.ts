/**
 * After `vite build` and `vite build --ssr src/prerender.tsx`: writes each public page prerendered into
 * dist/.pages/ (a dotted folder, which the API's file server never serves as files), with its manifest.json, and fallback.html (index.html with the site's default head) for
 * every other address. The API serves them with its PUBLIC_URL in place of the token (api/src/portal/pages.ts).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as PrerenderEntry from '../src/prerender.tsx';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const out = path.join(dist, '.pages');

const entry = (await import(
  pathToFileURL(path.join(root, 'dist-ssr', 'prerender.js')).href
)) as typeof PrerenderEntry;

const template = readFileSync(path.join(dist, 'index.html'), 'utf8');
const DEFAULT_TITLE = '<title>Exploit Grid</title>';
const ROOT = '<div id="root"></div>';
if (!template.includes(DEFAULT_TITLE) || !template.includes(ROOT))
  throw new Error('index.html has changed: prerender.ts needs its <title> and empty #root');

function page(head: string, styles = '', html = ''): string {
  return template
    .replace(DEFAULT_TITLE, () => `${head}\n    ${styles}`)
    .replace(ROOT, () => (html ? `<div id="root" data-prerendered="">${html}</div>` : ROOT));
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const manifest: { path: string; file: string }[] = [];
for (const pagePath of entry.PRERENDERED_PATHS) {
  const rendered = await entry.prerender(pagePath, entry.PUBLIC_URL_TOKEN);
  const file = `${pagePath === '/' ? 'home' : pagePath.slice(1).replaceAll('/', '--')}.html`;
  writeFileSync(path.join(out, file), page(rendered.head, rendered.styles, rendered.html));
  manifest.push({ path: pagePath, file });
}
writeFileSync(path.join(out, 'fallback.html'), page(entry.headHtml({}, null, entry.PUBLIC_URL_TOKEN)));
writeFileSync(
  path.join(out, 'manifest.json'),
  `${JSON.stringify({ pages: manifest, routes: entry.ROUTES, noIndex: entry.NO_INDEX }, null, 2)}\n`,
);
rmSync(path.join(root, 'dist-ssr'), { recursive: true, force: true });
process.stdout.write(`Prerendered ${manifest.length} public pages into dist/.pages/.\n`);
