import { createRequire } from 'node:module';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api';
import { describe, expect, it } from 'vitest';
import { lastUpdated, paragraph, section, type LegalDocument } from '../strings/legal/document.ts';
import { privacyPolicy } from '../strings/legal/privacy.ts';
import { securityPolicy } from '../strings/legal/securityPolicy.ts';
import { termsOfService } from '../strings/legal/terms.ts';
import { inlineSegments, isPortalPage, plainText } from './inline.ts';
import { isDrawable, legalPdfBytes } from './pdf.ts';

const ORIGIN = 'https://exploitgrid.io';
const require = createRequire(import.meta.url);
const standardFontDataUrl = `${path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts')}/`;

interface ReadPdf {
  pages: { text: string; items: TextItem[]; width: number }[];
  /** All the text, lines joined by spaces, runs of white space as one. */
  text: string;
  title: string | undefined;
}

/** Reads a PDF back with Mozilla's PDF.js: the text a reader selects and copies, page by page. */
async function readPdf(bytes: Uint8Array): Promise<ReadPdf> {
  const task = getDocument({ data: bytes, standardFontDataUrl, verbosity: 0 });
  const pdf = await task.promise;
  const pages: ReadPdf['pages'] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const items = (await page.getTextContent()).items.filter((item): item is TextItem => 'str' in item);
    pages.push({
      items,
      text: items.map((item) => item.str).join(' '),
      width: page.getViewport({ scale: 1 }).width,
    });
  }
  const info = (await pdf.getMetadata()).info as { Title?: string };
  await task.destroy();
  const text = pages
    .map((page) => page.text)
    .join(' ')
    .replace(/\s+/g, ' ');
  return { pages, text, title: info.Title };
}

const documents = [
  { name: 'the privacy policy', document: privacyPolicy, fileName: 'privacy-policy.pdf' },
  { name: 'the terms of service', document: termsOfService, fileName: 'terms-and-conditions.pdf' },
  { name: 'the security policy', document: securityPolicy, fileName: 'security-policy.pdf' },
] as const;

