import type { StaffCommand } from '../cli.ts';
import { accountCommands } from './accounts.ts';
import { careerCommands } from './careers.ts';
import { contactCommands } from './contact.ts';
import { giftCommands } from './gifts.ts';
import { reportCommands } from './reports.ts';

/** Every command of the staff CLI, in the order --help lists them. A new group adds its module here. */
export const STAFF_COMMANDS: readonly StaffCommand[] = [
  ...accountCommands,
  ...giftCommands,
  ...contactCommands,
  ...careerCommands,
  ...reportCommands,
];

/**
 * Every option of the CLI, declared once (util.parseArgs): a command lists those it takes. String options
 * carry a value; boolean ones are switches.
 */
export const STAFF_OPTIONS: Record<string, { type: 'string' | 'boolean' }> = {
  actor: { type: 'string' },
  reason: { type: 'string' },
  limit: { type: 'string' },
  credits: { type: 'string' },
  count: { type: 'string' },
  expires: { type: 'string' },
  note: { type: 'string' },
  unredeemed: { type: 'boolean' },
  // Careers (careers.ts).
  file: { type: 'string' },
  all: { type: 'boolean' },
  job: { type: 'string' },
  out: { type: 'string' },
  type: { type: 'string' },
  // Vulnerability reports (reports.ts).
  status: { type: 'string' },
  severity: { type: 'string' },
  title: { type: 'string' },
  message: { type: 'string' },
  force: { type: 'boolean' },
};
