/**
 * What the kernel tells the referee about the processes of boxes, through bpftrace (Debian's
 * `bpftrace`, eBPF on tracepoints): every program start with the credentials, ancestry, working
 * directory and command line the kernel has at that moment, every fork, and every TCP
 * connection of the arena that opens or closes. Nothing here runs inside a box, so box root
 * can neither see nor stop it (docs/detection.md).
 *
 * The script prints lines; user-controlled bytes (arguments, directory names) only ever as hex
 * (`%rx`), so no command line can break a line or forge one. bpftrace 0.17 (Debian bookworm)
 * builds each printf on a 512-byte BPF stack, so an exec event is several lines sharing its
 * key (time and pid), ended by `Z`; lines of one event come from one CPU, in order.
 */

import type { ExecFacts, ForkFacts } from '@exploit-grid/operator/judge';

/** Box processes run as host uids from here up (Machine.uidBase: 65536 × (4096 + slot)). */
export const BOX_UID_MIN = 65536 * 4096;
/** Bytes of a command line the kernel event carries (the rest is read from /proc when the process lives). */
export const TRACE_ARGV_BYTES = 512;
const ARGV_CHUNK = 64;
/** Steps (directory levels and mount crossings) of the working directory the event carries. */
const CWD_STEPS = 24;
/** Ancestors listed with each exec. */
const CHAIN_DEPTH = 24;

export interface TraceScriptOptions {
  /**
   * Networks whose TCP connections matter (the VPN client subnets, and the arena: a box that NATs
   * its peers' addresses away keeps its own), as [base, prefix].
   */
  networks: { base: number; prefix: number }[];
  /**
   * The host's network namespace (its inode): connections in every other one are traced whatever
   * their addresses (a box's NAT or local proxy hides players behind addresses of its own).
   */
  hostNetns?: number;
}

/** The bpftrace program the referee runs on the host. */
export function traceScript(options: TraceScriptOptions): string {
  const addr = (field: string) =>
    `((${field}[0] << 24) | (${field}[1] << 16) | (${field}[2] << 8) | ${field}[3])`;
  const inNetworks = (field: string) =>
    options.networks
      .map(({ base, prefix }) => {
        const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
        return `((${addr(field)} & ${mask}) == ${base >>> 0})`;
      })
      .join(' || ') || '0';
  const boxes = `uid >= ${BOX_UID_MIN}`;
  return `// Exploit Grid referee: program starts, forks and arena TCP connections of box processes.
tracepoint:syscalls:sys_enter_execve,tracepoint:syscalls:sys_enter_execveat
/ ${boxes} /
{
  $f = curtask->mm->exe_file;
  @prev[tid] = ($f->f_inode->i_sb->s_dev << 32) | ($f->f_inode->i_ino & 0xffffffff);
}

// A failed execve leaves no exec event: its entry goes here (a full map would hide every later one).
tracepoint:syscalls:sys_exit_execve,tracepoint:syscalls:sys_exit_execveat
/ ${boxes} /
{
  delete(@prev[tid]);
}

tracepoint:sched:sched_process_exec
/ ${boxes} /
{
  $t = curtask;
  $n = nsecs;
  $c = $t->cred;
  $f = $t->mm->exe_file;
  $a = $t->mm->arg_start;
  $e = $t->mm->arg_end;
  $pf = $t->real_parent->mm->exe_file;
  printf("X %llu %d %u %u %llu %llu %u %llu %llu %llu\\n", $n, pid, $c->uid.val, $c->euid.val, @prev[tid],
    ($f->f_inode->i_sb->s_dev << 32) | ($f->f_inode->i_ino & 0xffffffff), $f->f_inode->i_mode, $e - $a, cgroup,
    ($pf->f_inode->i_sb->s_dev << 32) | ($pf->f_inode->i_ino & 0xffffffff));
  delete(@prev[tid]);
  $p = $t->real_parent;
  $i = 0;
  while ($i < ${CHAIN_DEPTH} && $p->tgid > 0) {
    printf("P %llu %d %d\\n", $n, pid, $p->tgid);
    if ($p == $p->real_parent) { break; }
    $p = $p->real_parent;
    $i++;
  }
  $i = 0;
  while ($i < ${TRACE_ARGV_BYTES / ARGV_CHUNK} && $a < $e) {
    printf("A %llu %d %rx\\n", $n, pid, buf(uptr($a), ${ARGV_CHUNK}));
    $a = $a + ${ARGV_CHUNK};
    $i++;
  }
  // The working directory as d_path() walks it: up the dentries, across mounts (struct mount
  // holds its vfsmount 32 bytes in), to the process's root.
  $d = $t->fs->pwd.dentry;
  $m = (struct mount *)((uint64)$t->fs->pwd.mnt - 32);
  $rd = $t->fs->root.dentry;
  $rm = (struct mount *)((uint64)$t->fs->root.mnt - 32);
  $i = 0;
  while ($i < ${CWD_STEPS}) {
    if ($d == $rd && $m == $rm) { break; }
    if ($d == $m->mnt.mnt_root) {
      if ($m == $m->mnt_parent) { break; }
      $d = $m->mnt_mountpoint;
      $m = $m->mnt_parent;
    } else {
      printf("D %llu %d %u %rx\\n", $n, pid, $d->d_name.len, buf($d->d_name.name, 64));
      $d = $d->d_parent;
    }
    $i++;
  }
  printf("Z %llu %d\\n", $n, pid);
}

tracepoint:sched:sched_process_fork
/ ${boxes} /
{
  printf("F %llu %d %d\\n", nsecs, args->parent_pid, args->child_pid);
}

// IPv4, and IPv4 on a dual-stack socket (its v4 addresses are filled in too); with the socket's
// network namespace, so only the box's own connections count. Every connection outside the
// host's own namespace, and the host's with the arena's and the players' addresses.
tracepoint:sock:inet_sock_set_state
/ args->protocol == 6 && (args->family == 2 || args->family == 10) && (args->newstate == 1 || args->oldstate == 1) /
{
  $sk = (struct sock *)args->skaddr;
  $ns = $sk->__sk_common.skc_net.net->ns.inum;
  if (${options.hostNetns === undefined ? '0' : `$ns != ${options.hostNetns}`} || ${inNetworks('args->saddr')} || ${inNetworks('args->daddr')}) {
    printf("S %llu %d %d %d %d %rx %rx %u\\n", nsecs, args->oldstate, args->newstate, args->sport, args->dport,
      buf(args->saddr, 4), buf(args->daddr, 4), $ns);
  }
}
`;
}