describe('legal PDFs, read back with a PDF parser', () => {
  const read = new Map<LegalDocument, Promise<ReadPdf>>();
  const pdfOf = (document: LegalDocument) => {
    if (!read.has(document)) read.set(document, readPdf(legalPdfBytes(document, ORIGIN)));
    return read.get(document)!;
  };

  it.each(documents)(
    '$name is saved as its file name and holds the title, the date and every heading as text',
    async ({ document, fileName }) => {
      expect(document.fileName).toBe(fileName);
      const pdf = await pdfOf(document);
      expect(pdf.title).toBe(`${document.title} | Exploit Grid`);
      expect(pdf.pages[0]!.text).toContain(document.title);
      expect(pdf.text).toContain(lastUpdated(document.revised));
      for (const { heading } of [...document.sections, document.contact]) expect(pdf.text).toContain(heading);
    },
  );

  it.each(documents)(
    '$name numbers every page and keeps every line within the margins',
    async ({ document }) => {
      const pdf = await pdfOf(document);
      expect(pdf.pages.length).toBeGreaterThan(1);
      pdf.pages.forEach((page, i) => {
        expect(page.text).toContain(`Page ${i + 1} of ${pdf.pages.length}`);
        for (const item of page.items) {
          const left = item.transform[4] as number;
          expect(left, item.str).toBeGreaterThanOrEqual(40);
          expect(left + item.width, item.str).toBeLessThanOrEqual(page.width - 50);
        }
      });
    },
  );

  it('prints the links of the text with their absolute addresses', async () => {
    const pdf = await pdfOf(privacyPolicy);
    expect(pdf.text).toContain(`contact form (${ORIGIN}/contact)`);
    expect(pdf.text).toContain('privacy@exploitgrid.io');
    expect(pdf.text).not.toContain('](');
  });

  it('states the minimum age, the 72 hours of breach notice and the 2 years of logs in the privacy policy', async () => {
    const { text } = await pdfOf(privacyPolicy);
    expect(text).toContain('13 or older');
    expect(text).toContain('within 72 hours');
    expect(text).toContain('kept up to 2 years');
    expect(text).toContain('AES-256-GCM');
    expect(text).toContain('argon2id');
    // What the code does not enforce is not claimed.
    expect(text).not.toMatch(/AES-256-CBC|TLS 1\.3/);
  });

  it('states every refund term with its number, the age, the tiers and the rules of conduct in the terms', async () => {
    const { text } = await pdfOf(termsOfService);
    for (const term of [
      'within 30 days of the purchase',
      'less than 25% of the credits',
      'Only the unused part is refunded',
      'within 60 days of the charge',
      'within 7 days of noticing it',
      'over 48 hours',
      'within 24 hours',
      '5-7 business days',
      '5-10 business days',
      'initial cancellation period of 30 days',
      '13 or older',
      '1 USD buys 100 credits',
      'Gift',
      'BASIC: box time 40 credits an hour, an attack 5 credits, no snapshot slots',
      'HACKER: box time 60 credits an hour, an attack 3 credits, 1 snapshot slot',
      'Syndicate (ELITE): box time 75 credits an hour, an attack 1 credit, 3 snapshot slots',
      'TEAM: box time 75 credits an hour, an attack 1 credit, 5 snapshot slots',
      'Attack only the box you are matched with',
      'Attack only within the matched attack window',
      'Never attack the platform itself',
      `report it at ${ORIGIN}/security instead`,
      "Never attack other players' own computers or networks",
      'No denial of service against the shared arena',
      'No second accounts to farm MMR',
    ])
      expect(text).toContain(term);
  });

  it('states the scope, the safe harbour, the ways to report and every response target in the security policy', async () => {
    const { text } = await pdfOf(securityPolicy);
    for (const term of [
      '1. Scope',
      '2. Safe harbour',
      'security@exploitgrid.io',
      `OpenPGP key at ${ORIGIN}/pgp-key.asc`,
      `${ORIGIN}/.well-known/security.txt`,
      'within 24-48 hours',
      'Critical: response within 4-8 hours, fix within 24-72 hours.',
      'High: response within 24 hours, fix within 3-7 days.',
      'Medium: response within 48 hours, fix within 1-2 weeks.',
      'Low: response within 72 hours, fix within 2-4 weeks.',
      'within 72 hours of becoming aware',
      `hall of fame (${ORIGIN}/security/hall-of-fame)`,
    ])
      expect(text).toContain(term);
  });

  it('wraps a word longer than a line instead of running off the page', async () => {
    const long: LegalDocument = {
      ...privacyPolicy,
      sections: [section('1. Long', paragraph(`${'x'.repeat(300)} ${'word '.repeat(200)}`))],
    };
    const pdf = await readPdf(legalPdfBytes(long, ORIGIN));
    for (const page of pdf.pages)
      for (const item of page.items)
        expect((item.transform[4] as number) + item.width).toBeLessThanOrEqual(page.width - 50);
    expect(pdf.text.replace(/ /g, '')).toContain('x'.repeat(300));
  });
});

describe('legal texts', () => {
  it.each(documents)('$name uses only characters the standard PDF fonts can draw', ({ document }) => {
    const texts = [
      document.title,
      document.description,
      ...document.intro,
      ...[...document.sections, document.contact].flatMap((s) => [
        s.heading,
        ...s.blocks.flatMap((b) => (b.kind === 'paragraph' ? [b.text] : b.items)),
      ]),
    ];
    const undrawable = texts.flatMap((text) => Array.from(text).filter((char) => !isDrawable(char)));
    expect(undrawable).toEqual([]);
  });

  it.each(documents)('$name gives every section a distinct anchor', ({ document }) => {
    const ids = [...document.sections, document.contact].map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('are written with links as [label](href), pages of the portal told from served files and mail addresses', () => {
    expect(inlineSegments('See [the form](/contact) or [a@b.io](mailto:a@b.io).')).toEqual([
      { text: 'See ' },
      { text: 'the form', href: '/contact' },
      { text: ' or ' },
      { text: 'a@b.io', href: 'mailto:a@b.io' },
      { text: '.' },
    ]);
    expect(isPortalPage('/security/hall-of-fame')).toBe(true);
    expect(isPortalPage('/pgp-key.asc')).toBe(false);
    expect(isPortalPage('/.well-known/security.txt')).toBe(false);
    expect(isPortalPage('mailto:a@b.io')).toBe(false);
    expect(isPortalPage('//elsewhere.test/x')).toBe(false);
    expect(plainText('[/security](/security) and [a@b.io](mailto:a@b.io)', ORIGIN)).toBe(
      `${ORIGIN}/security and a@b.io`,
    );
  });
});
