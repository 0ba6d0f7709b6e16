import { randomInt } from 'node:crypto';
import { TRACKING_ID_PATTERN } from '../contracts/index.ts';

/** Crockford's base32 (no I, L, O, U): what a researcher reads off a mail and types again. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const SYMBOLS = 16;

/**
 * A report's tracking id, `EG-VR-XXXX-XXXX-XXXX-XXXX`: 80 bits from the operating system's CSPRNG, so ids say
 * nothing of how many reports there are and cannot be guessed from one another.
 */
export function newTrackingId(): string {
  let symbols = '';
  for (let i = 0; i < SYMBOLS; i++) symbols += ALPHABET[randomInt(ALPHABET.length)];
  return `EG-VR-${symbols.match(/.{4}/g)!.join('-')}`;
}

/**
 * The tracking id staff meant (the CLI's argument), in canonical form, or null: letter case, spaces and
 * dashes do not matter, O reads as 0, I and L as 1; the `EG-VR` prefix may be left out.
 */
export function normaliseTrackingId(input: string): string | null {
  const dash = /[\s\u2010-\u2015\u2212-]/g;
  // The prefix, when there, is written apart from the symbols (`EGVR1234...` is 16 symbols, not a prefix).
  const symbols = input
    .trim()
    .toUpperCase()
    .replace(/^EG[\s\u2010-\u2015\u2212-]*VR[\s\u2010-\u2015\u2212-]+/, '');
  const compact = symbols.replace(dash, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (compact.length !== SYMBOLS) return null;
  const id = `EG-VR-${compact.match(/.{4}/g)!.join('-')}`;
  return TRACKING_ID_PATTERN.test(id) ? id : null;
}
