/**
 * The exec hook: every program start on the box, short-lived ones too, as snoopy (an execve
 * logger loaded into every dynamically linked process through /etc/ld.so.preload) writes it to
 * the journal. The box image configures snoopy with SNOOPY_FORMAT and journald without rate
 * limits; the agent follows the journal with `journalctl --follow --output=json`.
 *
 * The journal adds trusted fields to every entry (`_PID`, `_UID`, from the kernel's socket
 * credentials, not from the message): a user who writes a fake snoopy line (`logger -t snoopy
 * ...`) cannot claim another process or another user. Only the effective uid comes from the
 * message; the agent checks it against /proc while the process lives and otherwise ignores it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** snoopy's `message_format` in the box image (see the image recipe). */
export const SNOOPY_FORMAT = 'eg1 pid=%{pid} ppid=%{ppid} uid=%{uid} euid=%{euid} cwd=%{cwd} cmd=%{cmdline}';

const SNOOPY_LINE = /^eg1 pid=(\d+) ppid=(\d+) uid=(\d+) euid=(\d+) cwd=(.*?) cmd=(.*)$/s;

export interface ExecRecord {
  /** When the program started (the journal's receive time). */
  time: string;
  /** Trusted: the process that called execve (the journal's `_PID`). */
  pid: number;
  ppid: number;
  /** Trusted: its real uid (the journal's `_UID`). */
  uid: number;
  /** As the message says: to be checked before it counts. */
  claimedEuid: number;
  cwd: string;
  command: string;
}

/** Where exec records come from (the journal in a box; a list in tests). */
export interface ExecSource {
  start(onRecord: (record: ExecRecord) => void): void;
  stop(): void;
}

const text = (value: unknown): string | null => {
  if (typeof value === 'string') return value;
  // journalctl writes fields that are not valid UTF-8 as arrays of bytes.
  if (Array.isArray(value) && value.every((b) => typeof b === 'number'))
    return Buffer.from(value as number[]).toString('utf8');
  return null;
};

/** One `journalctl --output=json` entry → an exec record, or null for anything else. */
export function parseJournalEntry(entry: Record<string, unknown>): ExecRecord | null {
  if (entry.SYSLOG_IDENTIFIER !== 'snoopy') return null;
  const message = text(entry.MESSAGE);
  const pid = Number(entry._PID);
  const uid = Number(entry._UID);
  if (message === null || !Number.isInteger(pid) || !Number.isInteger(uid)) return null;
  const match = SNOOPY_LINE.exec(message.replace(/\n$/, ''));
  // The message's pid must be the sender's: anything else is a line written by hand.
  if (!match || Number(match[1]) !== pid) return null;
  const micros = Number(entry.__REALTIME_TIMESTAMP);
  return {
    time: new Date(Number.isFinite(micros) ? micros / 1000 : Date.now()).toISOString(),
    pid,
    ppid: Number(match[2]),
    uid,
    claimedEuid: Number(match[4]),
    cwd: match[5]!,
    command: match[6]!,
  };
}

/**
 * Follows the journal's snoopy entries from where the last run stopped (a cursor file), so
 * records written while the agent was down (or restarting) are read too. journalctl is
 * started again when it ends.
 */
export class JournalSource implements ExecSource {
  readonly #cursorFile: string;
  readonly #command: string;
  readonly #log: (message: string) => void;
  #child: ChildProcess | null = null;
  #stopped = false;
  #cursor: string | null = null;
  #cursorTimer: NodeJS.Timeout | null = null;
  #restartTimer: NodeJS.Timeout | null = null;

  constructor(options: { cursorFile: string; command?: string; log?: (message: string) => void }) {
    this.#cursorFile = options.cursorFile;
    this.#command = options.command ?? 'journalctl';
    this.#log = options.log ?? (() => undefined);
  }

  start(onRecord: (record: ExecRecord) => void): void {
    this.#stopped = false;
    const saved = existsSync(this.#cursorFile) ? readFileSync(this.#cursorFile, 'utf8').trim() : '';
    const args = [
      '--follow',
      '--output=json',
      '--all',
      '--no-pager',
      // Only what the agent reads (the cursor and time come with every entry).
      '--output-fields=SYSLOG_IDENTIFIER,MESSAGE,_PID,_UID',
      ...(saved ? [`--after-cursor=${saved}`] : ['--lines=0']),
      'SYSLOG_IDENTIFIER=snoopy',
    ];
    const child = spawn(this.#command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-2000)));
    child.on('error', (err) => this.#log(`journalctl: ${err.message}`));
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      const record = parseJournalEntry(entry);
      if (record) onRecord(record);
      if (typeof entry.__CURSOR === 'string') this.#cursor = entry.__CURSOR;
    });
    // The cursor goes to disk a few times a second (records are in the spool by then).
    this.#cursorTimer = setInterval(() => this.#saveCursor(), 250);
    child.on('exit', (code) => {
      clearInterval(this.#cursorTimer!);
      this.#saveCursor();
      if (this.#stopped) return;
      this.#log(`journalctl ended (${code}): ${errors.trim().split('\n').at(-1) ?? ''}; following again`);
      // A cursor the journal no longer knows (a volatile journal after a reboot) ends
      // journalctl at once: start from now instead.
      if (errors.includes('cursor')) writeFileSync(this.#cursorFile, '');
      this.#restartTimer = setTimeout(() => this.start(onRecord), 1000);
    });
  }

  #saveCursor(): void {
    if (!this.#cursor) return;
    const tmp = `${this.#cursorFile}.tmp`;
    writeFileSync(tmp, this.#cursor);
    renameSync(tmp, this.#cursorFile);
    this.#cursor = null;
  }

  stop(): void {
    this.#stopped = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    if (this.#cursorTimer) clearInterval(this.#cursorTimer);
    this.#child?.kill('SIGTERM');
    this.#saveCursor();
  }
}
