import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../../command.ts';

/**
 * What box root may not call, on top of systemd-nspawn's own allow-list (which already refuses
 * most of these; naming them keeps them refused whatever a later nspawn allows): the kernel's
 * module loader, keyrings, bpf, perf events, kexec, io_uring, userfaultfd, file handles across
 * mounts, raw I/O ports, swap and syscalls nothing current uses. None of these is needed to run
 * a Debian server (services, its own firewall, mounts inside the box); all are ways out of it.
 */
export const DENIED_SYSCALLS = [
  '@keyring',
  '@module',
  '@raw-io',
  '@swap',
  '@obsolete',
  'bpf',
  'perf_event_open',
  'kexec_load',
  'kexec_file_load',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'userfaultfd',
  'open_by_handle_at',
  'lookup_dcookie',
] as const;

/** Where the box's first process (see BOX_INIT_SOURCE) is found inside the box: a read-only bind. */
export const BOX_INIT_PATH = '/run/exploit-grid-init';

/**
 * The box's PID 1 until it execs systemd: adds a seccomp filter that refuses new user namespaces
 * (clone and unshare with CLONE_NEWUSER; clone3, whose flags a filter cannot read, answers
 * ENOSYS so that libc falls back to clone) and every other syscall ABI (i386, x32). nspawn's
 * --system-call-filter= takes syscall names only, never their arguments, and a box must keep
 * unshare and clone for its services' own sandboxing (PrivateTmp=, network namespaces).
 *
 * It is a static binary bind-mounted read-only from the host: nothing of the box (its libc, its
 * files) runs before the filter is in place, and box root cannot change it for the next boot.
 * No PR_SET_NO_NEW_PRIVS: PID 1 holds CAP_SYS_ADMIN in the box's user namespace, and sudo and su
 * must keep working.
 */
export const BOX_INIT_SOURCE = `#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "box-init knows the x86_64 and aarch64 syscall ABIs only"
#endif

#define REFUSE(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

int main(int argc, char **argv) {
  struct sock_filter filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
    REFUSE(ENOSYS),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), /* the x32 ABI */
    REFUSE(ENOSYS),
#endif
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
    REFUSE(ENOSYS),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
    REFUSE(EPERM),
    ALLOW,
  };
  struct sock_fprog program = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };
  if (argc < 2) {
    fputs("usage: box-init PROGRAM [ARGUMENT...]\\n", stderr);
    return 2;
  }
  if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) {
    perror("box-init: seccomp");
    return 1;
  }
  execv(argv[1], argv + 1);
  perror("box-init: exec");
  return 1;
}
`;

/**
 * The box-init binary for this host, compiled once into `dir` (named by a hash of its source,
 * so a changed filter is compiled again). Answers its path.
 */
export async function ensureBoxInit(dir: string): Promise<string> {
  const hash = createHash('sha256').update(BOX_INIT_SOURCE).digest('hex').slice(0, 12);
  const binary = path.join(dir, `box-init-${hash}`);
  if (existsSync(binary)) return binary;
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const source = `${binary}.c`;
  await writeFile(source, BOX_INIT_SOURCE);
  try {
    await run('cc', ['-static', '-O2', '-Wall', '-Werror', '-o', `${binary}.tmp`, source]);
    // Box root sees it as nobody's file: it must be readable and executable by anyone.
    await chmod(`${binary}.tmp`, 0o755);
    await rename(`${binary}.tmp`, binary);
  } finally {
    await rm(source, { force: true });
    await rm(`${binary}.tmp`, { force: true });
  }
  return binary;
}
