/**
 * What the box agent reads from /proc (Linux): processes, their sockets and sessions, and the
 * network peer a process works for. Written for the box's own Node (Debian's `nodejs`), so it
 * uses nothing newer than Node 18 and no dependencies.
 */
import { readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';

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
  /** OTHER: closing (FIN_WAIT, CLOSE_WAIT, LAST_ACK, ...) or opening (SYN_SENT, SYN_RECV). */
  state: 'ESTABLISHED' | 'LISTEN' | 'TIME_WAIT' | 'OTHER';
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

/**
 * The parent and start time of a process (one small read), or null when it is gone: a zombie
 * (ended, not yet reaped by its parent) runs nothing and counts as gone.
 */
export function readStat(pid: number, proc = '/proc'): { ppid: number; startTicks: number } | null {
  const stat = read(`${proc}/${pid}/stat`);
  if (!stat) return null;
  // Fields after the command name, which may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') return null;
  return { ppid: Number(fields[1]), startTicks: Number(fields[19]) };
}

/** One process, or null when it is gone (or not readable). */
export function readProcess(pid: number, proc = '/proc'): ProcInfo | null {
  const stat = read(`${proc}/${pid}/stat`);
  const status = read(`${proc}/${pid}/status`);
  if (!stat || !status) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') return null;
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

const TCP_STATES: Record<string, TcpConnection['state']> = {
  '01': 'ESTABLISHED',
  '0A': 'LISTEN',
  '06': 'TIME_WAIT',
};

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

/**
 * Every TCP socket of the network namespace `pid` lives in, those no process holds any more too
 * (closing ones with data still queued, TIME_WAIT: their inode is 0).
 */
export function tcpEntries(pid: number, proc = '/proc'): (TcpConnection & { inode: string })[] {
  const entries: (TcpConnection & { inode: string })[] = [];
  for (const file of ['tcp', 'tcp6']) {
    const text = read(`${proc}/${pid}/net/${file}`);
    if (!text) continue;
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const [localHex, localPortHex] = f[1]!.split(':');
      const [remoteHex, remotePortHex] = f[2]!.split(':');
      entries.push({
        inode: f[9]!,
        local: hexAddress(localHex!),
        localPort: parseInt(localPortHex!, 16),
        remote: hexAddress(remoteHex!),
        remotePort: parseInt(remotePortHex!, 16),
        state: TCP_STATES[f[3]!] ?? 'OTHER',
      });
    }
  }
  return entries;
}

/** The TCP sockets of the network namespace `pid` lives in that a process holds, by inode. */
export function tcpTable(pid: number, proc = '/proc'): Map<string, TcpConnection> {
  const table = new Map<string, TcpConnection>();
  for (const { inode, ...connection } of tcpEntries(pid, proc))
    if (inode !== '0') table.set(inode, connection);
  return table;
}

/** The network namespace a process lives in (`net:[inode]`), or null when it is gone. */
export function netnsOf(pid: number, proc = '/proc'): string | null {
  try {
    return readlinkSync(`${proc}/${pid}/ns/net`);
  } catch {
    return null;
  }
}

/**
 * The program a process runs: the device and inode of its executable (what the kernel's `exe`
 * link names; a program replaced on disk keeps its old identity) and that file's mode, or null
 * when the process is gone.
 */
export function programOf(pid: number, proc = '/proc'): { id: bigint; mode: number } | null {
  try {
    const stat = statSync(`${proc}/${pid}/exe`, { bigint: true });
    return { id: (stat.dev << 32n) | (stat.ino & 0xffffffffn), mode: Number(stat.mode) };
  } catch {
    return null;
  }
}

/**
 * The TCP connections a process holds in a state (its own sockets, from the table of its
 * network namespace). `tables` caches tables by namespace for one look at many processes.
 */
export function heldConnections(
  pid: number,
  state: TcpConnection['state'],
  options: { proc?: string; tables?: Map<string, Map<string, TcpConnection>> } = {},
): TcpConnection[] {
  const proc = options.proc ?? '/proc';
  const inodes = socketInodes(pid, proc);
  if (inodes.size === 0) return [];
  const namespace = netnsOf(pid, proc);
  let table = namespace ? options.tables?.get(namespace) : undefined;
  // A cached table without one of these sockets predates it (or the inode is a UNIX socket's).
  if (table && [...inodes].some((inode) => !table!.has(inode))) table = undefined;
  if (!table) {
    table = tcpTable(pid, proc);
    if (namespace) options.tables?.set(namespace, table);
  }
  const held: TcpConnection[] = [];
  for (const inode of inodes) {
    const connection = table.get(inode);
    if (connection?.state === state) held.push(connection);
  }
  return held;
}

/** Whether a process holds a TCP socket listening on `port` (a daemon accepting connections there). */
export function listensOn(pid: number, port: number, proc = '/proc'): boolean {
  return heldConnections(pid, 'LISTEN', { proc }).some((c) => c.localPort === port);
}

export const LOOPBACK = /^(127\.|::1$|0\.0\.0\.0$|::$)/;
