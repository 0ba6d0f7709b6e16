import { expect } from 'chai';
import { HttpError } from '../http/errors.ts';
import { PasswordHasher } from './passwords.ts';

describe('password hashing', () => {
  const cheap = { memoryKiB: 8192, timeCost: 1 };

  it('produces argon2id hashes that verify only the right password', async () => {
    const hasher = new PasswordHasher({ ...cheap, concurrency: 2 });
    const hash = await hasher.hash('correct horse');
    expect(hash).to.match(/^\$argon2id\$v=19\$/);
    expect(hash).to.include('m=8192').and.include('t=1').and.include('p=1');
    expect(await hasher.verify(hash, 'correct horse')).to.equal(true);
    expect(await hasher.verify(hash, 'wrong horse')).to.equal(false);
  });

  it('answers false without a hash, after doing the same work', async () => {
    const hasher = new PasswordHasher({ ...cheap, concurrency: 1 });
    expect(await hasher.verify(null, 'anything')).to.equal(false);
  });

  it('refuses with 503 and Retry-After instead of queueing without end', async () => {
    const hasher = new PasswordHasher({ ...cheap, concurrency: 1, maxQueue: 2 });
    // Two wait their turn; the third finds the queue full.
    const running = [hasher.hash('a'), hasher.hash('b')];
    let refused: unknown;
    try {
      await hasher.hash('c');
    } catch (err) {
      refused = err;
    }
    expect(refused).to.be.instanceOf(HttpError);
    expect((refused as HttpError).statusCode).to.equal(503);
    expect((refused as HttpError).headers['Retry-After']).to.equal('5');
    await Promise.all(running);
    // Once the queue drains, hashing works again.
    expect(await hasher.hash('e')).to.match(/^\$argon2id\$/);
  });

  it('uses the production cost by default (64 MiB, 3 passes)', async () => {
    const { loadConfig } = await import('../config.ts');
    expect(loadConfig({}).argon2).to.deep.equal({ memoryKiB: 65536, timeCost: 3 });
  });
});

describe('throttle keys', () => {
  it('counts IPv4 as is, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64', async () => {
    const { clientKey } = await import('./throttle.ts');
    expect(clientKey('203.0.113.7')).to.equal('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).to.equal('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).to.equal('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::1')).to.equal(clientKey('2001:0db8:0001:0002:ffff::9'));
    expect(clientKey('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(clientKey('2001:db8:1:3::1')).not.to.equal(clientKey('2001:db8:1:2::1'));
  });
});