export interface ExecEvent extends ExecFacts {
  kind: 'exec';
  /** CLOCK_MONOTONIC nanoseconds (bpftrace's nsecs). */
  ns: bigint;
  argv: string[];
  /** True when the command line was longer than the event carries. */
  argvTruncated: boolean;
  /** The cgroup (v2 id) the process ran in. */
  cgroup: bigint;
}

export interface ForkEvent extends ForkFacts {
  kind: 'fork';
}

/** An arena TCP connection became established (`open`) or left that state (`close`). */
export interface TcpEvent {
  kind: 'tcp';
  ns: bigint;
  change: 'open' | 'close';
  /** Source and destination as the kernel saw the packet's socket (either side may be the box). */
  source: string;
  sourcePort: number;
  destination: string;
  destinationPort: number;
  /** The socket's network namespace (inode number). */
  netns: number;
}

/** bpftrace could not keep up: its buffers overflowed and it dropped this many events. */
export interface LostEvent {
  kind: 'lost';
  count: number;
}

export type TraceEvent = ExecEvent | ForkEvent | TcpEvent | LostEvent;

const TCP_ESTABLISHED = 1;

interface PartialExec {
  header: Omit<ExecEvent, 'ancestors' | 'argv' | 'argvTruncated' | 'cwd'> & { argvLength: number };
  ancestors: number[];
  argv: Buffer[];
  cwd: string[];
}

const hexBytes = (text: string): Buffer => Buffer.from(text.replace(/\\x/g, ''), 'hex');

/**
 * Turns the tracer's lines into events. Lines of an exec event are gathered by their key until
 * its `Z` line; anything malformed is dropped (counted in `dropped`), never guessed at.
 */
export class TraceParser {
  readonly #pending = new Map<string, PartialExec>();
  /** Exec events not wanted (keys), whose other lines are passed over unread. */
  readonly #skipping = new Set<string>();
  readonly #wants: (uid: number) => boolean;
  dropped = 0;

