/** A run of a legal text: plain text, or a link (`[label](href)` in the texts, `strings/legal/document.ts`). */
export interface InlineSegment {
  text: string;
  href?: string;
}

const LINK = /\[([^\]]+)\]\(([^)\s]+)\)/g;

/** The runs of a text, in order; empty runs are left out. */
export function inlineSegments(text: string): InlineSegment[] {
  const segments: InlineSegment[] = [];
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    if (match.index > last) segments.push({ text: text.slice(last, match.index) });
    segments.push({ text: match[1]!, href: match[2]! });
    last = match.index + match[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last) });
  return segments;
}

/**
 * Whether a link is a page of the portal (followed by the router) rather than a file the server serves
 * (`/pgp-key.asc`, `/.well-known/security.txt`) or an address (`mailto:`).
 */
export function isPortalPage(href: string): boolean {
  return href.startsWith('/') && !href.startsWith('//') && !/\/\.|\.[a-z0-9]+$/i.test(href);
}

/**
 * A text as the PDF prints it: a link's address after its label, absolute, so that a reader of the printed
 * file can type it ('contact form (https://exploitgrid.io/contact)'); an address alone when it is its label.
 */
export function plainText(text: string, origin: string): string {
  return inlineSegments(text)
    .map(({ text: label, href }) => {
      if (!href) return label;
      const address = href.startsWith('mailto:')
        ? href.slice('mailto:'.length)
        : href.startsWith('/')
          ? `${origin}${href}`
          : href;
      return label === address || label === href ? address : `${label} (${address})`;
    })
    .join('');
}
