import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, openSync, watch, type FSWatcher } from 'node:fs';
import { mkdir, open, readFile, stat, truncate, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../command.ts';
import type { Logger } from '../logger.ts';
import { TraceParser, type TraceEvent } from './trace.ts';

/** The trace file is emptied when it is this large and nothing needs its history. */
const ROTATE_BYTES = 64 * 1024 * 1024;
/**
 * The trace file's size at most, attacks running or not: a box that starts programs without end
 * (about 10 kB a program at most) must not fill the host's disk. What is emptied is history an
 * API restart would read again; the attacker's processes are kept apart (held/).
 */
export const TRACE_CAP_BYTES = 1024 * 1024 * 1024;
const READ_CHUNK = 1024 * 1024;
/** How often the file is looked at besides inotify's word (a missed notification costs no more). */
const POLL_MS = 250;

/**
 * Runs bpftrace on the host with the referee's script, detached from the API like the boxes and
 * VPN servers: it keeps recording while the API restarts, and the API reads the trace file it
 * appends to (`trace.log`), so nothing a box ran while the API was away is missed. A new script
 * (another version of the API) replaces the running tracer.
 */
export class Tracer {
  readonly #dir: string;
  readonly #script: string;
  readonly #log: Logger;
  readonly #parser: TraceParser;
  #onEvent: (event: TraceEvent) => void = () => undefined;
  #file: FileHandle | null = null;
  #offset = 0;
  #partial = '';
  /** Read into, again and again (a new megabyte four times a second would keep the GC busy). */
  #buffer: Buffer | null = null;
  #watcher: FSWatcher | null = null;
  #timer: NodeJS.Timeout | null = null;
  #reading: Promise<void> | null = null;
  #again = false;
  /** When the running tracer started (epoch ms). */
  startedAt = 0;

  /** `wants`: whose program starts to decode (see TraceParser). */
  constructor(options: { dir: string; script: string; logger: Logger; wants?: (uid: number) => boolean }) {
    this.#parser = new TraceParser({ wants: options.wants });
    this.#dir = options.dir;
    this.#script = options.script;
    this.#log = options.logger.child({ component: 'tracer' });
  }

  /** The tracer's directory (the referee keeps its load there too). */
  get dir(): string {
    return this.#dir;
  }

  get #traceFile(): string {
    return path.join(this.#dir, 'trace.log');
  }
  get #scriptFile(): string {
    return path.join(this.#dir, 'referee.bt');
  }
  get #stateFile(): string {
    return path.join(this.#dir, 'tracer.json');
  }

  /**
   * Adopts the running tracer or starts one, and reads the trace from its beginning (events the
   * API missed while it was away; the caller skips what it no longer needs).
   */
  async start(onEvent: (event: TraceEvent) => void): Promise<void> {
    this.#onEvent = onEvent;
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const hash = createHash('sha256').update(this.#script).digest('hex');
    const state = await readFile(this.#stateFile, 'utf8')
      .then((text) => JSON.parse(text) as { pid: number; hash: string; startedAt: number })
      .catch(() => null);
    if (state && state.hash === hash && (await this.#isOurs(state.pid))) {
      this.startedAt = state.startedAt;
      this.#log.info({ pid: state.pid }, 'Adopted the running tracer');
    } else {
      if (state && (await this.#isOurs(state.pid))) await this.#kill(state.pid);
      await this.#spawn(hash);
    }
    this.#file = await open(this.#traceFile, 'r');
    this.#watcher = watch(this.#traceFile, () => this.#read());
    this.#watcher.on('error', () => undefined);
    this.#timer = setInterval(() => this.#read(), POLL_MS);
    this.#timer.unref();
    this.#read();
    await this.#reading;
  }

  async #isOurs(pid: number): Promise<boolean> {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    return cmdline.startsWith('bpftrace\0') && cmdline.includes(this.#scriptFile);
  }

  async #kill(pid: number): Promise<void> {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return;
    }
    for (let i = 0; i < 50 && (await this.#isOurs(pid)); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
  }

  async #spawn(hash: string): Promise<void> {
    await ensureTracefs(this.#log);
    await writeFile(this.#scriptFile, this.#script, { mode: 0o600 });
    // The old trace belongs to the old tracer.
    await writeFile(this.#traceFile, '', { mode: 0o600 });
    const out = openSync(this.#traceFile, 'a');
    const err = openSync(path.join(this.#dir, 'tracer.err'), 'w');
    let child;
    try {
      child = spawn('bpftrace', ['-B', 'line', this.#scriptFile], {
        detached: true,
        stdio: ['ignore', out, err],
        env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', BPFTRACE_STRLEN: '64' },
      });
    } finally {
      closeSync(out);
      closeSync(err);
    }
    const pid = child.pid;
    if (pid === undefined) throw new Error('could not start bpftrace');
    child.unref();
    // Ready once its probes are attached (it says so first thing).
    const deadline = Date.now() + 60_000;
    for (;;) {
      const text = await readFile(this.#traceFile, 'utf8').catch(() => '');
      if (text.includes('Attaching ')) break;
      const errors = await readFile(path.join(this.#dir, 'tracer.err'), 'utf8').catch(() => '');
      if (child.exitCode !== null || !(await this.#isOurs(pid)) || Date.now() > deadline) {
        await this.#kill(pid);
        const reason = errors
          .split('\n')
          .filter((line) => line && !line.includes('RLIMIT_MEMLOCK'))
          .slice(-5)
          .join('\n');
        const how =
          child.exitCode !== null || child.signalCode !== null
            ? `exited (${child.exitCode ?? child.signalCode})`
            : Date.now() > deadline
              ? 'no probe attached within 60 s'
              : 'its process went away';
        throw new Error(`bpftrace did not start: ${how}: ${reason || 'no output'}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    this.startedAt = Date.now();
    await writeFile(this.#stateFile, JSON.stringify({ pid, hash, startedAt: this.startedAt }), {
      mode: 0o600,
    });
    this.#log.info({ pid }, 'Started the tracer');
  }

  /** Whether the tracer still runs (the runtime reports a dead one). */
  async alive(): Promise<boolean> {
    const state = await readFile(this.#stateFile, 'utf8')
      .then((text) => JSON.parse(text) as { pid: number })
      .catch(() => null);
    return state !== null && (await this.#isOurs(state.pid));
  }

  #read(): void {
    if (!this.#file) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = (async () => {
      try {
        do {
          this.#again = false;
          await this.#drain();
        } while (this.#again);
      } catch (err) {
        this.#log.error({ err }, 'Could not read the trace');
      } finally {
        this.#reading = null;
      }
    })();
  }

  async #drain(): Promise<void> {
    const file = this.#file!;
    const size = (await file.stat()).size;
    if (size < this.#offset) {
      // Emptied by rotate(): start again from its beginning.
      this.#offset = 0;
      this.#partial = '';
    }
    if (size === this.#offset) return;
    const buffer = (this.#buffer ??= Buffer.allocUnsafe(READ_CHUNK));
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, READ_CHUNK, this.#offset);
      if (bytesRead === 0) return;
      this.#offset += bytesRead;
      const text = this.#partial + buffer.toString('latin1', 0, bytesRead);
      const lines = text.split('\n');
      this.#partial = lines.pop() ?? '';
      for (const line of lines) {
        const event = this.#parser.line(line);
        if (event) this.#onEvent(event);
      }
    }
  }

  /** Reads what the tracer wrote so far (tests, and before a decision that must not miss it). */
  async flush(): Promise<void> {
    this.#read();
    while (this.#reading) await this.#reading;
  }

  /**
   * Empties the trace file once it holds `limit` bytes (call without one when no attack needs
   * its history); answers whether it did.
   */
  async rotate(limit = ROTATE_BYTES): Promise<boolean> {
    const size = await stat(this.#traceFile)
      .then((s) => s.size)
      .catch(() => 0);
    if (size < limit) return false;
    await this.flush();
    await truncate(this.#traceFile, 0);
    this.#offset = 0;
    this.#partial = '';
    return true;
  }

  /** Stops reading; the tracer keeps running for the next API. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#watcher?.close();
    await this.#reading;
    await this.#file?.close();
    this.#file = null;
  }

  /** Stops reading and stops the tracer (make boxes-down, tests). */
  async destroy(): Promise<void> {
    await this.close();
    const state = await readFile(this.#stateFile, 'utf8')
      .then((text) => JSON.parse(text) as { pid: number })
      .catch(() => null);
    if (state && (await this.#isOurs(state.pid))) await this.#kill(state.pid);
  }
}

/** Where the kernel lists its tracepoints; bpftrace finds none when it is not mounted. */
const TRACEFS = '/sys/kernel/tracing';

/**
 * Mounts the kernel's tracing file system when the host has not (a minimal or container-made
 * host boots without it; Debian's systemd mounts it on first access, others do not).
 */
async function ensureTracefs(log: Logger): Promise<void> {
  if (
    await stat(path.join(TRACEFS, 'events')).then(
      () => true,
      () => false,
    )
  )
    return;
  try {
    await run('mount', ['-t', 'tracefs', 'tracefs', TRACEFS]);
    log.info({ path: TRACEFS }, 'Mounted the tracing file system');
  } catch (err) {
    // bpftrace then says which tracepoint it could not find.
    log.warn({ err }, 'Could not mount the tracing file system');
  }
}
