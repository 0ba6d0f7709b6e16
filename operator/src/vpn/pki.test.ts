import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { VpnPki, newSerial, newTlsCryptKey } from './pki.ts';

const run = promisify(execFile);

/** Checks the PKI with OpenSSL itself, as OpenVPN (linked against OpenSSL) will. */
describe('VPN PKI', () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(path.join(os.tmpdir(), 'eg-pki-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  const file = async (name: string, content: string) => {
    const p = path.join(dir, name);
    await writeFile(p, content);
    return p;
  };
  const openssl = async (...args: string[]) => {
    try {
      return (await run('openssl', args)).stdout;
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      return `FAILED ${e.stdout ?? ''} ${e.stderr ?? ''}`;
    }
  };

  it('makes an ECDSA P-256 CA that signs server and client certificates OpenSSL accepts for their purpose', async () => {
    const { pki, ca } = await VpnPki.create();
    const caFile = await file('ca.pem', ca.certificatePem);
    const server = await pki.issueServer('vpn-udp');
    const client = await pki.issueClient('user-4f2a');
    const serverFile = await file('server.pem', server.certificatePem);
    const clientFile = await file('client.pem', client.certificatePem);

    expect(await openssl('verify', '-CAfile', caFile, '-purpose', 'sslserver', serverFile)).to.include(
      ': OK',
    );
    expect(await openssl('verify', '-CAfile', caFile, '-purpose', 'sslclient', clientFile)).to.include(
      ': OK',
    );
    // A client certificate cannot pose as the server (remote-cert-tls server).
    expect(await openssl('verify', '-CAfile', caFile, '-purpose', 'sslserver', clientFile)).to.match(
      /FAILED|unsupported certificate purpose/,
    );

    const text = await openssl('x509', '-in', clientFile, '-noout', '-text');
    expect(text).to.include('ASN1 OID: prime256v1');
    expect(text).to.include('Subject: CN = user-4f2a');
    expect(text).to.include('TLS Web Client Authentication');
    // The private key matches the certificate.
    const keyFile = await file('client.key', client.privateKeyPem);
    const fromKey = await openssl('pkey', '-in', keyFile, '-pubout');
    const fromCert = await openssl('x509', '-in', clientFile, '-noout', '-pubkey');
    expect(fromKey).to.equal(fromCert);
  });

  it('revokes by serial number in a CRL signed by the CA', async () => {
    const { pki, ca } = await VpnPki.create();
    const caFile = await file('ca2.pem', ca.certificatePem);
    const kept = await pki.issueClient('kept');
    const revoked = await pki.issueClient('revoked');
    const crlFile = await file(
      'crl.pem',
      await pki.crl([{ serialNumber: revoked.serialNumber, revokedAt: new Date() }]),
    );
    const check = async (cert: string, name: string) =>
      openssl('verify', '-crl_check', '-CAfile', caFile, '-CRLfile', crlFile, await file(name, cert));
    expect(await check(kept.certificatePem, 'kept.pem')).to.include(': OK');
    expect(await check(revoked.certificatePem, 'revoked.pem')).to.match(/certificate revoked/);
  });

  it('makes serial numbers that read the same in the certificate, the CRL and the database', async () => {
    // DER (and so OpenSSL's output) drops a leading zero byte: a stored serial must never have one.
    const serials = Array.from({ length: 10_000 }, newSerial);
    expect(serials.filter((serial) => !/^[4-7][0-9a-f]{31}$/.test(serial))).to.deep.equal([]);
    expect(new Set(serials).size).to.equal(serials.length);
    const { pki } = await VpnPki.create();
    const client = await pki.issueClient('shown');
    const shown = await openssl(
      'x509',
      '-noout',
      '-serial',
      '-in',
      await file('shown.pem', client.certificatePem),
    );
    expect(shown.trim()).to.equal(`serial=${client.serialNumber.toUpperCase()}`);
  });

  it('loads a CA made earlier and keeps signing with it', async () => {
    const { ca } = await VpnPki.create('Reloaded CA');
    const again = await VpnPki.load(ca);
    const client = await again.issueClient('later');
    const out = await openssl(
      'verify',
      '-CAfile',
      await file('ca3.pem', ca.certificatePem),
      await file('later.pem', client.certificatePem),
    );
    expect(out).to.include(': OK');
  });

  it('refuses common names that could inject into configs or names', async () => {
    const { pki } = await VpnPki.create();
    for (const name of ['a,CN=admin', 'new\nline', '', 'x'.repeat(65), 'space name']) {
      let error: unknown;
      try {
        await pki.issueClient(name);
      } catch (err) {
        error = err;
      }
      expect(error, JSON.stringify(name)).to.be.instanceOf(RangeError);
    }
  });

  it('makes distinct 2048-bit tls-crypt keys in OpenVPN static key format', () => {
    const key = newTlsCryptKey();
    const lines = key.trim().split('\n');
    expect(lines[0]).to.equal('-----BEGIN OpenVPN Static key V1-----');
    expect(lines.at(-1)).to.equal('-----END OpenVPN Static key V1-----');
    expect(lines.slice(1, -1)).to.have.length(16);
    expect(lines.slice(1, -1).every((l) => /^[0-9a-f]{32}$/.test(l))).to.equal(true);
    expect(newTlsCryptKey()).not.to.equal(key);
  });
});
