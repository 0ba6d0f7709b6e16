/**
 * What the box agent reads from /proc (Linux): processes, their sockets and sessions, and the
 * network peer a process works for. Written for the box's own Node (Debian's `nodejs`), so it
 * uses nothing newer than Node 18 and no dependencies.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  /** Real uid. */
  uid: number;
  /** Effective uid (0 for a root shell got through a set-user-ID binary, `bash -p`). */
  euid: number;
  /** Start time in clock ticks since boot: with the pid, names one process for good. */
  startTicks: number;
  command: string;
  cwd: string;
}

export interface TcpConnection {
  local: string;
  localPort: number;
  remote: string;
  remotePort: number;
  state: 'ESTABLISHED' | 'LISTEN' | 'OTHER';
}

const read = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/** Every pid in /proc now. */
export function listPids(proc = '/proc'): number[] {
  return readdirSync(proc)
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/** The parent and start time of a process (one small read), or null when it is gone. */
export function readStat(pid: number, proc = '/proc'): { ppid: number; startTicks: number } | null {
  const stat = read(`${proc}/${pid}/stat`);
  if (!stat) return null;
  // Fields after the command name, which may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), startTicks: Number(fields[19]) };
}

/** One process, or null when it is gone (or not readable). */
export function readProcess(pid: number, proc = '/proc'): ProcInfo | null {
  const stat = read(`${proc}/${pid}/stat`);
  const status = read(`${proc}/${pid}/status`);
  if (!stat || !status) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const uidLine = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
  const cmdline = read(`${proc}/${pid}/cmdline`) ?? '';
  const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  let cwd = '';
  try {
    cwd = readlinkSync(`${proc}/${pid}/cwd`);
  } catch {
    // exited, or a kernel thread
  }
  return {
    pid,
    ppid: Number(fields[1]),
    uid: uidLine ? Number(uidLine[1]) : -1,
    euid: uidLine ? Number(uidLine[2]) : -1,
    startTicks: Number(fields[19]),
    command: cmdline ? cmdline.replace(/\0+$/, '').split('\0').join(' ') : `[${comm}]`,
    cwd,
  };
}

/** Socket inodes a process holds open. */
export function socketInodes(pid: number, proc = '/proc'): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`${proc}/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const target = readlinkSync(`${proc}/${pid}/fd/${fd}`);
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match) inodes.add(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

const TCP_STATES: Record<string, TcpConnection['state']> = { '01': 'ESTABLISHED', '0A': 'LISTEN' };

function hexAddress(hex: string): string {
  if (hex.length === 8) {
    // IPv4, little-endian.
    return [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16)).join('.');
  }
  // IPv6 as four little-endian 32-bit words; an IPv4-mapped address comes back as IPv4.
  const bytes: number[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    for (let i = 6; i >= 0; i -= 2) bytes.push(parseInt(word.slice(i, i + 2), 16));
  }
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':');
}

/** The TCP sockets of the network namespace `pid` lives in, by inode. */
export function tcpTable(pid: number, proc = '/proc'): Map<string, TcpConnection> {
  const table = new Map<string, TcpConnection>();
  for (const file of ['tcp', 'tcp6']) {
    const text = read(`${proc}/${pid}/net/${file}`);
    if (!text) continue;
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const [localHex, localPortHex] = f[1]!.split(':');
      const [remoteHex, remotePortHex] = f[2]!.split(':');
      table.set(f[9]!, {
        local: hexAddress(localHex!),
        localPort: parseInt(localPortHex!, 16),
        remote: hexAddress(remoteHex!),
        remotePort: parseInt(remotePortHex!, 16),
        state: TCP_STATES[f[3]!] ?? 'OTHER',
      });
    }
  }
  return table;
}

/** The client address of an ssh session the process belongs to (its environment), or null. */
export function sshClient(pid: number, proc = '/proc'): string | null {
  const environ = read(`${proc}/${pid}/environ`);
  if (!environ) return null;
  const entry = environ.split('\0').find((e) => e.startsWith('SSH_CONNECTION='));
  return entry ? (entry.slice('SSH_CONNECTION='.length).split(' ')[0] ?? null) : null;
}

const LOOPBACK = /^(127\.|::1$|0\.0\.0\.0$|::$)/;

const tableReadAt = new WeakMap<Map<string, TcpConnection>, number>();

export interface PeerOptions {
  proc?: string;
  includeLoopback?: boolean;
  /** TCP tables already read, by network namespace (one read per namespace per scan). */
  tables?: Map<string, Map<string, TcpConnection>>;
}

/**
 * The network peer a process itself works for, without looking at its ancestors: the remote
 * address of an established TCP connection it holds, or the client of the ssh session in its
 * environment. Loopback is nobody's session. A process holding no socket costs one directory
 * read (no TCP table is read for it).
 */
export function ownPeer(pid: number, options: PeerOptions = {}): string | null {
  const proc = options.proc ?? '/proc';
  const inodes = socketInodes(pid, proc);
  if (inodes.size > 0) {
    let namespace = '';
    try {
      namespace = readlinkSync(`${proc}/${pid}/ns/net`);
    } catch {
      // gone, or not ours to read: read its table directly
    }
    let table = namespace ? options.tables?.get(namespace) : undefined;
    // A table read earlier may predate a socket: a missing inode (or a UNIX socket's, which is
    // in no TCP table) means read it again, unless it is only just read.
    if (table && Date.now() - (tableReadAt.get(table) ?? 0) > 20 && [...inodes].some((i) => !table!.has(i)))
      table = undefined;
    if (!table) {
      table = tcpTable(pid, proc);
      tableReadAt.set(table, Date.now());
      if (namespace) options.tables?.set(namespace, table);
    }
    for (const inode of inodes) {
      const connection = table.get(inode);
      if (connection?.state !== 'ESTABLISHED') continue;
      if (!options.includeLoopback && LOOPBACK.test(connection.remote)) continue;
      return connection.remote;
    }
  }
  const ssh = sshClient(pid, proc);
  if (ssh && (options.includeLoopback || !LOOPBACK.test(ssh))) return ssh;
  return null;
}

/**
 * The network peer a process works for: its own (see ownPeer) or its nearest ancestor's (a
 * reverse shell's commands, a web server's child). `known` answers for ancestors whose peer
 * is known already (the agent's last scan), ending the walk there.
 */
export function peerOf(
  pid: number,
  options: PeerOptions & { maxDepth?: number; known?: (pid: number) => string | null | undefined } = {},
): string | null {
  const proc = options.proc ?? '/proc';
  let current: number | null = pid;
  for (let depth = 0; current !== null && current > 1 && depth < (options.maxDepth ?? 32); depth++) {
    if (depth > 0) {
      const known = options.known?.(current);
      if (known !== undefined) return known;
    }
    const peer = ownPeer(current, options);
    if (peer) return peer;
    current = readStat(current, proc)?.ppid ?? null;
  }
  return null;
}
