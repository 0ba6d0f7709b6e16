import { jsPDF } from 'jspdf';
import { lastUpdated, type LegalDocument, type LegalSection } from '../strings/legal/document.ts';
import { SITE_NAME } from '../strings/site.ts';
import { plainText } from './inline.ts';

/**
 * The PDF of a legal text (docs/legal.md): real text in the standard Helvetica fonts, laid out from the same
 * sections as the page (not a picture of it), A4, lines wrapped to the margins, a heading never left alone at
 * the foot of a page, and every page numbered. jsPDF comes with this module, which the pages import only when
 * Download PDF is pressed.
 */

const MARGIN = 56;
/** Room kept at the foot of every page for its footer. */
const FOOTER_ROOM = 36;
const INK = [20, 24, 32] as const;
const MUTED = [96, 104, 120] as const;

type Style = { size: number; bold?: boolean; color?: readonly [number, number, number] };
const TITLE: Style = { size: 22, bold: true };
const META: Style = { size: 10, color: MUTED };
const HEADING: Style = { size: 13, bold: true };
const BODY: Style = { size: 10.5 };
const LEADING = 1.45;

/**
 * The characters the standard fonts draw (Windows-1252): printable ASCII, Latin-1 and the typographic marks
 * of 0x80-0x9F. The texts use no others (`pdf.test.ts`); anything else would be drawn as '?'.
 */
const TYPOGRAPHIC = '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ';
export function isDrawable(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || TYPOGRAPHIC.includes(char);
}
const drawable = (text: string) => Array.from(text, (char) => (isDrawable(char) ? char : '?')).join('');

/** Lays out `document` into a new PDF; `origin` makes the links of the text absolute. */
export function buildLegalPdf(document: LegalDocument, origin: string): jsPDF {
  const pdf = new jsPDF({ unit: 'pt', format: 'a4', compress: true });
  pdf.setProperties({
    title: `${document.title} | ${SITE_NAME}`,
    subject: document.description,
    author: SITE_NAME,
    creator: SITE_NAME,
  });
  pdf.setLanguage('en-US');
  const pageWidth = pdf.internal.pageSize.getWidth();
  const pageHeight = pdf.internal.pageSize.getHeight();
  const width = pageWidth - 2 * MARGIN;
  const bottom = pageHeight - MARGIN - FOOTER_ROOM;
  let y = MARGIN;

  const use = (style: Style) => {
    pdf.setFont('helvetica', style.bold ? 'bold' : 'normal');
    pdf.setFontSize(style.size);
    pdf.setTextColor(...(style.color ?? INK));
  };
  const lineHeight = (style: Style) => style.size * LEADING;
  /** A new page unless `height` still fits on this one. */
  const room = (height: number) => {
    if (y + height <= bottom) return;
    pdf.addPage();
    y = MARGIN;
  };
  /** Wraps `text` to the width left after `indent` and draws it; a list item gets its bullet. */
  const write = (text: string, style: Style, options: { indent?: number; bullet?: boolean } = {}) => {
    use(style);
    const indent = options.indent ?? 0;
    const lines = pdf.splitTextToSize(drawable(plainText(text, origin)), width - indent) as string[];
    lines.forEach((line, i) => {
      room(lineHeight(style));
      if (options.bullet && i === 0) pdf.text('•', MARGIN + indent - 11, y, { baseline: 'top' });
      pdf.text(line, MARGIN + indent, y, { baseline: 'top' });
      y += lineHeight(style);
    });
  };
  const writeSection = (section: LegalSection) => {
    y += 10;
    // A heading keeps at least two lines of its text with it.
    room(lineHeight(HEADING) + 2 * lineHeight(BODY));
    write(section.heading, HEADING);
    y += 4;
    for (const block of section.blocks) {
      if (block.kind === 'paragraph') write(block.text, BODY);
      else
        for (const item of block.items) {
          write(item, BODY, { indent: 16, bullet: true });
          y += 2;
        }
      y += 6;
    }
  };

  write(document.title, TITLE);
  y += 2;
  write(`${SITE_NAME} - ${lastUpdated(document.revised)}`, META);
  y += 8;
  pdf.setDrawColor(...MUTED);
  pdf.setLineWidth(0.5);
  pdf.line(MARGIN, y, pageWidth - MARGIN, y);
  y += 14;
  for (const text of document.intro) {
    write(text, BODY);
    y += 6;
  }
  for (const section of document.sections) writeSection(section);
  writeSection(document.contact);

  const pages = pdf.getNumberOfPages();
  for (let page = 1; page <= pages; page++) {
    pdf.setPage(page);
    use(META);
    const footerY = pageHeight - MARGIN;
    pdf.text(`${SITE_NAME} - ${document.title}`, MARGIN, footerY, { baseline: 'top' });
    pdf.text(`Page ${page} of ${pages}`, pageWidth - MARGIN, footerY, { baseline: 'top', align: 'right' });
  }
  return pdf;
}

/** The PDF's bytes (tests read them back with a PDF parser). */
export function legalPdfBytes(document: LegalDocument, origin: string): Uint8Array {
  return new Uint8Array(buildLegalPdf(document, origin).output('arraybuffer'));
}

/** Builds the PDF and has the browser download it as `document.fileName`. */
export function downloadLegalPdf(document: LegalDocument, origin: string): void {
  buildLegalPdf(document, origin).save(document.fileName);
}
