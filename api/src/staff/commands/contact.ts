import { INQUIRY_TYPES, type InquiryType } from '../../contracts/index.ts';
import {
  fail,
  logStaffAction,
  parseLimit,
  positionals,
  printable,
  stringOption,
  type StaffCommand,
} from '../cli.ts';

interface ContactRow {
  id: string;
  created_at: Date;
  name: string;
  email: string;
  subject: string;
  message: string;
  inquiry_type: InquiryType;
  client_ip: string;
  user_agent: string | null;
  staff_mailed_at: Date | null;
  acknowledged_at: Date | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** contact list and contact show: the contact form's messages (docs/contact.md). */
export const contactCommands: StaffCommand[] = [
  {
    name: 'contact list',
    usage: '[--type general|technical|business|press] [--limit <n>]',
    help: `The latest contact-form messages (default 50), newest first: id, when, type, sender, subject, and
"NOT MAILED" when the staff mail failed (read those here).`,
    options: ['type', 'limit'],
    prepare({ args, values }) {
      positionals(args, []);
      const type = stringOption(values, 'type');
      if (type !== undefined && !INQUIRY_TYPES.includes(type as InquiryType))
        fail(`--type must be one of ${INQUIRY_TYPES.join(', ')}.`);
      const limit = parseLimit(values.limit, 50);
      return async ({ db, out }) => {
        const { rows } = await db.query<ContactRow>(
          `select * from contact_messages where $1::text is null or inquiry_type = $1
            order by created_at desc, id limit $2`,
          [type ?? null, limit],
        );
        out(
          rows.length
            ? rows
                .map((r) =>
                  [
                    r.id,
                    r.created_at.toISOString(),
                    r.inquiry_type,
                    printable(`${r.name} <${r.email}>`, true),
                    printable(r.subject, true),
                    ...(r.staff_mailed_at ? [] : ['NOT MAILED']),
                  ].join('  '),
                )
                .join('\n')
            : 'No contact messages.',
        );
      };
    },
  },
  {
    name: 'contact show',
    usage: '<id> [--actor <name>]',
    help: "One contact-form message in full, with the sender's address and browser (the reading is logged).",
    options: ['actor'],
    prepare({ args }) {
      const [id] = positionals(args, ['<id>']);
      if (!UUID.test(id!)) fail('The id is the first column of contact list.');
      return async ({ db, actor, out }) => {
        const { rows } = await db.query<ContactRow>('select * from contact_messages where id = $1', [id]);
        const r = rows[0] ?? fail(`No contact message ${id}.`);
        // Reading a visitor's message and address is an access to personal data: it is logged like an action.
        await logStaffAction(db, { actor, action: 'CONTACT_READ', target: r.id });
        out(
          [
            printable(`From:     ${r.name} <${r.email}>`, true),
            `Type:     ${r.inquiry_type}`,
            printable(`Subject:  ${r.subject}`, true),
            printable(
              `Received: ${r.created_at.toISOString()} from ${r.client_ip}${r.user_agent ? ` (${r.user_agent})` : ''}`,
              true,
            ),
            `Mailed:   staff ${r.staff_mailed_at?.toISOString() ?? 'NOT MAILED'}, receipt ${r.acknowledged_at?.toISOString() ?? 'not sent'}`,
            '',
            printable(r.message),
          ].join('\n'),
        );
      };
    },
  },
];
