import type { Request } from 'express';
import busboy from 'busboy';
import { fileTypeFromBuffer } from 'file-type';
import { CAREERS_MESSAGES, RESUME_FIELD, RESUME_MAX_BYTES, type ResumeKind } from '../contracts/index.ts';
import { HttpError, badRequest } from '../http/errors.ts';

/**
 * What a resume is, read from its content alone (its name and declared type say nothing): a PDF (`%PDF-`), a
 * Word 97-2003 document (an OLE2 compound file, D0CF11E0, holding a `WordDocument` stream: an MSI installer or
 * an Excel sheet is a compound file too) or a Word document (a zip holding `[Content_Types].xml` and
 * `word/document.xml`). Anything else, executables included, is null; so is a Word file that carries macros,
 * ActiveX controls or embedded objects, which staff would open (docs/careers.md).
 *
 * The containers are not parsed: their structures come from the visitor and a parser that follows them can be
 * sent round in circles (a compound file whose directory loops, a zip that claims billions of entries). Their
 * directory records are found by a linear scan of the bytes instead, bounded by the file's size.
 */
export async function resumeKindOf(content: Uint8Array): Promise<ResumeKind | null> {
  const detected = await fileTypeFromBuffer(content).catch(() => undefined);
  switch (detected?.ext) {
    case 'pdf':
      // The signature at the very start, as readers require it.
      return startsWith(content, '%PDF-') ? 'pdf' : null;
    case 'cfb':
      return isPlainWordCompoundFile(Buffer.from(content.buffer, content.byteOffset, content.byteLength))
        ? 'doc'
        : null;
    case 'docx':
      return isPlainWordZip(Buffer.from(content.buffer, content.byteOffset, content.byteLength))
        ? 'docx'
        : null;
    default:
      return null;
  }
}

function startsWith(content: Uint8Array, ascii: string): boolean {
  return Buffer.from(content.subarray(0, ascii.length)).toString('latin1') === ascii;
}

/** Directory entries of a compound file whose presence refuses it: macros and embedded objects. */
const ACTIVE_STORAGES = new Set(['Macros', '_VBA_PROJECT_CUR', 'VBA', 'ObjectPool', '_VBA_PROJECT']);

/**
 * A compound file with a `WordDocument` stream and none of ACTIVE_STORAGES. Its directory entries are 128-byte
 * records at offsets that are multiples of 128 (the 512-byte header, then sectors of 512 or 4096 bytes): each
 * such record is read where it lies (name: UTF-16LE, its byte length at 0x40; type at 0x42: 1 storage,
 * 2 stream), nothing is followed.
 */
function isPlainWordCompoundFile(content: Buffer): boolean {
  let word = false;
  for (let at = 512; at + 128 <= content.length; at += 128) {
    const nameBytes = content.readUInt16LE(at + 0x40);
    const type = content[at + 0x42];
    if (nameBytes < 2 || nameBytes > 64 || nameBytes % 2 !== 0 || (type !== 1 && type !== 2)) continue;
    const name = content.toString('utf16le', at, at + nameBytes - 2);
    if (type === 2 && name === 'WordDocument') word = true;
    if (ACTIVE_STORAGES.has(name)) return false;
  }
  return word;
}

/** Parts of a Word zip whose presence refuses it: macros, ActiveX controls, embedded objects and files. */
const ACTIVE_PARTS = /(^|\/)(vbaProject\.bin|vbaData\.xml)$|(^|\/)(activeX|embeddings)\//i;
/** More names than a resume has parts: a zip listing more is no resume. */
const ZIP_MAX_ENTRIES = 2000;

/**
 * A zip whose central directory lists `[Content_Types].xml` and `word/document.xml`, and no ACTIVE_PARTS.
 * Central directory records (`PK\x01\x02`, the name's length at 28, the name at 46) are found by a scan of
 * the bytes; no count or offset the file claims is trusted, and nothing is decompressed.
 */
function isPlainWordZip(content: Buffer): boolean {
  const signature = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
  const names = new Set<string>();
  for (let at = content.indexOf(signature); at !== -1; at = content.indexOf(signature, at + 4)) {
    if (at + 46 > content.length) break;
    const length = content.readUInt16LE(at + 28);
    if (at + 46 + length > content.length) continue;
    const name = content.toString('utf8', at + 46, at + 46 + length);
    if (ACTIVE_PARTS.test(name)) return false;
    names.add(name);
    if (names.size > ZIP_MAX_ENTRIES) return false;
  }
  return names.has('[Content_Types].xml') && names.has('word/document.xml');
}

