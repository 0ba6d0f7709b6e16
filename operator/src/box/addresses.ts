/**
 * Arena addresses for boxes: the first /24 of the arena subnet is the routers' (VPN server
 * pods), boxes get the rest, lowest free first. Pure: the caller passes the addresses in use.
 */
export interface ArenaSubnet {
  network: number;
  prefixLength: number;
}

export function parseSubnet(cidr: string): ArenaSubnet {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(cidr);
  const prefixLength = Number(match?.[2]);
  if (!match || prefixLength < 8 || prefixLength > 23) {
    throw new Error(`ARENA_SUBNET must be an IPv4 CIDR from /8 to /23 (got "${cidr}")`);
  }
  const network = toNumber(match[1]!);
  const mask = prefixLength === 0 ? 0 : (~0 << (32 - prefixLength)) >>> 0;
  if ((network & mask) >>> 0 !== network) throw new Error(`ARENA_SUBNET ${cidr} has host bits set`);
  return { network, prefixLength };
}

export function toNumber(address: string): number {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255)) {
    throw new Error(`not an IPv4 address: ${address}`);
  }
  return (((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0) as number;
}

export function toAddress(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** The lowest free box address (from the second /24 on, never the broadcast), or undefined when full. */
export function allocateBoxAddress(subnet: ArenaSubnet, inUse: Iterable<string>): string | undefined {
  const used = new Set<number>();
  for (const address of inUse) used.add(toNumber(address));
  const size = 2 ** (32 - subnet.prefixLength);
  for (let offset = 256; offset < size - 1; offset += 1) {
    const candidate = subnet.network + offset;
    if ((candidate & 255) === 0) continue; // .0 of each /24 stays unused, for readability
    if (!used.has(candidate)) return toAddress(candidate);
  }
  return undefined;
}

export function inSubnet(subnet: ArenaSubnet, address: string): boolean {
  const size = 2 ** (32 - subnet.prefixLength);
  const value = toNumber(address);
  return value >= subnet.network + 256 && value < subnet.network + size - 1;
}
