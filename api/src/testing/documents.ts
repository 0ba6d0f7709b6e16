/**
 * Real small files for the resume tests, made here rather than kept as fixtures: a PDF a reader opens, a Word
 * document (a zip of its XML parts), a Word 97-2003 document (a compound file with a WordDocument stream),
 * and things that are not resumes (a PNG, an ELF executable, a Windows executable, a compound file that is not
 * a Word document).
 */
import CFB from 'cfb';
import { strToU8, zipSync } from 'fflate';

/** A one-page PDF saying `text`, with a correct cross-reference table; `padTo` pads it with a comment. */
export function minimalPdf(text = 'Jane Doe - Resume', padTo = 0): Buffer {
  const line = text.replace(/[\\()]/g, (c) => `\\${c}`);
  const content = `BT /F1 24 Tf 72 720 Td (${line}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  const pdf = Buffer.from(body, 'latin1');
  if (padTo <= pdf.length) return pdf;
  // A comment line before the end keeps it a valid PDF of exactly `padTo` bytes.
  const filler = Buffer.alloc(padTo - pdf.length, 'x');
  filler[0] = 0x25; // '%'
  filler[filler.length - 1] = 0x0a;
  return Buffer.concat([pdf.subarray(0, pdf.length - 6), filler, pdf.subarray(pdf.length - 6)]);
}

/** A Word document (DOCX): the three parts Word needs, zipped. */
export function minimalDocx(text = 'Jane Doe - Resume', extraParts: string[] = []): Buffer {
  const files: Record<string, Uint8Array> = {
    ...Object.fromEntries(extraParts.map((name) => [name, strToU8('part')])),
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
        '</Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
        '</Relationships>',
    ),
    'word/document.xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
        `<w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
    ),
  };
  return Buffer.from(zipSync(files));
}

/** A zip that is not a Word document (a renamed archive). */
export function plainZip(): Buffer {
  return Buffer.from(zipSync({ 'notes.txt': strToU8('not a resume') }));
}

/**
 * A compound file holding `stream` (WordDocument: a Word 97-2003 document; anything else: not one), and the
 * `extra` streams given by path (`Macros/VBA/dir`: a document with macros).
 */
export function compoundFile(stream = 'WordDocument', extra: string[] = []): Buffer {
  const container = CFB.utils.cfb_new();
  CFB.utils.cfb_add(container, `/${stream}`, Buffer.from('Jane Doe - Resume '.repeat(300)));
  for (const path of extra) CFB.utils.cfb_add(container, `/${path}`, Buffer.from('Attribute VB_Name'));
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

/** A 1x1 PNG image. */
export function pngImage(): Buffer {
  return Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
}

/** The start of an x86-64 ELF executable (what `file` calls one), padded. */
export function elfExecutable(): Buffer {
  const elf = Buffer.alloc(4096);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]).copy(elf, 0);
  elf.writeUInt16LE(2, 16); // ET_EXEC
  elf.writeUInt16LE(0x3e, 18); // x86-64
  elf.writeUInt32LE(1, 20);
  return elf;
}

/** The start of a Windows executable: MZ, and the PE header where e_lfanew points. */
export function windowsExecutable(): Buffer {
  const exe = Buffer.alloc(4096);
  exe.write('MZ', 0, 'latin1');
  exe.writeUInt32LE(0x80, 0x3c);
  exe.write('PE\0\0', 0x80, 'latin1');
  exe.writeUInt16LE(0x8664, 0x84);
  return exe;
}

/**
 * A Word 97-2003 document whose directory goes round in circles: every entry's right sibling is entry 1. A
 * parser that follows the directory never ends.
 */
export function loopingCompoundFile(): Buffer {
  const file = compoundFile('WordDocument', ['Notes', 'More']);
  const directory = 512 + file.readUInt32LE(48) * 512;
  for (let entry = 0; entry < 4; entry += 1) file.writeUInt32LE(1, directory + entry * 128 + 72);
  return file;
}

/** A DOCX whose end record (ZIP64) claims `count` entries, billions if asked: to be trusted by nothing. */
export function zip64ClaimingDocx(count: number): Buffer {
  const docx = minimalDocx();
  const end = docx.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const directoryOffset = docx.readUInt32LE(end + 16);
  const directorySize = docx.readUInt32LE(end + 12);
  const head = docx.subarray(0, end);
  const zip64End = Buffer.alloc(56);
  zip64End.writeUInt32LE(0x06064b50, 0);
  zip64End.writeBigUInt64LE(44n, 4);
  zip64End.writeUInt16LE(45, 12);
  zip64End.writeUInt16LE(45, 14);
  zip64End.writeBigUInt64LE(BigInt(count), 24);
  zip64End.writeBigUInt64LE(BigInt(count), 32);
  zip64End.writeBigUInt64LE(BigInt(directorySize), 40);
  zip64End.writeBigUInt64LE(BigInt(directoryOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(head.length), 8);
  locator.writeUInt32LE(1, 16);
  const classicEnd = Buffer.alloc(22);
  classicEnd.writeUInt32LE(0x06054b50, 0);
  classicEnd.writeUInt16LE(0xffff, 8);
  classicEnd.writeUInt16LE(0xffff, 10);
  classicEnd.writeUInt32LE(0xffffffff, 12);
  classicEnd.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([head, zip64End, locator, classicEnd]);
}
