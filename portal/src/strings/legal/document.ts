/**
 * Legal texts as data (docs/legal.md): the pages and their PDFs (`legal/pdf.ts`) are drawn from the same
 * sections, so the file a visitor downloads says exactly what the page says. Inline links are written
 * `[label](href)`: a path of the portal, a file the server serves (`/pgp-key.asc`), or a `mailto:` address.
 * Texts use only characters the PDF's standard fonts can draw (Windows-1252; `legal/pdf.test.ts`).
 */
export type LegalBlock = { kind: 'paragraph'; text: string } | { kind: 'list'; items: readonly string[] };

export interface LegalSection {
  /** The anchor of the section on the page (`#id`). */
  id: string;
  heading: string;
  blocks: readonly LegalBlock[];
}

export interface LegalDocument {
  /** The page's title and heading, and the PDF's. */
  title: string;
  /** The page's meta description. */
  description: string;
  /** The PDF's file name. */
  fileName: string;
  /** The revision of the text: its last-updated date, YYYY-MM-DD. */
  revised: string;
  intro: readonly string[];
  sections: readonly LegalSection[];
  /** The contact block, last on the page and in the PDF. */
  contact: LegalSection;
}

export const paragraph = (text: string): LegalBlock => ({ kind: 'paragraph', text });
export const list = (...items: string[]): LegalBlock => ({ kind: 'list', items });

/** A section whose anchor comes from its heading ('4. Credits, Gift and tiers' becomes `credits-gift-and-tiers`). */
export function section(heading: string, ...blocks: LegalBlock[]): LegalSection {
  const id = heading
    .toLowerCase()
    .replace(/^\d+\.\s*/, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return { id, heading, blocks };
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/** '2026-11-27' as 'November 27, 2026' (the same in every browser and time zone: no Intl, no Date). */
export function formatRevision(revised: string): string {
  const [year, month, day] = revised.split('-').map(Number);
  return `${MONTHS[(month ?? 1) - 1]} ${day}, ${year}`;
}

export const lastUpdated = (revised: string) => `Last updated: ${formatRevision(revised)}`;

// The pages' own words (commerce-and-content sections 2 and 8).
export const DOWNLOAD_PDF = 'Download PDF';
export const GENERATING_PDF = 'Generating PDF...';
export const PDF_NO_CONTENT = 'Could not find content to generate PDF';
export const PDF_FAILED = 'Failed to generate PDF. Please try again.';
export const CONTENTS = 'Contents';
