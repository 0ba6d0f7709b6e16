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

export type PageMeta = { title?: string; description?: string; noIndex?: boolean };

/** Sets the document title, meta description and robots directive of a page. */
export function usePageMeta({ title, description, noIndex = false }: PageMeta): void {
  useEffect(() => {
    document.title = pageTitle(title);
    setMeta('description', truncateDescription(description ?? SITE_DESCRIPTION));
    setMeta('robots', noIndex ? 'noindex, nofollow' : null);
  }, [title, description, noIndex]);
}
