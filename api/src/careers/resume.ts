import type { Request } from 'express';
import busboy from 'busboy';
import CFB from 'cfb';
import { unzipSync } from 'fflate';
import { fileTypeFromBuffer } from 'file-type';
import { CAREERS_MESSAGES, RESUME_FIELD, RESUME_MAX_BYTES, type ResumeKind } from '../contracts/index.ts';
import { HttpError, badRequest } from '../http/errors.ts';

/**
 * What a resume is, read from its content alone (its name and declared type say nothing): a PDF (`%PDF-`), a
 * Word 97-2003 document (an OLE2 compound file, D0CF11E0, holding a `WordDocument` stream: an MSI installer or
 * an Excel sheet is a compound file too) or a Word document (a zip holding `[Content_Types].xml` and
 * `word/document.xml`). Anything else, executables included, is null.
 */
export async function resumeKindOf(content: Uint8Array): Promise<ResumeKind | null> {
  const detected = await fileTypeFromBuffer(content).catch(() => undefined);
  switch (detected?.ext) {
    case 'pdf':
      // The signature at the very start, as readers require it.
      return startsWith(content, '%PDF-') ? 'pdf' : null;
    case 'cfb':
      return isWordCompoundFile(content) ? 'doc' : null;
    case 'docx':
      return zipHolds(content, ['[Content_Types].xml', 'word/document.xml']) ? 'docx' : null;
    default:
      return null;
  }
}

function startsWith(content: Uint8Array, ascii: string): boolean {
  return Buffer.from(content.subarray(0, ascii.length)).toString('latin1') === ascii;
}

/** A compound file whose directory has a `WordDocument` stream (what Word 97-2003 writes). */
function isWordCompoundFile(content: Uint8Array): boolean {
  try {
    const container = CFB.read(Buffer.from(content.buffer, content.byteOffset, content.byteLength), {
      type: 'buffer',
    });
    return container.FileIndex.some((entry) => entry.type === 2 && entry.name === 'WordDocument');
  } catch {
    return false;
  }
}

/** Whether a zip's central directory lists every one of `names` (nothing is decompressed). */
function zipHolds(content: Uint8Array, names: string[]): boolean {
  const found = new Set<string>();
  try {
    unzipSync(content, {
      filter: (file) => {
        found.add(file.name);
        return false;
      },
    });
  } catch {
    return false;
  }
  return names.every((name) => found.has(name));
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
  const clean = (name ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean ? clean.slice(0, 200) : null;
}
