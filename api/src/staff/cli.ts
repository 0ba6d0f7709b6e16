import type pg from 'pg';
import type { Config } from '../config.ts';
import type { Mailer } from '../mail/mailer.ts';

/** A mistake of the person at the command line: said in words, exit code 1, nothing changed. */
export class StaffError extends Error {
  override name = 'StaffError';
}

/** Runs `fn` between begin and commit on `db`, rolling back when it throws. */
export async function inTransaction<T>(db: Pick<pg.ClientBase, 'query'>, fn: () => Promise<T>): Promise<T> {
  await db.query('begin');
  try {
    const result = await fn();
    await db.query('commit');
    return result;
  } catch (err) {
    await db.query('rollback').catch(() => undefined);
    throw err;
  }
}

/** What a command is given to run: the platform's database, who runs it, and where to write. */
export interface StaffContext {
  db: pg.Client;
  /** `--actor`, else STAFF_ACTOR, else the login name: written to staff_actions with every action. */
  actor: string;
  config: Config;
  /** Standard output: the result (what a script would read). */
  out(text: string): void;
  /** Standard error: remarks for the person at the terminal. */
  err(text: string): void;
  /** The platform's mailer (SMTP_URL, else files in DATA_DIR/mail), made on first use. */
  mailer(): Mailer;
}

export type StaffOptionValues = Record<string, string | boolean | undefined>;

/**
 * One command of the staff CLI (`ban`, `gifts mint`, ...). Its arguments are checked by `prepare`, before the
 * database is reached, so a mistake changes nothing; the work it answers runs on the database.
 */
export interface StaffCommand {
  /** One word, or a group and a word: `ban`, `gifts mint`. */
  name: string;
  /** What follows the name on the usage line: `<handle|email> --reason <text> [--actor <name>]`. */
  usage: string;
  /** What it does, for --help; lines after the first are indented under it. */
  help: string;
  /** The options it takes (besides --help); each is declared once for the whole CLI, the same everywhere. */
  options: readonly string[];
  prepare(input: { args: string[]; values: StaffOptionValues }): (ctx: StaffContext) => Promise<void>;
}

/** A mistake of the person at the command line. */
export function fail(message: string): never {
  throw new StaffError(message);
}

/** `--limit`: a whole number from 1 to 1000, `fallback` when absent. */
export function parseLimit(value: string | boolean | undefined, fallback: number): number {
  const raw = typeof value === 'string' ? value.trim() : undefined;
  const limit = value === undefined ? fallback : raw && /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= 1000)) fail('--limit must be a whole number from 1 to 1000.');
  return limit;
}

/** A trimmed, bounded, printable single-line argument (it is stored; PostgreSQL text cannot hold NUL). */
export function text(name: string, value: string, max: number): string {
  const trimmed = value.trim();
  if (!trimmed) fail(`${name} must not be empty.`);
  if (trimmed.length > max) fail(`${name} must be at most ${max} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) fail(`${name} must not contain control characters.`);
  return trimmed;
}

/**
 * Text a visitor wrote, made safe for a terminal: control characters (an escape sequence could rewrite the
 * screen or the window title of the staff member reading it) are shown as \xNN; newlines and tabs stay
 * unless `oneLine`.
 */
export function printable(value: string, oneLine = false): string {
  // C0 and C1 controls, and the bidirectional overrides that make a line read other than it is.
  const control = oneLine
    ? // eslint-disable-next-line no-control-regex
      /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g
    : // eslint-disable-next-line no-control-regex
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
  return value.replace(control, (c) => {
    const code = c.charCodeAt(0);
    return code > 0xff
      ? `\\u${code.toString(16).padStart(4, '0')}`
      : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}

/** A string option's value (an option given without one, or a boolean where text belongs, is refused). */
export function stringOption(values: StaffOptionValues, name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') fail(`--${name} needs a value.`);
  return value;
}

/** Exactly `count` positional arguments, named in the message when they are not there. */
export function positionals(args: string[], names: readonly string[]): string[] {
  if (args.length < names.length) fail(`Missing ${names.slice(args.length).join(', ')} (--help).`);
  if (args.length > names.length) fail(`Unexpected arguments: ${args.slice(names.length).join(' ')}`);
  return args;
}

/** Writes a staff action to the audit log (`staff_actions`); done in the same transaction as the action. */
export async function logStaffAction(
  db: Pick<pg.ClientBase, 'query'>,
  action: {
    actor: string;
    action: string;
    /** What was acted on, as staff typed or named it (an account, a job's slug, a report's tracking id). */
    target: string;
    userId?: string | null;
    reason?: string | null;
    details?: Record<string, unknown>;
  },
): Promise<void> {
  await db.query(
    `insert into staff_actions (actor, action, user_id, target, reason, details) values ($1, $2, $3, $4, $5, $6)`,
    [
      action.actor,
      action.action,
      action.userId ?? null,
      action.target,
      action.reason ?? null,
      JSON.stringify(action.details ?? {}),
    ],
  );
}