/** The one file of a multipart upload, read into memory while its size is counted. */
export interface ReceivedFile {
  content: Buffer;
  /** The name the browser gave, made printable and bounded; null when none came. */
  fileName: string | null;
}

/** The bytes of headers and boundaries a multipart body may add around the file. */
const MULTIPART_OVERHEAD = 64 * 1024;
/**
 * A body this much larger than the limit is cut off (the connection is closed): a file just over the limit is
 * read to its end so the browser gets the 413 and its message, a flood is not.
 */
const DRAIN_MAX = RESUME_MAX_BYTES + 1024 * 1024;

export const tooLarge = () => new HttpError(413, CAREERS_MESSAGES.resumeTooLarge);

/**
 * Reads `POST /careers/resumes`: multipart/form-data with exactly one part, the file in the field
 * `RESUME_FIELD`, at most RESUME_MAX_BYTES. The size is counted while the body streams in: past the limit
 * nothing more is kept, and the answer is 413.
 */
export function receiveResume(req: Request): Promise<ReceivedFile> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > RESUME_MAX_BYTES + MULTIPART_OVERHEAD) {
      // Said up front: not read at all, and the connection goes with the answer.
      req.once('error', () => undefined);
      reject(closing(tooLarge()));
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          // One byte more than allowed, so that a file of exactly the limit is not cut: `size` decides.
          fileSize: RESUME_MAX_BYTES + 1,
          files: 1,
          fields: 0,
          parts: 2,
          fieldNameSize: 100,
          headerPairs: 20,
        },
      });
    } catch {
      reject(badRequest(CAREERS_MESSAGES.uploadMalformed));
      return;
    }
    let failure: HttpError | null = null;
    let file: ReceivedFile | null = null;
    let reading: Promise<void> | null = null;
    let received = 0;
    const fail = (error: HttpError) => (failure ??= error);

    parser.on('file', (field, stream, info) => {
      if (field !== RESUME_FIELD) {
        fail(badRequest(CAREERS_MESSAGES.uploadMalformed));
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      reading = new Promise<void>((done) => {
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= RESUME_MAX_BYTES) chunks.push(chunk);
        });
        stream.on('limit', () => {
          fail(tooLarge());
          chunks.length = 0;
        });
        stream.on('end', () => {
          if (size > RESUME_MAX_BYTES) fail(tooLarge());
          if (!failure) file = { content: Buffer.concat(chunks), fileName: cleanName(info.filename) };
          done();
        });
        stream.on('error', () => {
          fail(badRequest(CAREERS_MESSAGES.uploadMalformed));
          done();
        });
      });
    });
    parser.on('field', () => fail(badRequest(CAREERS_MESSAGES.uploadMalformed)));
    parser.on('partsLimit', () => fail(badRequest(CAREERS_MESSAGES.uploadMalformed)));
    parser.on('filesLimit', () => fail(badRequest(CAREERS_MESSAGES.uploadMalformed)));
    parser.on('fieldsLimit', () => fail(badRequest(CAREERS_MESSAGES.uploadMalformed)));
    parser.on('error', () => {
      fail(badRequest(CAREERS_MESSAGES.uploadMalformed));
      req.unpipe(parser);
      req.resume();
      settle();
    });
    parser.on('close', () => settle());

    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      void Promise.resolve(reading).then(() => {
        if (failure) reject(failure);
        else if (!file || file.content.length === 0) reject(badRequest(CAREERS_MESSAGES.resumeRequired));
        else resolve(file);
      });
    };

    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > DRAIN_MAX) {
        // A flood: stop reading; the answer closes the connection.
        req.unpipe(parser);
        req.pause();
        fail(closing(tooLarge()));
        settle();
      }
    });
    req.on('aborted', () => {
      fail(badRequest(CAREERS_MESSAGES.uploadMalformed));
      settle();
    });
    req.pipe(parser);
  });
}

/** An error whose answer closes the connection (the rest of the body is not read). */
function closing(error: HttpError): HttpError {
  return new HttpError(error.statusCode, error.message, {
    headers: { ...error.headers, Connection: 'close' },
  });
}

/** A file name for staff listings: printable, one line, at most 200 characters. */
function cleanName(name: string | undefined): string | null {
  // eslint-disable-next-line no-control-regex
  const clean = (name ?? '').replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  return clean ? clean.slice(0, 200) : null;
}
