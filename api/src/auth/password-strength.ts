import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';
import { PASSWORD_TOO_GUESSABLE } from '../contracts/index.ts';
import { badRequest } from '../http/errors.ts';

/**
 * zxcvbn's score (0 to 4) a new password needs. 3 means about 10^8 guesses or more: out of reach of an
 * online attacker, and, behind argon2id, of an offline one for years. 2 would let 'Summer2026!' through.
 */
export const MIN_PASSWORD_SCORE = 3;

/**
 * Only the first 32 characters are judged. The check is superlinear in the length (every substring against
 * every dictionary, in every l33t spelling) and runs on the event loop: 32 characters keep the worst input
 * to about 20 ms of CPU where 128 took 1 to 3 s (test/bench/passwords.ts). A password whose first 32
 * characters are hard to guess is hard to guess.
 */
export const CHECKED_LENGTH = 32;

/** Words of this site that make a password guessable to someone who knows where it is used. */
const SITE_WORDS = ['exploit', 'grid', 'exploitgrid', 'exploit grid', 'exploit-grid', 'operator'];

let checker: ZxcvbnFactory | undefined;

/**
 * The dictionaries (common and breached passwords, English words, names, Wikipedia) are built once per
 * process, on first use or by `warmPasswordStrength()` at start (about half a second), and shared.
 */
function zxcvbn(): ZxcvbnFactory {
  return (checker ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: {
      ...english.translations,
      warnings: {
        ...english.translations.warnings,
        // The library's own sentence ('personal or page related data') names neither.
        userInputs: 'Avoid your handle, your email address and the name of this site.',
      },
    },
    maxLength: CHECKED_LENGTH,
    // De-l33ted spellings tried ('p4ssw0rd' as 'password'), each a pass over every dictionary: 4 catch the
    // common ones ('P@$$w0rd123', 'M0nk3y!23', 'f00tb4ll!!') as well as 100 (the default) do, at a fraction.
    l33tMaxSubstitutions: 4,
    // Edit-distance matching against every dictionary word costs hundreds of milliseconds a check.
    useLevenshteinDistance: false,
  }));
}

/** Builds the dictionaries now, so that the first sign-up does not wait for them. */
export function warmPasswordStrength(): void {
  zxcvbn();
}

/** The handle and the address, and their parts, as words an attacker would try first. */
export function personalWords(handle: string | undefined, email: string | undefined): string[] {
  const words = new Set<string>(SITE_WORDS);
  const local = email?.split('@')[0];
  for (const value of [handle, email, local]) {
    if (!value) continue;
    const lower = value.toLowerCase();
    words.add(lower);
    // 'alice.smith' is also tried as 'alicesmith', 'alice' and 'smith'.
    words.add(lower.replace(/[^a-z0-9]+/g, ''));
    for (const part of lower.split(/[^a-z0-9]+/)) if (part.length >= 3) words.add(part);
  }
  return [...words];
}

/**
 * Why a new password would be easy to guess, in one or two sentences for the person choosing it, or null
 * when it is good enough. Judged by zxcvbn against the bundled lists of common and breached passwords,
 * words and names, keyboard patterns, dates and the person's own handle and address.
 */
export function passwordWeakness(password: string, personal: string[] = []): string | null {
  const result = zxcvbn().check(password, personal);
  if (result.score >= MIN_PASSWORD_SCORE) return null;
  const { warning, suggestions } = result.feedback;
  const advice = suggestions[0] ?? 'Add more words that are less common.';
  return [PASSWORD_TOO_GUESSABLE, warning, advice].filter(Boolean).join(' ');
}

/**
 * Refuses a new password that is easy to guess with the answer of any invalid field (400,
 * 'password: <why>'), so the portal shows the reason under the field.
 */
export function assertHardToGuess(password: string, owner: { handle?: string; email?: string }): void {
  const weakness = passwordWeakness(password, personalWords(owner.handle, owner.email));
  if (weakness) throw badRequest(`password: ${weakness}`, 'PASSWORD_TOO_GUESSABLE');
}
