import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ConfigError, loadConfig } from './config.ts';
import { runningEmbeddedUrl } from './db/embedded-postgres.ts';
import {
  StaffError,
  banAccount,
  staffActions,
  unbanAccount,
  type BanOutcome,
  type StaffAction,
} from './staff/bans.ts';
import { GIFT_MAX_CREDITS } from './credits/gifts.ts';
import {
  GIFT_MINT_MAX_COUNT,
  listGifts,
  mintGifts,
  parseGiftCount,
  parseGiftCredits,
  parseGiftExpiry,
  type GiftListing,
} from './staff/gifts.ts';

const USAGE = `Exploit Grid staff CLI: every action is written to staff_actions.

Usage:
  node api/dist/staff.js ban <handle|email> --reason <text> [--actor <name>]
  node api/dist/staff.js unban <handle|email> --reason <text> [--actor <name>]
  node api/dist/staff.js log [<handle|email>] [--limit <n>]
  node api/dist/staff.js gifts mint --credits <n> [--count <n>] [--expires <when>] [--note <text>] [--actor <name>]
  node api/dist/staff.js gifts list [--limit <n>] [--unredeemed]

ban         Ends every session and socket of the account, revokes its VPN certificates and drops its live
            tunnels, stops its box; until an unban the player may sign in and read, nothing else.
unban       Lifts a ban: the account may sign in again and gets a new VPN certificate.
log         The latest staff actions (of one account), newest first.
gifts mint  Mints --count gift tokens (1 to ${GIFT_MINT_MAX_COUNT}, default 1), XXXX-XXXX-XXXX, each worth --credits
            free credits (above 0, at most ${GIFT_MAX_CREDITS}, 2 decimals) and redeemable once on the Redeem
            Gift page until --expires: a span (12h, 30d, 8w), a date (to its end, UTC) or a date and time
            with its zone; without --expires they do not expire. The tokens are printed here, one a line,
            and never again: the platform keeps only their hashes.
gifts list  The latest gift tokens (default 50), newest first: id, label (4 symbols of its own), credits,
            created, expires, who redeemed it and when, note. --unredeemed: only those not redeemed.

--actor defaults to STAFF_ACTOR, else the login name. The database is DATABASE_URL's, else the
embedded PostgreSQL of the running platform in DATA_DIR (start it with make run).`;

/** `make staff ARGS=...` / `node api/dist/staff.js ...`: staff actions from the command line. */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      reason: { type: 'string' },
      actor: { type: 'string' },
      limit: { type: 'string' },
      credits: { type: 'string' },
      count: { type: 'string' },
      expires: { type: 'string' },
      note: { type: 'string' },
      unredeemed: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, who, ...extra] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 1;
  }
  if (extra.length > 0) throw new StaffError(`Unexpected arguments: ${extra.join(' ')}`);
  const form = command === 'gifts' ? `gifts ${who ?? ''}`.trim() : command;
  const allowed = OPTIONS[form];
  if (!allowed)
    throw new StaffError(
      command === 'gifts'
        ? 'Usage: gifts mint --credits <n> ... or gifts list (--help).'
        : `Unknown command ${command}. Commands: ban, unban, log, gifts (--help).`,
    );
  const misplaced = Object.keys(values).filter((option) => option !== 'help' && !allowed.includes(option));
  if (misplaced.length > 0)
    throw new StaffError(`${form} does not take ${misplaced.map((o) => `--${o}`).join(', ')} (--help).`);
  // Checked before the database is reached: a mistake changes nothing.
  const mint =
    form === 'gifts mint'
      ? {
          creditsCents: parseGiftCredits(
            values.credits ?? fail('gifts mint needs --credits <n>: the free credits each token grants.'),
          ),
          count: parseGiftCount(values.count),
          expiresAt: values.expires === undefined ? null : parseGiftExpiry(values.expires),
          note: values.note === undefined ? null : text('--note', values.note, 500),
        }
      : null;
  const actor = text('--actor', values.actor ?? process.env.STAFF_ACTOR ?? os.userInfo().username, 100);

  const db = new pg.Client({ connectionString: await databaseUrl() });
  await db.connect().catch((err: unknown) => {
    throw new StaffError(
      `Could not reach the platform's database (${(err as Error).message}): is the platform running?`,
    );
  });
  try {
    switch (command) {
      case 'ban':
      case 'unban': {
        if (!who) throw new StaffError(`Usage: ${command} <handle|email> --reason <text>`);
        if (values.reason === undefined) throw new StaffError(`${command} needs --reason <text>.`);
        const input = {
          who: text('handle or email', who, 254),
          reason: text('--reason', values.reason, 500),
          actor,
        };
        const outcome = command === 'ban' ? await banAccount(db, input) : await unbanAccount(db, input);
        process.stdout.write(`${describe(command, outcome)}\n`);
        return 0;
      }
      case 'log': {
        const limit = parseLimit(values.limit, 20);
        const actions = await staffActions(db, {
          who: who ? text('handle or email', who, 254) : undefined,
          limit,
        });
        process.stdout.write(
          actions.length ? `${actions.map(line).join('\n')}\n` : 'No staff actions yet.\n',
        );
        return 0;
      }
      case 'gifts': {
        if (mint) {
          const minted = await mintGifts(db, { ...mint, actor });
          // The tokens alone on standard output (for a file or a mail merge); the rest on standard error.
          process.stdout.write(`${minted.map((g) => g.token).join('\n')}\n`);
          const expiry = mint.expiresAt ? `until ${mint.expiresAt.toISOString()}` : 'with no expiry';
          process.stderr.write(
            `Minted ${minted.length} gift token(s) of ${(mint.creditsCents / 100).toFixed(2)} free credits each, ${expiry}. They are shown only now: the platform keeps their hashes.\n` +
              `Their labels in gifts list, in the same order: ${minted.map((g) => g.hint).join(' ')}\n`,
          );
          return 0;
        }
        const gifts = await listGifts(db, {
          limit: parseLimit(values.limit, 50),
          unredeemed: values.unredeemed ?? false,
        });
        process.stdout.write(gifts.length ? `${gifts.map(giftLine).join('\n')}\n` : 'No gift tokens.\n');
        return 0;
      }
    }
    throw new StaffError(`Unknown command ${command} (--help).`);
  } finally {
    await db.end();
  }
}

