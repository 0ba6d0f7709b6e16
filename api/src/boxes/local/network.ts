import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.ts';
import { formatNetwork, hostAddress, netmask, type Ipv4Network } from './addressing.ts';
import { CommandError, run } from '../../command.ts';
import { ARENA_MSS } from '@exploit-grid/operator/catalogue';

export interface RouterLayout {
  /** Names every host object of this runtime (network namespaces, host interface, machines). */
  prefix: string;
  arena: Ipv4Network;
  /** A /30 between the host and the router namespace; players' VPN packets come in over it. */
  transit: Ipv4Network;
  vpnUdp: Ipv4Network;
  vpnTcp: Ipv4Network;
  /** OpenVPN's port inside the router namespace (UDP and TCP). */
  vpnPort: number;
}

/** A box's place on the arena network. */
export interface BoxPort {
  /** The host-side veth of the box (systemd-nspawn's `vb-<machine>`), a port of the arena bridge. */
  interfaceName: string;
  address: string;
}

/** Who may talk to which box: a VPN address and a box address, until a time (attack windows) or forever. */
export interface AccessPair {
  vpnAddress: string;
  boxAddress: string;
  /** Epoch ms; null = no expiry (owner access). */
  until: number | null;
  /**
   * Whether the box may also open connections to the VPN address (an attacker's reverse shells
   * during an attack window). Otherwise the box only answers connections the player opened.
   */
  boxMayConnect: boolean;
}

export const BRIDGE = 'arena0';
export const TRANSIT = 'transit0';
export const TUN_UDP = 'tun-udp';
export const TUN_TCP = 'tun-tcp';
const TABLE = 'exploitgrid';
/** The router's routing table for what its OpenVPN servers send back to players. */
const REPLY_TABLE = '100';

/** Socket hash table sizes of each box's own namespace (see #ownSocketTables). */
export const BOX_SOCKET_TABLES = [
  ['net.ipv4.tcp_child_ehash_entries', 4096],
  ['net.ipv4.udp_child_hash_entries', 256],
] as const;

/**
 * The router network namespace of the local runtime: the arena bridge where boxes live, the
 * OpenVPN tun devices, and the nftables rules that decide who reaches what. The host gets one
 * veth (the transit link); the VPN ingress (ingress.ts) sends players' packets over it.
 */
export class RouterNetwork {
  readonly layout: RouterLayout;
  readonly namespace: string;
  readonly hostInterface: string;
  readonly #log: Logger;

  constructor(layout: RouterLayout, logger: Logger) {
    this.layout = layout;
    this.namespace = `${layout.prefix}-router`;
    this.hostInterface = `${layout.prefix}-tr0`;
    this.#log = logger.child({ component: 'router' });
  }

  get namespacePath(): string {
    return `/run/netns/${this.namespace}`;
  }
  get routerArenaAddress(): string {
    return hostAddress(this.layout.arena, 1);
  }
  get hostTransitAddress(): string {
    return hostAddress(this.layout.transit, 1);
  }

