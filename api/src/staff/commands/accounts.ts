import { banAccount, staffActions, unbanAccount, type BanOutcome, type StaffAction } from '../bans.ts';
import { fail, parseLimit, positionals, stringOption, text, type StaffCommand } from '../cli.ts';

function banCommand(name: 'ban' | 'unban', help: string): StaffCommand {
  return {
    name,
    usage: '<handle|email> --reason <text> [--actor <name>]',
    help,
    options: ['reason', 'actor'],
    prepare({ args, values }) {
      const [who] = positionals(args, ['<handle|email>']);
      const reason = stringOption(values, 'reason') ?? fail(`${name} needs --reason <text>.`);
      const input = { who: text('handle or email', who!, 254), reason: text('--reason', reason, 500) };
      return async ({ db, actor, out }) => {
        const outcome =
          name === 'ban'
            ? await banAccount(db, { ...input, actor })
            : await unbanAccount(db, { ...input, actor });
        out(describe(name, outcome));
      };
    },
  };
}

/** ban, unban and log: the accounts' side of the staff CLI (docs/accounts.md, "Bans"). */
export const accountCommands: StaffCommand[] = [
  banCommand(
    'ban',
    `Ends every session and socket of the account, revokes its VPN certificates and drops its live
tunnels, stops its box; until an unban the player may sign in and read, nothing else.`,
  ),
  banCommand('unban', 'Lifts a ban: the account may sign in again and gets a new VPN certificate.'),
  {
    name: 'log',
    usage: '[<handle|email>] [--limit <n>]',
    help: 'The latest staff actions (of one account), newest first.',
    options: ['limit'],
    prepare({ args, values }) {
      if (args.length > 1) fail(`Unexpected arguments: ${args.slice(1).join(' ')}`);
      const who = args[0] === undefined ? undefined : text('handle or email', args[0], 254);
      const limit = parseLimit(values.limit, 20);
      return async ({ db, out }) => {
        const actions = await staffActions(db, { who, limit });
        out(actions.length ? actions.map(line).join('\n') : 'No staff actions yet.');
      };
    },
  },
];

function describe(command: string, o: BanOutcome): string {
  const who = `${o.account.handle} (${o.account.email}, ${o.account.id})`;
  if (command === 'unban') return o.changed ? `Unbanned ${who}.` : `${who} was not banned; logged anyway.`;
  const head = o.changed ? `Banned ${who}` : `${who} was already banned; enforced again`;
  return `${head}: ${o.sessionsEnded} session(s) ended, ${o.certificatesRevoked} VPN certificate(s) revoked, ${o.boxesStopped} box(es) stopped. Running API servers cut its sockets and tunnels now.`;
}

function line(a: StaffAction): string {
  return `${a.at}  ${a.action.padEnd(5)}  ${a.target}  by ${a.actor}${a.reason ? `: ${a.reason}` : ''}`;
}
