import * as openpgp from 'openpgp';
import type { SecurityKey } from './pgp-key.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** RFC 9116 asks for less than a year; half a year leaves room for a cached copy. */
export const SECURITY_TXT_VALID_DAYS = 180;
/** Each replica signs again once a day, so Expires stays about half a year ahead. */
const RESIGN_AFTER_MS = DAY_MS;

/** Where the platform's disclosure pages and files are (the portal's routes; api/src/security/routes.ts). */
export const SECURITY_PATHS = {
  securityTxt: '/.well-known/security.txt',
  pgpKey: '/pgp-key.asc',
  contactPage: '/security',
  policy: '/security-policy',
  hallOfFame: '/security/hall-of-fame',
} as const;

/** The fields of security.txt (RFC 9116 section 2.5), in the order they are written. */
export function securityTxtFields(options: {
  publicUrl: string;
  securityEmail: string;
  expires: Date;
}): [string, string][] {
  const url = (path: string) => `${options.publicUrl}${path}`;
  return [
    // In order of preference (RFC 9116 section 2.5.3).
    ['Contact', `mailto:${options.securityEmail}`],
    ['Contact', url(SECURITY_PATHS.contactPage)],
    ['Expires', options.expires.toISOString().replace(/\.\d{3}Z$/, 'Z')],
    ['Encryption', url(SECURITY_PATHS.pgpKey)],
    ['Acknowledgments', url(SECURITY_PATHS.hallOfFame)],
    ['Preferred-Languages', 'en'],
    ['Canonical', url(SECURITY_PATHS.securityTxt)],
    ['Policy', url(SECURITY_PATHS.policy)],
  ];
}

/**
 * `/.well-known/security.txt`: the fields above, cleartext-signed with the platform's security key (the
 * OpenPGP cleartext signature framework, RFC 9116 section 2.3), made on first request and again once a day.
 * Without a key that can sign (its private half could not be opened) it is served unsigned.
 */
export class SecurityTxt {
  readonly #key: SecurityKey;
  readonly #publicUrl: string;
  readonly #securityEmail: string;
  readonly #now: () => number;
  #current: { text: Promise<string>; signedAt: number } | null = null;

  constructor(options: { key: SecurityKey; publicUrl: string; securityEmail: string; now?: () => number }) {
    this.#key = options.key;
    this.#publicUrl = options.publicUrl;
    this.#securityEmail = options.securityEmail;
    this.#now = options.now ?? Date.now;
  }

  /** The file's text (one signature shared by concurrent requests). */
  text(): Promise<string> {
    const now = this.#now();
    if (!this.#current || now - this.#current.signedAt >= RESIGN_AFTER_MS) {
      const text = this.#make(now);
      this.#current = { text, signedAt: now };
      // A failed signature is tried again by the next request, not served forever.
      text.catch(() => {
        if (this.#current?.text === text) this.#current = null;
      });
    }
    return this.#current.text;
  }

  async #make(now: number): Promise<string> {
    const fields = securityTxtFields({
      publicUrl: this.#publicUrl,
      securityEmail: this.#securityEmail,
      expires: new Date(now + SECURITY_TXT_VALID_DAYS * DAY_MS),
    });
    const body = [
      '# Exploit Grid: how to report a security vulnerability (RFC 9116).',
      `# Encrypt to the key at ${this.#publicUrl}${SECURITY_PATHS.pgpKey}, fingerprint ${this.#key.fingerprint}.`,
      ...fields.map(([name, value]) => `${name}: ${value}`),
      '',
    ].join('\n');
    if (!this.#key.signingKey) return body;
    return openpgp.sign({
      message: await openpgp.createCleartextMessage({ text: body }),
      signingKeys: this.#key.signingKey,
      date: new Date(now),
    });
  }
}
