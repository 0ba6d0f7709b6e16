import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from '../../logger.ts';
import { freeTcpUdpPort } from '../../net.ts';
import { run } from '../../command.ts';
import { acquireForwarding, releaseForwarding } from './forwarding.ts';
import type { RouterNetwork } from './network.ts';

export interface VpnIngressOptions {
  /** `0.0.0.0`: every IPv4 address of the host, now and later; else one IPv4 address. */
  listenHost: string;
  /** Host ports players connect to; 0 picks a free one (kept while the ingress stands). */
  udpPort: number;
  tcpPort: number;
  /** OpenVPN's port in the router namespace (UDP and TCP). */
  routerPort: number;
  logger: Logger;
}

/**
 * Players' VPN packets into the router namespace, in the kernel: a host nftables table of this
 * runtime's own DNATs the VPN ports of the host's addresses to the OpenVPN servers on the router's
 * side of the transit link, and the host forwards them (forwarding.ts). Players' addresses are
 * not rewritten, so OpenVPN sees who connects; only clients on the host's loopback are
 * masqueraded, as the router cannot answer 127.0.0.1. No process of ours touches the packets,
 * and the rules survive API restarts like the VPN servers do (docs/boxes.md).
 */
export class VpnIngress {
  readonly #router: RouterNetwork;
  readonly #o: VpnIngressOptions;
  readonly #log: Logger;
  udpPort = 0;
  tcpPort = 0;

  constructor(router: RouterNetwork, options: VpnIngressOptions) {
    this.#router = router;
    this.#o = options;
    this.#log = options.logger.child({ component: 'vpn-ingress' });
  }

  get table(): string {
    return `${this.#router.layout.prefix}-ingress`;
  }

  get #portsFile(): string {
    return `/run/exploit-grid/${this.#router.layout.prefix}/ingress-ports.json`;
  }

  /** Loads (or repairs) the rules and forwarding. Idempotent. */
  async ensure(): Promise<void> {
    const { listenHost, routerPort } = this.#o;
    if (!net.isIPv4(listenHost))
      throw new Error(
        `VPN_LISTEN_HOST must be an IPv4 address (0.0.0.0 for every address), not ${listenHost}`,
      );
    await this.#ports();
    const transit = this.#router.hostInterface;
    const target = `${this.#router.routerTransitAddress}:${routerPort}`;
    // fib: whatever addresses the host has when a packet arrives, not the ones it had at start.
    const to = listenHost === '0.0.0.0' ? 'fib daddr type local' : `ip daddr ${listenHost}`;
    const dnat = [
      `${to} udp dport ${this.udpPort} dnat to ${target}`,
      `${to} tcp dport ${this.tcpPort} dnat to ${target}`,
    ].join('\n    ');
    await run('nft', ['-f', '-'], {
      input: `
add table ip ${this.table}
delete table ip ${this.table}
table ip ${this.table} {
  chain prerouting {
    type nat hook prerouting priority dstnat; policy accept;
    ${dnat}
  }
  chain output {
    type nat hook output priority -100; policy accept;
    ${dnat}
  }
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    oifname "${transit}" ip saddr 127.0.0.0/8 masquerade
  }
}
`,
    });
    // A loopback client's packets leave through the transit link before they are masqueraded.
    await writeFile(`/proc/sys/net/ipv4/conf/${transit}/route_localnet`, '1');
    await acquireForwarding(this.#router.layout.prefix, transit, this.#o.logger);
    this.#log.info(
      { host: listenHost, udp: this.udpPort, tcp: this.tcpPort, to: target },
      'VPN ingress loaded',
    );
  }

  /** The configured ports, or the free ones picked when this ingress was first loaded. */
  async #ports(): Promise<void> {
    const { udpPort, tcpPort } = this.#o;
    if (udpPort && tcpPort) {
      this.udpPort = udpPort;
      this.tcpPort = tcpPort;
      return;
    }
    const kept = existsSync(this.#portsFile)
      ? (JSON.parse(await readFile(this.#portsFile, 'utf8')) as { udp: number; tcp: number })
      : null;
    const free = kept ? null : await freeTcpUdpPort();
    this.udpPort = udpPort || kept?.udp || free!;
    this.tcpPort = tcpPort || kept?.tcp || free!;
    await mkdir(path.dirname(this.#portsFile), { recursive: true, mode: 0o711 });
    await writeFile(this.#portsFile, JSON.stringify({ udp: this.udpPort, tcp: this.tcpPort }));
  }

  /** Removes the rules and gives forwarding back. Safe to call when nothing was loaded. */
  async destroy(): Promise<void> {
    await run('nft', ['delete', 'table', 'ip', this.table]).catch(() => undefined);
    await releaseForwarding(this.#router.layout.prefix, this.#o.logger);
  }
}