  /**
   * Boxes' namespaces are created from the router's (nspawn runs under `nsenter` into it), and a
   * namespace gets socket hash tables of its own only when its parent asks for them before it is
   * made. Without them every box's TCP sockets sit in the host's one table (262,144 buckets on a
   * 24 GiB host), and reading a box's `/proc/<pid>/net/tcp` (its open ports, the referee's view of
   * its connections) walks all of it, a millisecond or two a read, with the players' softirqs
   * contending for the same buckets. With them a read costs what the box's own sockets cost, and
   * a box churning connections fills its own table, not the host's.
   */
  async #ownSocketTables(): Promise<void> {
    for (const [key, value] of BOX_SOCKET_TABLES) {
      await run('ip', ['netns', 'exec', this.namespace, 'sysctl', '-q', '-w', `${key}=${value}`]).catch(
        (err: unknown) =>
          // Kernels before 6.1 (TCP) and 6.2 (UDP) share the host's tables with every namespace.
          this.#log.warn(
            { err, key },
            'Boxes share the host’s socket table (the kernel has no per-namespace one)',
          ),
      );
    }
  }

  get routerTransitAddress(): string {
    return hostAddress(this.layout.transit, 2);
  }

  /** Creates (or repairs) the namespace, bridge, transit link and base firewall. Idempotent. */
  async ensure(): Promise<void> {
    const { arena, transit } = this.layout;
    if (!existsSync(this.namespacePath)) {
      await run('ip', ['netns', 'add', this.namespace]);
      this.#log.info({ namespace: this.namespace }, 'Created the router network namespace');
    }
    const inRouter = (...args: string[]) => run('ip', ['-n', this.namespace, ...args]);
    await inRouter('link', 'set', 'lo', 'up');
    await run('ip', ['netns', 'exec', this.namespace, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
    await run('ip', [
      'netns',
      'exec',
      this.namespace,
      'sysctl',
      '-q',
      '-w',
      'net.ipv6.conf.all.disable_ipv6=1',
    ]);
    await this.#ownSocketTables();
    if (!(await this.#linkExists(BRIDGE))) await inRouter('link', 'add', BRIDGE, 'type', 'bridge');
    await inRouter('address', 'replace', `${this.routerArenaAddress}/${arena.prefix}`, 'dev', BRIDGE);
    await inRouter('link', 'set', BRIDGE, 'up');

    if (!(await this.#linkExists(TRANSIT))) {
      await run('ip', ['link', 'del', this.hostInterface]).catch(() => undefined);
      await run('ip', [
        'link',
        'add',
        this.hostInterface,
        'type',
        'veth',
        'peer',
        'name',
        TRANSIT,
        'netns',
        this.namespace,
      ]);
    }
    await run('ip', [
      'address',
      'replace',
      `${this.hostTransitAddress}/${transit.prefix}`,
      'dev',
      this.hostInterface,
    ]);
    await run('ip', ['link', 'set', this.hostInterface, 'up']);
    await inRouter('address', 'replace', `${this.routerTransitAddress}/${transit.prefix}`, 'dev', TRANSIT);
    await inRouter('link', 'set', TRANSIT, 'up');
    // Players keep their own addresses, so the OpenVPN servers (bound to the transit address)
    // answer them through the host. Only packets from that address have a route out: the router
    // has no default route, and boxes' packets find none.
    const rules = await inRouter('rule', 'show', 'from', this.routerTransitAddress, 'lookup', REPLY_TABLE);
    if (!rules.trim())
      await inRouter('rule', 'add', 'from', this.routerTransitAddress, 'lookup', REPLY_TABLE);
    await inRouter(
      'route',
      'replace',
      'default',
      'via',
      this.hostTransitAddress,
      'dev',
      TRANSIT,
      'table',
      REPLY_TABLE,
    );
    // The platform's service probes reach the arena over the transit link (and only those the
    // router lets through: see #loadBaseRules).
    await run('ip', [
      'route',
      'replace',
      formatNetwork(arena),
      'via',
      this.routerTransitAddress,
      'dev',
      this.hostInterface,
    ]);
    await this.#loadBaseRules();
  }

  async #linkExists(name: string): Promise<boolean> {
    try {
      await run('ip', ['-n', this.namespace, 'link', 'show', name]);
      return true;
    } catch (err) {
      if (err instanceof CommandError) return false;
      throw err;
    }
  }

  /** Runs nft inside the router namespace with a script on stdin (one atomic transaction). */
  async nft(script: string): Promise<void> {
    await run('ip', ['netns', 'exec', this.namespace, 'nft', '-f', '-'], { input: script });
  }

  /**
   * The whole firewall, replaced atomically. Sets are filled by `setAccess` and `setBoxPorts`.
   * - forward: VPN → box only for pairs in @access (owner always; attacker inside a window);
   *   box → VPN only as replies to those, or for pairs in @callbacks (an attacker inside a
   *   window: reverse shells), so a box rooted in a fight cannot go after its owner's computer
   *   later. Both sets are matched on every packet, so a pair removed cuts its open connections.
   *   Nothing else crosses (no box ↔ box, no VPN client ↔ VPN client, nothing to the host).
   * - input: the router itself answers only OpenVPN on the transit link; boxes reach nothing
   *   outside the arena (the referee watches them from the host: they report to no one).
   * - probes: the platform's service checks during attacks (probe.ts) come from the host over the transit
   *   link, from a source port registered with the box and port they may reach (@probes), and leave
   *   renamed to the attacker's VPN address they were registered with (@probe_as), so that the box
   *   sees them as the attacker's; its answers come back through connection tracking only.
   * - into the arena, every packet leaves with the same TTL and every SYN with at most ARENA_MSS and no
   *   timestamps, so that a box cannot tell the platform's checks from its attacker by any of them (Linux
   *   keys the timestamps' clock on the addresses before the renaming: the checks' would be one clock).
   * - bridge: a box may only use its own address (no spoofing of another box or the router).
   */
  async #loadBaseRules(): Promise<void> {
    const { vpnPort, vpnUdp, vpnTcp } = this.layout;
    const host = this.hostTransitAddress;
    const ruleset = `
add table inet ${TABLE}
delete table inet ${TABLE}
add table bridge ${TABLE}
delete table bridge ${TABLE}
table inet ${TABLE} {
  set access {
    type ipv4_addr . ipv4_addr
    flags timeout
  }
  set callbacks {
    type ipv4_addr . ipv4_addr
    flags timeout
  }
  set probes {
    type inet_service . ipv4_addr . inet_service
    flags timeout
  }
  map probe_as {
    type inet_service . ipv4_addr : ipv4_addr
    flags timeout
  }
  chain input {
    type filter hook input priority filter; policy drop;
    iif lo accept
    ct state established,related accept
    iifname "${TRANSIT}" udp dport ${vpnPort} accept
    iifname "${TRANSIT}" tcp dport ${vpnPort} accept
    iifname { "${TUN_UDP}", "${TUN_TCP}" } icmp type echo-request accept
  }
  chain forward {
    type filter hook forward priority filter; policy drop;
    oifname "${BRIDGE}" ip ttl set 64
    oifname "${BRIDGE}" tcp flags syn tcp option maxseg size > ${ARENA_MSS} tcp option maxseg size set ${ARENA_MSS}
    oifname "${BRIDGE}" tcp flags syn reset tcp option timestamp
    iifname { "${TUN_UDP}", "${TUN_TCP}" } oifname "${BRIDGE}" ip saddr . ip daddr @access accept
    iifname "${BRIDGE}" oifname { "${TUN_UDP}", "${TUN_TCP}" } ct direction reply ip daddr . ip saddr @access accept
    iifname "${BRIDGE}" oifname { "${TUN_UDP}", "${TUN_TCP}" } ip daddr . ip saddr @callbacks accept
    iifname "${TRANSIT}" oifname "${BRIDGE}" ip saddr ${host} tcp sport . ip daddr . tcp dport @probes accept
    iifname "${BRIDGE}" oifname "${TRANSIT}" ct direction reply ct status snat ip daddr ${host} accept
  }
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    oifname "${BRIDGE}" ip saddr ${host} snat ip to tcp sport . ip daddr map @probe_as
  }
}
table bridge ${TABLE} {
  set ports {
    type ifname . ipv4_addr
  }
  chain prerouting {
    type filter hook prerouting priority filter; policy accept;
    iifname != "vb-*" accept
    ether type ip6 drop
    ether type arp iifname . arp saddr ip != @ports drop
    ether type ip iifname . ip saddr != @ports drop
  }
  chain forward {
    type filter hook forward priority filter; policy accept;
    iifname "vb-*" oifname "vb-*" drop
  }
}
`;
    // Reloading empties the sets and so cuts every player until the loop refills them: an API
    // restart leaves rules that are already in force alone.
    const marker = `/run/exploit-grid/${this.layout.prefix}/ruleset.sha256`;
    const digest = createHash('sha256').update(ruleset).digest('hex');
    const loaded = await readFile(marker, 'utf8').catch(() => null);
    if (loaded === digest && (await this.#tableExists())) return;
    await this.nft(ruleset);
    await mkdir(path.dirname(marker), { recursive: true, mode: 0o711 });
    await writeFile(marker, digest);
    this.#log.debug(
      { udp: formatNetwork(vpnUdp), tcp: formatNetwork(vpnTcp), mask: netmask(vpnUdp) },
      'Router firewall loaded',
    );
  }

  async #tableExists(): Promise<boolean> {
    try {
      await run('ip', ['netns', 'exec', this.namespace, 'nft', 'list', 'set', 'inet', TABLE, 'access']);
      return true;
    } catch {
      return false;
    }
  }

  /** Replaces the set of VPN address ↔ box address pairs that may talk (atomically). */
  async setAccess(pairs: AccessPair[], now = Date.now()): Promise<void> {
    const live = pairs.filter((p) => p.until === null || p.until > now + 1000);
    const element = (p: AccessPair) => {
      const timeout = p.until === null ? '' : ` timeout ${Math.ceil((p.until - now) / 1000)}s`;
      return `${p.vpnAddress} . ${p.boxAddress}${timeout}`;
    };
    const fill = (set: string, elements: string[]) =>
      `flush set inet ${TABLE} ${set}\n` +
      (elements.length ? `add element inet ${TABLE} ${set} { ${elements.join(', ')} }\n` : '');
    await this.nft(
      fill('access', live.map(element)) + fill('callbacks', live.filter((p) => p.boxMayConnect).map(element)),
    );
  }

  /**
   * Lets one probe connection through for `seconds`: from the host's transit address and source port
   * `port` to `boxAddress`:`boxPort`, renamed to `speakingAs` on the arena (see #loadBaseRules).
   */
  async allowProbe(
    port: number,
    boxAddress: string,
    boxPort: number,
    speakingAs: string,
    seconds: number,
  ): Promise<void> {
    const key = `${port} . ${boxAddress}`;
    // add, delete, add: replaces an element a probe before this one left on the same port.
    await this.nft(
      [
        `add element inet ${TABLE} probes { ${key} . ${boxPort} timeout ${seconds}s }`,
        `add element inet ${TABLE} probe_as { ${key} timeout ${seconds}s : ${speakingAs} }`,
        `delete element inet ${TABLE} probe_as { ${key} }`,
        `add element inet ${TABLE} probe_as { ${key} timeout ${seconds}s : ${speakingAs} }`,
        '',
      ].join('\n'),
    );
  }

  /** Replaces the bridge ports' allowed source addresses and isolates each box port. */
  async setBoxPorts(ports: BoxPort[]): Promise<void> {
    const elements = ports.map((p) => `"${p.interfaceName}" . ${p.address}`);
    await this.nft(
      `flush set bridge ${TABLE} ports\n` +
        (elements.length ? `add element bridge ${TABLE} ports { ${elements.join(', ')} }\n` : ''),
    );
  }

  /**
   * Forgets what the router learnt of `address`'s link-layer neighbour: a box that was not there a moment ago
   * (a spare just made a box, whose future owner may have tried it before) answers at the first try.
   */
  async forgetNeighbour(address: string): Promise<void> {
    await run('ip', ['-n', this.namespace, 'neigh', 'flush', 'to', address]).catch(() => undefined);
  }

  /** Marks a bridge port isolated: it can only talk to the bridge itself (the router), never to another box. */
  async isolatePort(interfaceName: string): Promise<void> {
    await run('ip', [
      'netns',
      'exec',
      this.namespace,
      'bridge',
      'link',
      'set',
      'dev',
      interfaceName,
      'isolated',
      'on',
    ]);
  }

  /** The box ports and addresses in force, as nft lists them (tests and diagnostics). */
  async listPorts(): Promise<string> {
    return run('ip', ['netns', 'exec', this.namespace, 'nft', 'list', 'set', 'bridge', TABLE, 'ports']);
  }

  /** The access pairs in force, as nft lists them (tests and diagnostics). */
  async listAccess(): Promise<string> {
    return run('ip', ['netns', 'exec', this.namespace, 'nft', 'list', 'set', 'inet', TABLE, 'access']);
  }

  /** The pairs whose box may open connections to the player (attack windows), as nft lists them. */
  async listCallbacks(): Promise<string> {
    return run('ip', ['netns', 'exec', this.namespace, 'nft', 'list', 'set', 'inet', TABLE, 'callbacks']);
  }

  /** Removes the namespace (bridge, tun devices, rules) and the host's transit link. */
  async destroy(): Promise<void> {
    await run('ip', ['link', 'del', this.hostInterface]).catch(() => undefined);
    if (existsSync(this.namespacePath)) await run('ip', ['netns', 'del', this.namespace]);
  }
}