  /**
   * `wants`: whether the program starts of a uid matter (the boxes under attack): the others are
   * not decoded, so a box that starts programs without end costs little while nobody attacks it.
   */
  constructor(options: { wants?: (uid: number) => boolean } = {}) {
    this.#wants = options.wants ?? (() => true);
  }

  /** Feeds one line; answers the event it completes, if any. */
  line(text: string): TraceEvent | null {
    const fields = text.split(' ');
    const kind = fields[0];
    try {
      switch (kind) {
        case 'X': {
          if (fields.length !== 11) break;
          const key = `${fields[1]} ${fields[2]}`;
          if (!this.#wants(int(fields[3]))) {
            this.#skipping.add(key);
            // A lost Z must not keep keys forever.
            if (this.#skipping.size > 4096) this.#skipping.delete(this.#skipping.values().next().value!);
            return null;
          }
          this.#pending.set(key, {
            header: {
              kind: 'exec',
              ns: BigInt(fields[1]!),
              pid: int(fields[2]),
              uid: int(fields[3]),
              euid: int(fields[4]),
              previousProgram: BigInt(fields[5]!),
              program: BigInt(fields[6]!),
              mode: int(fields[7]),
              argvLength: int(fields[8]),
              cgroup: BigInt(fields[9]!),
              parentProgram: BigInt(fields[10]!),
            },
            ancestors: [],
            argv: [],
            cwd: [],
          });
          // A lost Z must not keep partial events forever.
          if (this.#pending.size > 4096) {
            const oldest = this.#pending.keys().next().value!;
            this.#pending.delete(oldest);
            this.dropped++;
          }
          return null;
        }
        case 'P':
        case 'A':
        case 'D':
        case 'Z': {
          const key = `${fields[1]} ${fields[2]}`;
          const partial = this.#pending.get(key);
          if (!partial) {
            if (!this.#skipping.has(key)) break;
            if (kind === 'Z') this.#skipping.delete(key);
            return null;
          }
          if (kind === 'P' && fields.length === 4) partial.ancestors.push(int(fields[3]));
          else if (kind === 'A' && fields.length === 4) partial.argv.push(hexBytes(fields[3]!));
          else if (kind === 'D' && fields.length === 5)
            partial.cwd.push(hexBytes(fields[4]!).subarray(0, int(fields[3])).toString('utf8'));
          else if (kind === 'Z' && fields.length === 3) {
            this.#pending.delete(key);
            return finishExec(partial);
          } else break;
          return null;
        }
        case 'F':
          if (fields.length !== 4) break;
          return { kind: 'fork', ns: BigInt(fields[1]!), parent: int(fields[2]), child: int(fields[3]) };
        case 'S': {
          if (fields.length !== 9) break;
          const newState = int(fields[3]);
          return {
            kind: 'tcp',
            ns: BigInt(fields[1]!),
            change: newState === TCP_ESTABLISHED ? 'open' : 'close',
            sourcePort: int(fields[4]),
            destinationPort: int(fields[5]),
            source: [...hexBytes(fields[6]!)].join('.'),
            destination: [...hexBytes(fields[7]!)].join('.'),
            netns: int(fields[8]),
          };
        }
        case 'Lost': {
          // bpftrace's own word that its buffers overflowed ("Lost 12 events").
          const lost = /^Lost (\d+) events$/.exec(text);
          if (!lost) break;
          return { kind: 'lost', count: Number(lost[1]) };
        }
        default:
          // bpftrace's own lines ("Attaching 5 probes...") and anything else.
          return null;
      }
    } catch {
      // a number that does not parse
    }
    this.dropped++;
    return null;
  }
}

function int(text: string | undefined): number {
  if (text === undefined || !/^-?\d+$/.test(text)) throw new RangeError(`not a number: ${text}`);
  return Number(text);
}

function finishExec(partial: PartialExec): ExecEvent {
  const { argvLength, ...header } = partial.header;
  const argvBytes = Buffer.concat(partial.argv);
  const carried = argvBytes.subarray(0, Math.min(argvLength, argvBytes.length));
  const argv = carried.toString('utf8').replace(/\0+$/, '').split('\0');
  return {
    ...header,
    ancestors: partial.ancestors,
    argv,
    argvTruncated: argvLength > carried.length,
    cwd: '/' + partial.cwd.reverse().join('/'),
  };
}
