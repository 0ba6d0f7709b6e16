import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { testLogger } from '../../testing/logger.ts';
import { acquireForwarding, releaseForwarding } from './forwarding.ts';

const execFileAsync = promisify(execFile);
const setting = async (name: string) =>
  (await readFile(`/proc/sys/net/ipv4/conf/all/${name}`, 'utf8')).trim();
const guard = () =>
  execFileAsync('nft', ['list', 'table', 'ip', 'exploit-grid-forwarding']).then(
    ({ stdout }) => stdout,
    () => null,
  );

/**
 * Host IPv4 forwarding shared by the runtimes of one host (needs root; skips otherwise). Runs
 * the real sysctls and nftables, so it must not run beside another runtime of this code.
 */
describe('IPv4 forwarding for the VPN ingress, shared by the runtimes of a host', function () {
  const tag = randomBytes(2).toString('hex');
  const [a, b] = [`egf${tag}a`, `egf${tag}b`];
  /** A runtime killed without withdrawing. */
  const killed = `egf${tag}k`;
  let original: { forwarding: string; acceptRedirects: string };

  before(async function () {
    if (process.getuid?.() !== 0 || existsSync('/run/exploit-grid/forwarding/users')) {
      if (process.env.REQUIRE_BOX_RUNTIME === '1' && process.getuid?.() !== 0)
        throw new Error('the forwarding test needs root');
      console.warn('\n  SKIPPED: needs root and no other runtime of this host holding forwarding\n');
      this.skip();
    }
    original = {
      forwarding: await setting('forwarding'),
      acceptRedirects: await setting('accept_redirects'),
    };
  });

  after(async () => {
    await releaseForwarding(a, testLogger).catch(() => undefined);
    await releaseForwarding(b, testLogger).catch(() => undefined);
    for (const link of [`${a}-tr0`, `${b}-tr0`, `${killed}-tr0`])
      await execFileAsync('ip', ['link', 'del', link]).catch(() => undefined);
  });

  /** The runtime's transit link, as its router makes it (a runtime whose link is gone is forgotten). */
  const transit = async (user: string) => {
    await execFileAsync('ip', ['link', 'add', `${user}-tr0`, 'type', 'veth', 'peer', 'name', `${user}-tp`]);
    return `${user}-tr0`;
  };

  it('turns forwarding on behind a guard that passes only DNATed traffic of the transit links, and the last runtime to go puts everything back', async () => {
    await acquireForwarding(a, await transit(a), testLogger);
    await acquireForwarding(b, await transit(b), testLogger);
    expect(await setting('forwarding')).to.equal('1');
    const rules = await guard();
    if (original.forwarding === '0') {
      // Nothing else becomes forwarded: everything but DNATed traffic of the transit links is dropped.
      expect(rules, 'the guard').to.be.a('string');
      expect(rules).to.include('policy drop');
      expect(rules).to.match(/iifname @transits ct status dnat accept/);
      expect(rules).to.match(/oifname @transits ct status dnat accept/);
      expect(rules).to.include(`"${a}-tr0"`).and.to.include(`"${b}-tr0"`);
    } else expect(rules, 'a guard on a host that forwarded already').to.equal(null);

    await releaseForwarding(a, testLogger);
    expect(await setting('forwarding'), 'while another runtime needs it').to.equal('1');
    if (original.forwarding === '0') expect(await guard()).to.not.include(`"${a}-tr0"`);

    // A runtime killed without withdrawing, whose network was taken down since, holds nothing.
    await acquireForwarding(killed, await transit(killed), testLogger);
    await execFileAsync('ip', ['link', 'del', `${killed}-tr0`]);
    await releaseForwarding(b, testLogger);
    expect(await setting('forwarding')).to.equal(original.forwarding);
    expect(await setting('accept_redirects')).to.equal(original.acceptRedirects);
    if (original.forwarding === '0') expect(await guard(), 'the guard after the last runtime').to.equal(null);
    expect(existsSync('/run/exploit-grid/forwarding'), 'its state').to.equal(false);
  });
});
