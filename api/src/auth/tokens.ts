import { createHash, randomBytes } from 'node:crypto';

/** A 128-bit random token for links and codes, URL-safe. */
export function newToken(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

/** Tokens are stored as their SHA-256: a database leak does not hand out live links. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
