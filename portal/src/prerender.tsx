/**
 * The build's prerendering entry (`vite build --ssr`, then scripts/prerender.ts): renders a public page to
 * HTML with its critical CSS and its head, so that crawlers and link previews read the page's text without
 * running the app, and visitors see the page before its JavaScript arrives. main.tsx then renders the same
 * page over it once the route's code is loaded (docs/portal.md, "Prerendered public pages").
 */
import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import createEmotionServer from '@emotion/server/create-instance';
import { renderToString } from 'react-dom/server';
import { StaticRouterProvider, createStaticHandler, createStaticRouter } from 'react-router';
import { AppProviders } from './AppProviders.tsx';
import { PUBLIC_URL_TOKEN, headHtml } from './components/pageHead.ts';
import { prerenderedMeta } from './components/pageMeta.ts';

export { PUBLIC_URL_TOKEN, headHtml };

/** Every route of the portal (patterns such as /careers/jobs/:slug): other addresses answer 404. */
export const ROUTES: readonly string[] = [...publicPaths, ...authenticatedPaths];

/** Pages no search engine should list: the sign-in pages and everything behind sign-in. */
export const NO_INDEX: readonly string[] = [
  paths.login,
  paths.signup,
  paths.forgotPassword,
  paths.resetPassword,
  paths.awaitingVerification,
  ...authenticatedPaths,
];
import { authenticatedPaths, paths, publicPaths } from './routes/paths.ts';
import { routes } from './routes/router.tsx';
import { RootStore } from './stores/RootStore.ts';

/**
 * The public pages whose content does not depend on who asks: prerendered. The sign-in pages are not (they are
 * noindex, and their forms need the app); nor are pages whose content is data (a job, the hall of fame's
 * researchers), which render their frame here and their data in the browser.
 */
export const PRERENDERED_PATHS: readonly string[] = [
  paths.home,
  paths.features,
  paths.howToPlay,
  paths.pricing,
  paths.privacyPolicy,
  paths.termsOfService,
  paths.contact,
  paths.security,
  paths.securityPolicy,
  paths.hallOfFame,
  paths.careers,
];

export interface PrerenderedPage {
  path: string;
  /** The page's head: title, description, robots, canonical address, Open Graph and Twitter tags. */
  head: string;
  /** The emotion style tags of what was rendered. */
  styles: string;
  /** The markup inside #root. */
  html: string;
}

/** Storage that starts empty and is forgotten: a visitor with no session, in Node. */
class EmptyStorage implements Storage {
  readonly #items = new Map<string, string>();
  get length() {
    return this.#items.size;
  }
  clear() {
    this.#items.clear();
  }
  getItem(key: string) {
    return this.#items.get(key) ?? null;
  }
  key(index: number) {
    return [...this.#items.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.#items.delete(key);
  }
  setItem(key: string, value: string) {
    this.#items.set(key, value);
  }
}

const visitorStore = () =>
  new RootStore({ storage: new EmptyStorage(), redirectStorage: new EmptyStorage(), locks: null });

/** Renders one path as a visitor with no session sees it on arrival. */
export async function prerender(path: string, origin: string): Promise<PrerenderedPage> {
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(`http://prerender${path}`));
  if (context instanceof Response) throw new Error(`${path} answered a redirect when prerendered`);
  // A page listed here that no route serves would be published as the not-found screen.
  if (context.matches.some((match) => match.route.path === '*'))
    throw new Error(`${path} is prerendered but no route serves it`);
  const router = createStaticRouter(handler.dataRoutes, context);
  // The client's emotion cache has the same key: it takes these styles over instead of inserting them again.
  const cache = createCache({ key: 'css' });
  const emotion = createEmotionServer(cache);
  prerenderedMeta.current = null;
  const html = renderToString(
    <CacheProvider value={cache}>
      <AppProviders store={visitorStore()}>
        <StaticRouterProvider router={router} context={context} hydrate={false} />
      </AppProviders>
    </CacheProvider>,
  );
  const meta = prerenderedMeta.current;
  if (!meta) throw new Error(`${path} set no page metadata (usePageMeta)`);
  const chunks = emotion.extractCriticalToChunks(html);
  return {
    path,
    head: headHtml(meta, path, origin),
    styles: emotion.constructStyleTagsFromChunks(chunks),
    html,
  };
}
