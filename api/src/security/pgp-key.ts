import { readFile } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import * as openpgp from 'openpgp';
import type { Sealer } from '../crypto/sealer.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import type { Logger } from '../logger.ts';

/** The `platform_keys` row of the security key, and the Sealer purpose of its private half. */
export const SECURITY_KEY_PURPOSE = 'security-pgp';

/**
 * The platform's OpenPGP key for security disclosure: its public half is served at /pgp-key.asc (researchers
 * encrypt reports to it, and check security.txt with it), its private half signs security.txt and is never
 * served, logged or stored in the clear.
 */
export interface SecurityKey {
  /** Upper-case hex, as `gpg --fingerprint` prints it without spaces. */
  fingerprint: string;
  /** The armored public key: public key packets only. */
  armoredPublicKey: string;
  /** The decrypted private key; null when it could not be opened (the error was logged), so nothing is signed. */
  signingKey: openpgp.PrivateKey | null;
}

export interface SecurityKeyOptions {
  orm: Orm;
  /** Seals the generated private key with the server secret (purpose `security-pgp`). */
  sealer: Sealer;
  /** SECURITY_PGP_KEY_FILE: an armored private key to use instead of a generated one. */
  keyFile?: string | undefined;
  /** The user id's address of a generated key: 'Exploit Grid Security <securityEmail>'. */
  securityEmail: string;
  logger: Logger;
}

/**
 * The security key: from SECURITY_PGP_KEY_FILE when set (it must be unprotected and able to sign), else the
 * one kept in `platform_keys`, generated on the first start (Ed25519 for signatures, Curve25519 for
 * encryption). Replicas that start together each offer a key and all keep the one that was stored first.
 */
export async function loadSecurityKey(options: SecurityKeyOptions): Promise<SecurityKey> {
  const log = options.logger.child({ component: 'security-key' });
  if (options.keyFile) return fromFile(options.keyFile);

  const sql = new Sql(options.orm.em.fork() as EntityManager);
  let row = await storedKey(sql);
  if (!row) {
    const generated = await openpgp.generateKey({
      type: 'ecc',
      curve: 'curve25519Legacy',
      userIDs: [{ name: 'Exploit Grid Security', email: options.securityEmail }],
      format: 'object',
    });
    await sql.run(
      `insert into platform_keys (purpose, fingerprint, public_key, sealed_private_key) values (?, ?, ?, ?)
       on conflict (purpose) do nothing`,
      [
        SECURITY_KEY_PURPOSE,
        generated.privateKey.getFingerprint(),
        generated.publicKey.armor(),
        options.sealer.seal(generated.privateKey.armor()),
      ],
    );
    row = (await storedKey(sql))!;
    if (row.fingerprint === generated.privateKey.getFingerprint())
      log.info({ fingerprint: row.fingerprint.toUpperCase() }, 'Generated the security OpenPGP key');
  }
  let signingKey: openpgp.PrivateKey | null;
  try {
    signingKey = await openpgp.readPrivateKey({ armoredKey: options.sealer.open(row.sealed_private_key) });
    if (signingKey.getFingerprint() !== row.fingerprint) throw new Error('the keys of the row do not match');
  } catch (err) {
    // The server secret changed (JWT_SECRET, or DATA_DIR's jwt.secret): the key stays published but cannot
    // sign. Not replaced on its own: replicas with different secrets would replace each other's key forever.
    log.error(
      { err: { message: (err as Error).message }, fingerprint: row.fingerprint.toUpperCase() },
      'Could not open the security OpenPGP key: security.txt is served unsigned. Restore the server secret, ' +
        "or delete the platform_keys row 'security-pgp' to have a new key generated at the next start " +
        '(docs/security-disclosure.md)',
    );
    signingKey = null;
  }
  return {
    fingerprint: row.fingerprint.toUpperCase(),
    armoredPublicKey: publicOnly(await openpgp.readKey({ armoredKey: row.public_key })),
    signingKey,
  };
}

async function storedKey(sql: Sql) {
  return sql.one<{ fingerprint: string; public_key: string; sealed_private_key: string }>(
    'select fingerprint, public_key, sealed_private_key from platform_keys where purpose = ?',
    [SECURITY_KEY_PURPOSE],
  );
}

/** SECURITY_PGP_KEY_FILE's key; a key that cannot be used stops the start with a sentence saying why. */
async function fromFile(file: string): Promise<SecurityKey> {
  let armored: string;
  try {
    armored = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`SECURITY_PGP_KEY_FILE ${file} cannot be read: ${(err as NodeJS.ErrnoException).code}`, {
      cause: err,
    });
  }
  let key: openpgp.PrivateKey;
  try {
    key = await openpgp.readPrivateKey({ armoredKey: armored });
  } catch {
    throw new Error(`SECURITY_PGP_KEY_FILE ${file} is not an armored OpenPGP private key`);
  }
  if (!key.isDecrypted())
    throw new Error(
      `SECURITY_PGP_KEY_FILE ${file} is protected by a passphrase: export it without one (gpg --export-secret-keys --armor, then remove the passphrase) and keep the file readable by the API's user only`,
    );
  try {
    await key.getSigningKey();
  } catch {
    throw new Error(
      `SECURITY_PGP_KEY_FILE ${file} holds no key that can sign (security.txt is signed with it)`,
    );
  }
  return {
    fingerprint: key.getFingerprint().toUpperCase(),
    armoredPublicKey: publicOnly(key),
    signingKey: key,
  };
}

/** The armored public key, checked to hold no secret key packet whatever it was made from. */
function publicOnly(key: openpgp.Key): string {
  const armored = key.toPublic().armor();
  if (/PRIVATE KEY/.test(armored)) throw new Error('the public key would hold private material');
  return armored;
}
