import { useEffect } from 'react';
import { DESCRIPTION_MAX_LENGTH, SITE_DESCRIPTION, SITE_NAME } from '../strings/site.ts';

/** 'Title | Exploit Grid' (spec: 'Title | {site}'); the site name alone without a title. */
export function pageTitle(title?: string): string {
  return title ? `${title} | ${SITE_NAME}` : SITE_NAME;
}

/** Descriptions are cut to 160 characters: the first 157 and an ellipsis. */
export function truncateDescription(text: string, max = DESCRIPTION_MAX_LENGTH): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 3)}...`;
}

export type PageMeta = { title?: string; description?: string; noIndex?: boolean };

/** What the page being prerendered asked for (prerender.tsx reads it after rendering). */
export const prerenderedMeta: { current: PageMeta | null } = { current: null };

function setMeta(name: string, content: string | null) {
  let element = document.head.querySelector<HTMLMetaElement>(`meta[name="${name}"]`);
  if (content === null) {
    element?.remove();
    return;
  }
  if (!element) {
    element = document.createElement('meta');
    element.name = name;
    document.head.append(element);
  }
  element.content = content;
}

/**
 * Sets the document title, meta description and robots directive of a page. Its sharing cards (Open Graph,
 * Twitter) and canonical address come with the page from the server (pageHead.ts), which is where link
 * previews read them: they do not run the app.
 */
export function usePageMeta(meta: PageMeta): void {
  const { title, description, noIndex = false } = meta;
  // Effects do not run when prerendering: the page's head is taken from here instead.
  if (import.meta.env.SSR) prerenderedMeta.current = { title, description, noIndex };
  useEffect(() => {
    document.title = pageTitle(title);
    setMeta('description', truncateDescription(description ?? SITE_DESCRIPTION));
    setMeta('robots', noIndex ? 'noindex, nofollow' : null);
  }, [title, description, noIndex]);
}
