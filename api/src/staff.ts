import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { runningEmbeddedUrl } from './db/embedded-postgres.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';
import { StaffError, fail, text, type StaffCommand, type StaffOptionValues } from './staff/cli.ts';
import { STAFF_COMMANDS, STAFF_OPTIONS } from './staff/commands/index.ts';

function usage(): string {
  const lines = STAFF_COMMANDS.map((c) => `  node api/dist/staff.js ${c.name} ${c.usage}`.trimEnd());
  const width = Math.max(...STAFF_COMMANDS.map((c) => c.name.length)) + 2;
  const help = STAFF_COMMANDS.map((c) =>
    c.help
      .split('\n')
      .map((l, i) => (i === 0 ? c.name.padEnd(width) : ' '.repeat(width)) + l.trim())
      .join('\n'),
  );
  return `Exploit Grid staff CLI: every action is written to staff_actions.

Usage:
${lines.join('\n')}

${help.join('\n')}

--actor defaults to STAFF_ACTOR, else the login name. The database is DATABASE_URL's, else the
embedded PostgreSQL of the running platform in DATA_DIR (start it with make run).`;
}

/** The command a command line names: a group and a word (`gifts mint`), or one word (`ban`). */
function find(words: string[]): { command: StaffCommand; args: string[] } {
  const [first, second] = words;
  const pair = STAFF_COMMANDS.find((c) => c.name === `${first} ${second}`);
  if (pair) return { command: pair, args: words.slice(2) };
  const single = STAFF_COMMANDS.find((c) => c.name === first);
  if (single) return { command: single, args: words.slice(1) };
  const group = STAFF_COMMANDS.filter((c) => c.name.startsWith(`${first} `));
  if (group.length > 0) fail(`Usage: ${group.map((c) => c.name).join(', ')} (--help for their options).`);
  const names = [...new Set(STAFF_COMMANDS.map((c) => c.name.split(' ')[0]))];
  fail(`Unknown command ${first}. Commands: ${names.join(', ')} (--help).`);
}

/** `make staff ARGS=...` / `node api/dist/staff.js ...`: staff actions from the command line. */
async function main(argv: string[]): Promise<number> {
  const { values: parsed, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...STAFF_OPTIONS, help: { type: 'boolean', short: 'h' } },
  });
  const values = parsed as StaffOptionValues;
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${usage()}\n`);
    return values.help ? 0 : 1;
  }
  const { command, args } = find(positionals);
  const misplaced = Object.keys(values).filter(
    (option) => option !== 'help' && !command.options.includes(option),
  );
  if (misplaced.length > 0)
    fail(`${command.name} does not take ${misplaced.map((o) => `--${o}`).join(', ')} (--help).`);
  // Checked before the database is reached: a mistake changes nothing.
  const work = command.prepare({ args, values });
  const actorName = values.actor ?? process.env.STAFF_ACTOR ?? os.userInfo().username;
  const actor = text('--actor', typeof actorName === 'string' ? actorName : '', 100);

  const config = loadConfig();
  const db = new pg.Client({ connectionString: await databaseUrl(config) });
  await db.connect().catch((err: unknown) => {
    throw new StaffError(
      `Could not reach the platform's database (${(err as Error).message}): is the platform running?`,
    );
  });
  let mailer: Mailer | undefined;
  try {
    await work({
      db,
      actor,
      config,
      out: (output) => process.stdout.write(`${output}\n`),
      err: (output) => process.stderr.write(`${output}\n`),
      mailer: () =>
        (mailer ??= createMailer({
          smtpUrl: config.smtpUrl,
          from: config.mailFrom,
          dataDir: config.dataDir,
          // Standard output is the commands' result: the mailer's warnings go to standard error.
          logger: pino({ level: 'warn' }, pino.destination(2)),
        })),
    });
    return 0;
  } finally {
    mailer?.close();
    await db.end();
  }
}

async function databaseUrl(config: Config): Promise<string> {
  if (config.databaseUrl) return config.databaseUrl;
  const url = await runningEmbeddedUrl(config.dataDir);
  if (!url)
    throw new StaffError(
      `The platform's embedded PostgreSQL is not running (DATA_DIR ${config.dataDir}): start it with make run, or set DATABASE_URL.`,
    );
  return url;
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
