import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.ts';
import { run } from '../../command.ts';

/**
 * IPv4 forwarding on the host, shared by every local runtime on it (a `make run` and test runs).
 *
 * The VPN ingress DNATs players' packets to a router namespace, so the host must forward them.
 * Linux decides that per incoming interface, and players arrive on any interface, current or
 * future: forwarding has to be on for all of them. When the host did not forward before, the
 * first runtime turns it on only behind a guard (a forward chain of its own that drops
 * everything but DNATed traffic to and from the runtimes' transit links, and what interfaces
 * that forwarded on their own already pass), so nothing else becomes forwarded; the last
 * runtime to go restores what was there. A host that forwarded already is left as it was.
 */
const DIR = '/run/exploit-grid/forwarding';
const LOCK = `${DIR}.lock`;
/** Present while forwarding is on because of us: what to restore. */
const BEFORE = path.join(DIR, 'before.json');
const USERS = path.join(DIR, 'users');
const GUARD = 'exploit-grid-forwarding';
const CONF = '/proc/sys/net/ipv4/conf';

interface Before {
  /** Entries of net.ipv4.conf (interfaces, `default`) that forwarded while `all` did not. */
  forwarding: string[];
  /** net.ipv4.conf.all.accept_redirects, which the kernel flips with forwarding. */
  acceptRedirects: string;
}

/** Lets the runtime `user` (its prefix) forward DNATed VPN traffic through its transit link. */
export async function acquireForwarding(user: string, transit: string, logger: Logger): Promise<void> {
  await locked(async () => {
    await mkdir(USERS, { recursive: true, mode: 0o700 });
    await writeFile(path.join(USERS, user), transit);
    await forgetGone(user, logger);
    const on = (await readSetting('all', 'forwarding')) === '1';
    if (on && !existsSync(BEFORE)) {
      logger.info(
        'IPv4 forwarding was already on; the host firewall must let forwarded VPN traffic through (docs/boxes.md)',
      );
      return;
    }
    if (!on) {
      const forwarding: string[] = [];
      for (const entry of await readdir(CONF))
        if (entry !== 'all' && (await readSetting(entry, 'forwarding')) === '1') forwarding.push(entry);
      const before: Before = { forwarding, acceptRedirects: await readSetting('all', 'accept_redirects') };
      await writeFile(BEFORE, JSON.stringify(before));
      // The guard first: there must be no moment where the host forwards anything else.
      await loadGuard(before);
      await fillGuard();
      await writeSetting('all', 'forwarding', '1');
      logger.warn(
        { guard: `ip ${GUARD}` },
        'Turned on IPv4 forwarding for the VPN ingress; only DNATed VPN traffic is forwarded',
      );
      return;
    }
    await fillGuard();
  });
}

/** Withdraws `user`; the last runtime restores the host's forwarding as it was before the first. */
export async function releaseForwarding(user: string, logger: Logger): Promise<void> {
  await locked(async () => {
    await rm(path.join(USERS, user), { force: true });
    await forgetGone(user, logger);
    const others = (await readdir(USERS).catch(() => [])).length;
    if (!existsSync(BEFORE)) {
      if (!others) await rm(DIR, { recursive: true, force: true });
      return;
    }
    if (others) {
      await fillGuard();
      return;
    }
    const before = JSON.parse(await readFile(BEFORE, 'utf8')) as Before;
    // Writing `all` sets every interface and `default`; then the ones that forwarded by themselves.
    await writeSetting('all', 'forwarding', '0');
    for (const entry of before.forwarding)
      if (existsSync(path.join(CONF, entry))) await writeSetting(entry, 'forwarding', '1');
    await writeSetting('all', 'accept_redirects', before.acceptRedirects);
    await run('nft', ['delete', 'table', 'ip', GUARD]).catch(() => undefined);
    await rm(DIR, { recursive: true, force: true });
    logger.info('Turned IPv4 forwarding off again, as the host had it');
  });
}

/**
 * Forgets the runtimes (but `self`) whose transit link is gone from the host: a runtime killed before it
 * could withdraw, whose network was taken down since, needs no forwarding, and must not keep the host
 * forwarding for ever.
 */
async function forgetGone(self: string, logger: Logger): Promise<void> {
  for (const user of await readdir(USERS).catch(() => [])) {
    if (user === self) continue;
    const transit = (await readFile(path.join(USERS, user), 'utf8').catch(() => '')).trim();
    if (transit && existsSync(path.join('/sys/class/net', transit))) continue;
    await rm(path.join(USERS, user), { force: true });
    logger.warn(
      { runtime: user, transit },
      'Forgot a runtime whose transit link is gone (it never withdrew)',
    );
  }
}

async function loadGuard(before: Before): Promise<void> {
  const devices = before.forwarding.filter((d) => d !== 'default');
  await run('nft', ['-f', '-'], {
    input: `
add table ip ${GUARD}
delete table ip ${GUARD}
table ip ${GUARD} {
  set transits {
    type ifname
  }
  chain forward {
    type filter hook forward priority filter - 10; policy drop;
    iifname @transits ct status dnat accept
    oifname @transits ct status dnat accept
${devices.length ? `    iifname { ${devices.map((d) => `"${d}"`).join(', ')} } accept\n` : ''}  }
}
`,
  });
}

/** The guard lets through the transit links of every runtime that uses it. */
async function fillGuard(): Promise<void> {
  const transits: string[] = [];
  for (const user of await readdir(USERS).catch(() => []))
    transits.push((await readFile(path.join(USERS, user), 'utf8')).trim());
  await run('nft', ['-f', '-'], {
    input:
      `flush set ip ${GUARD} transits\n` +
      (transits.length
        ? `add element ip ${GUARD} transits { ${transits.map((t) => `"${t}"`).join(', ')} }\n`
        : ''),
  });
}

const readSetting = async (entry: string, name: string) =>
  (await readFile(path.join(CONF, entry, name), 'utf8')).trim();
const writeSetting = (entry: string, name: string, value: string) =>
  writeFile(path.join(CONF, entry, name), value);

/** One runtime at a time (a lock directory; one left by a killed process is taken after 30 s). */
async function locked<T>(fn: () => Promise<T>): Promise<T> {
  await mkdir(path.dirname(LOCK), { recursive: true, mode: 0o711 });
  for (let attempt = 0; ; attempt++) {
    try {
      await mkdir(LOCK);
      break;
    } catch {
      const age = Date.now() - ((await stat(LOCK).catch(() => null))?.mtimeMs ?? Date.now());
      if (age > 30_000) await rmdir(LOCK).catch(() => undefined);
      else if (attempt > 400) throw new Error(`${LOCK} is held by another runtime`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    return await fn();
  } finally {
    await rmdir(LOCK).catch(() => undefined);
  }
}