/** The options each command takes (--help goes with all of them). */
const OPTIONS: Record<string, string[]> = {
  ban: ['reason', 'actor'],
  unban: ['reason', 'actor'],
  log: ['limit'],
  'gifts mint': ['credits', 'count', 'expires', 'note', 'actor'],
  'gifts list': ['limit', 'unredeemed'],
};

function fail(message: string): never {
  throw new StaffError(message);
}

function parseLimit(value: string | undefined, fallback: number): number {
  const limit = value === undefined ? fallback : /^\d{1,4}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= 1000)) throw new StaffError('--limit must be a whole number from 1 to 1000.');
  return limit;
}

/** A trimmed, bounded, printable argument (it is stored; PostgreSQL text cannot hold NUL). */
function text(name: string, value: string, max: number): string {
  const trimmed = value.trim();
  if (!trimmed) throw new StaffError(`${name} must not be empty.`);
  if (trimmed.length > max) throw new StaffError(`${name} must be at most ${max} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed))
    throw new StaffError(`${name} must not contain control characters.`);
  return trimmed;
}

async function databaseUrl(): Promise<string> {
  const config = loadConfig();
  if (config.databaseUrl) return config.databaseUrl;
  const url = await runningEmbeddedUrl(config.dataDir);
  if (!url)
    throw new StaffError(
      `The platform's embedded PostgreSQL is not running (DATA_DIR ${config.dataDir}): start it with make run, or set DATABASE_URL.`,
    );
  return url;
}

function describe(command: string, o: BanOutcome): string {
  const who = `${o.account.handle} (${o.account.email}, ${o.account.id})`;
  if (command === 'unban') return o.changed ? `Unbanned ${who}.` : `${who} was not banned; logged anyway.`;
  const head = o.changed ? `Banned ${who}` : `${who} was already banned; enforced again`;
  return `${head}: ${o.sessionsEnded} session(s) ended, ${o.certificatesRevoked} VPN certificate(s) revoked, ${o.boxesStopped} box(es) stopped. Running API servers cut its sockets and tunnels now.`;
}

function giftLine(g: GiftListing): string {
  const expired = g.expiresAt !== null && !g.redeemedAt && Date.parse(g.expiresAt) <= Date.now();
  const redeemed = g.redeemedAt
    ? `redeemed by ${g.redeemedBy ?? 'a deleted account'} at ${g.redeemedAt}`
    : expired
      ? 'expired'
      : 'not redeemed';
  return [
    g.id,
    `label ${g.hint}`,
    `${(g.creditsCents / 100).toFixed(2)} credits`,
    `created ${g.createdAt} by ${g.createdBy}`,
    `expires ${g.expiresAt ?? 'never'}`,
    redeemed,
    ...(g.note ? [`note: ${g.note}`] : []),
  ].join('  ');
}

function line(a: StaffAction): string {
  return `${a.at}  ${a.action.padEnd(5)}  ${a.target}  by ${a.actor}${a.reason ? `: ${a.reason}` : ''}`;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const known =
      err instanceof StaffError ||
      err instanceof ConfigError ||
      (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
      (err as { code?: string }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE';
    process.stderr.write(`${known ? (err as Error).message : String((err as Error).stack ?? err)}\n`);
    process.exit(1);
  },
);
