/**
 * What a box's TCP sockets tell the host, read from the box's own `/proc/<pid>/net/tcp{,6}` (its network
 * namespace's tables): the ports it listens on (shown on My Box) and who holds a connection to its ssh port
 * (the owner's first login on the dashboard's checklist). Pure parsing: the tables come as text.
 */

/** Listening TCP ports → service names we recognise. */
export const KNOWN_PORTS: Record<number, string> = {
  21: 'ftp',
  22: 'ssh',
  23: 'telnet',
  25: 'smtp',
  53: 'dns',
  80: 'http',
  110: 'pop3',
  143: 'imap',
  443: 'https',
  445: 'smb',
  3000: 'http',
  3306: 'mysql',
  5432: 'postgresql',
  6379: 'redis',
  8000: 'http',
  8080: 'http-alt',
  27017: 'mongodb',
};

export const SSH_PORT = 22;

/** Kernel TCP states (include/net/tcp_states.h) as /proc/net/tcp prints them. */
const LISTEN = '0A';
/**
 * States of a connection that never completed its handshake (SYN_SENT, SYN_RECV) or is already gone
 * (CLOSE): not a client of the box. Every other state (established, closing, TIME_WAIT) is one that was
 * established, so a short session that just ended still counts until the kernel forgets it.
 */
const NOT_CONNECTED = new Set(['02', '03', '07']);
const LOOPBACK_V4 = '0100007F';
const LOOPBACK_V6 = '00000000000000000000000001000000';
/** `::ffff:a.b.c.d` as /proc/net/tcp6 prints it: three words, then the IPv4 address's word. */
const V4_MAPPED = '0000000000000000FFFF0000';

/**
 * At most this many ssh peers are told (the owner's VPN address is among the first few of a box that is not
 * flooding itself). A box can fill its table with tens of thousands of peers; the host process that reads it
 * also admits every VPN client and feeds the referee, so the reading stays linear and its answer small.
 */
export const MAX_SSH_CLIENTS = 32;

export interface BoxSockets {
  openPorts: Record<string, string>;
  /** IPv4 peers of connections to the box's port 22, each once, in table order, loopback left out; at most 32. */
  sshClients: string[];
}

/** An IPv4 address from the kernel's hex (a little-endian word), `0100007F` → `127.0.0.1`. */
function ipv4(hex: string): string {
  const bytes = [6, 4, 2, 0].map((at) => parseInt(hex.slice(at, at + 2), 16));
  return bytes.join('.');
}

/** The IPv4 address of a table's address field (tcp: 8 hex digits; tcp6: a v4-mapped one), else null. */
function peerV4(hex: string): string | null {
  if (hex.length === 8) return ipv4(hex);
  if (hex.length === 32 && hex.toUpperCase().startsWith(V4_MAPPED)) return ipv4(hex.slice(24));
  return null;
}

/** Reads the tables (`/proc/<pid>/net/tcp` and `tcp6`, as text) of one box. */
export function parseBoxSockets(tables: string[]): BoxSockets {
  const openPorts: Record<string, string> = {};
  const sshClients = new Set<string>();
  for (const text of tables) {
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [localAddress, localPortHex] = (fields[1] ?? '').split(':');
      const [remoteAddress] = (fields[2] ?? '').split(':');
      const state = fields[3];
      if (!localAddress || !localPortHex || !remoteAddress || !state) continue;
      const port = parseInt(localPortHex, 16);
      if (state === LISTEN) {
        // Loopback-only listeners are not reachable from the VPN.
        if (localAddress === LOOPBACK_V4 || localAddress === LOOPBACK_V6) continue;
        openPorts[String(port)] = KNOWN_PORTS[port] ?? 'unknown';
      } else if (port === SSH_PORT && !NOT_CONNECTED.has(state) && sshClients.size < MAX_SSH_CLIENTS) {
        const peer = peerV4(remoteAddress);
        // The box talking to itself (all of 127/8 is the box's own) is nobody's login.
        if (peer && !peer.startsWith('127.') && peer !== '0.0.0.0') sshClients.add(peer);
      }
    }
  }
  return { openPorts, sshClients: [...sshClients] };
}
