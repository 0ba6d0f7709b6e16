// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A certificate with its private key, both PEM. */
export interface IssuedCertificate {
  certificatePem: string;
  privateKeyPem: string;
  /** Hexadecimal serial number (what a CRL lists). */
  serialNumber: string;
}

export interface RevokedSerial {
  serialNumber: string;
  revokedAt: Date;
}

async function newKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

async function importPrivateKey(pem: string): Promise<CryptoKey> {
  return webcrypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(pem), ALGORITHM, true, ['sign']);
}

/** A positive serial number of 16 bytes, hexadecimal, written as DER and OpenSSL write it (no leading 00). */
export function newSerial(): string {
  const bytes = randomBytes(16);
  // Positive (top bit clear) and without a leading zero byte (second bit set): DER drops leading zeros, and
  // the serial a certificate and a CRL show must be the same text as the one stored (126 random bits stay).
  bytes[0] = (bytes[0]! & 0x3f) | 0x40;
  return bytes.toString('hex');
}

/** Quotes a value for an X.500 name string (RFC 4514). */
const rdn = (value: string) => value.replace(/([,+"\\<>;=])/g, '\\$1');

/**
 * The VPN's certificate authority (ECDSA P-256), made in code: it signs the server
 * certificate, one client certificate per player and the revocation list.
 */
export class VpnPki {
  readonly caCertificatePem: string;
  readonly #ca: x509.X509Certificate;
  readonly #caKey: CryptoKey;

  private constructor(ca: x509.X509Certificate, caKey: CryptoKey) {
    this.#ca = ca;
    this.#caKey = caKey;
    this.caCertificatePem = ca.toString('pem');
  }

  /** A new CA valid for `years`. */
  static async create(
    name = 'Exploit Grid VPN CA',
    years = 10,
  ): Promise<{ pki: VpnPki; ca: IssuedCertificate }> {
    const keys = await newKeys();
    const serialNumber = newSerial();
    const ca = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber,
      name: `CN=${rdn(name)}`,
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter: new Date(Date.now() + years * 365 * DAY_MS),
      keys,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return {
      pki: new VpnPki(ca, keys.privateKey),
      ca: {
        certificatePem: ca.toString('pem'),
        privateKeyPem: await privateKeyPem(keys.privateKey),
        serialNumber,
      },
    };
  }

  /** Loads a CA made earlier. */
  static async load(ca: { certificatePem: string; privateKeyPem: string }): Promise<VpnPki> {
    return new VpnPki(new x509.X509Certificate(ca.certificatePem), await importPrivateKey(ca.privateKeyPem));
  }

  /** The OpenVPN server's certificate (serverAuth), so clients can insist on `remote-cert-tls server`. */
  issueServer(commonName: string, days = 825): Promise<IssuedCertificate> {
    return this.#issue(
      commonName,
      days,
      [x509.ExtendedKeyUsage.serverAuth],
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement,
    );
  }

  /** A player's client certificate (clientAuth); the common name identifies them to the server hooks. */
  issueClient(commonName: string, days = 365): Promise<IssuedCertificate> {
    return this.#issue(
      commonName,
      days,
      [x509.ExtendedKeyUsage.clientAuth],
      x509.KeyUsageFlags.digitalSignature,
    );
  }

  /** The revocation list OpenVPN checks (`crl-verify`), valid for `days`. */
  async crl(revoked: RevokedSerial[], days = 30): Promise<string> {
    const crl = await x509.X509CrlGenerator.create({
      issuer: this.#ca.subject,
      thisUpdate: new Date(Date.now() - 60_000),
      nextUpdate: new Date(Date.now() + days * DAY_MS),
      signingAlgorithm: SIGNING,
      signingKey: this.#caKey,
      extensions: [await x509.AuthorityKeyIdentifierExtension.create(this.#ca.publicKey)],
      entries: revoked.map((r) => ({
        serialNumber: r.serialNumber,
        revocationDate: r.revokedAt,
        reason: x509.X509CrlReason.cessationOfOperation,
      })),
    });
    // OpenSSL (and so OpenVPN's crl-verify) reads only the "X509 CRL" PEM label.
    return x509.PemConverter.encode(crl.rawData, 'X509 CRL');
  }

  async #issue(
    commonName: string,
    days: number,
    usages: x509.ExtendedKeyUsage[],
    keyUsage: number,
  ): Promise<IssuedCertificate> {
    if (!/^[A-Za-z0-9_.:@-]{1,64}$/.test(commonName))
      throw new RangeError(`unsafe common name: ${commonName}`);
    const keys = await newKeys();
    const serialNumber = newSerial();
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber,
      subject: `CN=${rdn(commonName)}`,
      issuer: this.#ca.subject,
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + days * DAY_MS),
      publicKey: keys.publicKey,
      signingKey: this.#caKey,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(keyUsage, true),
        new x509.ExtendedKeyUsageExtension(usages, false),
        await x509.AuthorityKeyIdentifierExtension.create(this.#ca.publicKey),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return {
      certificatePem: certificate.toString('pem'),
      privateKeyPem: await privateKeyPem(keys.privateKey),
      serialNumber,
    };
  }
}

/**
 * An OpenVPN static key (2048 bits) for `tls-crypt`: control-channel packets are
 * encrypted and authenticated, so the server answers nobody who lacks it.
 */
export function newTlsCryptKey(): string {
  const hex = randomBytes(256).toString('hex');
  const lines = hex.match(/.{32}/g)!;
  return ['-----BEGIN OpenVPN Static key V1-----', ...lines, '-----END OpenVPN Static key V1-----', ''].join(
    '\n',
  );
}

/**
 * The channel settings that go with these keys (ECDSA P-256, no DH), for every OpenVPN server
 * of the platform (the local runtime's and the VPN pools'); the clients' .ovpn files carry the
 * same `tls-version-min` and `data-ciphers`.
 */
export const OPENVPN_SERVER_TLS: readonly string[] = [
  'dh none',
  'ecdh-curve prime256v1',
  'tls-version-min 1.2',
  'data-ciphers AES-256-GCM:AES-128-GCM:CHACHA20-POLY1305',
  'remote-cert-tls client',
  'disable-dco',
];
