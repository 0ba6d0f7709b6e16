/** IPv4 arithmetic for the arena and VPN subnets (config is validated as /8–/24 networks). */

export interface Ipv4Network {
  /** Network address as an unsigned 32-bit number. */
  base: number;
  prefix: number;
}

export function parseIpv4(address: string): number {
  const parts = address.split('.');
  if (parts.length !== 4) throw new RangeError(`not an IPv4 address: ${address}`);
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255)
      throw new RangeError(`not an IPv4 address: ${address}`);
    value = value * 256 + Number(part);
  }
  return value;
}

export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

export function parseNetwork(cidr: string): Ipv4Network {
  const [address, prefixText] = cidr.split('/');
  const prefix = Number(prefixText);
  if (!address || !Number.isInteger(prefix) || prefix < 8 || prefix > 30)
    throw new RangeError(`not an IPv4 network (a.b.c.d/8 to /30): ${cidr}`);
  const size = 2 ** (32 - prefix);
  const base = parseIpv4(address);
  if (base % size !== 0) throw new RangeError(`${cidr} has host bits set`);
  return { base, prefix };
}

export const networkSize = (net: Ipv4Network) => 2 ** (32 - net.prefix);
export const netmask = (net: Ipv4Network) => formatIpv4(2 ** 32 - networkSize(net));
export const hostAddress = (net: Ipv4Network, index: number) => {
  if (index < 1 || index >= networkSize(net) - 1)
    throw new RangeError(`host ${index} is outside the network`);
  return formatIpv4(net.base + index);
};
export const contains = (net: Ipv4Network, address: string) => {
  const value = parseIpv4(address);
  return value >= net.base && value < net.base + networkSize(net);
};
export const formatNetwork = (net: Ipv4Network) => `${formatIpv4(net.base)}/${net.prefix}`;
