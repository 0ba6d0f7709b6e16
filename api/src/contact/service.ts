import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClientContext } from '../auth/service.ts';
import { clientKey, mailboxKey, type Throttle } from '../auth/throttle.ts';
import type { InquiryType, contactRequest } from '../contracts/index.ts';
import type { Orm } from '../db/orm.ts';
import { Sql } from '../db/sql.ts';
import type { Logger } from '../logger.ts';
import type { Mailer } from '../mail/mailer.ts';
import { contactReceiptMail, contactStaffMail } from './mails.ts';

export type ContactMessage = ReturnType<typeof contactRequest.parse>;

/**
 * The public contact form: each message is stored first (so a mail server that is down loses nothing), then
 * mailed to the staff mailbox with the sender as Reply-To, and a receipt goes to the sender.
 */
export class ContactService {
  readonly #orm: Orm;
  readonly #mailer: Mailer;
  readonly #throttle: Throttle;
  readonly #staffEmail: string;
  readonly #log: Logger;

  constructor(deps: { orm: Orm; mailer: Mailer; throttle: Throttle; staffEmail: string; logger: Logger }) {
    this.#orm = deps.orm;
    this.#mailer = deps.mailer;
    this.#throttle = deps.throttle;
    this.#staffEmail = deps.staffEmail;
    this.#log = deps.logger.child({ component: 'contact' });
  }

  /** Stores and mails one message; answers its id. 429 past the throttles, and then nothing is stored. */
  async submit(message: ContactMessage, client: ClientContext): Promise<string> {
    // Per address of the visitor, and per address typed in: a script cannot fill the staff mailbox, nor use
    // the receipt to mail one stranger again and again.
    await this.#throttle.consume(
      ['contactIp', clientKey(client.ip)],
      ['contactSender', mailboxKey(message.email)],
    );
    const sql = new Sql(this.#orm.em.fork() as EntityManager);
    const row = await sql.one<{ id: string }>(
      `insert into contact_messages (name, email, subject, message, inquiry_type, client_ip, user_agent)
       values (?, ?, ?, ?, ?, ?, ?) returning id`,
      [
        message.name,
        message.email,
        message.subject,
        message.message,
        message.inquiryType,
        client.ip,
        client.userAgent?.slice(0, 500) ?? null,
      ],
    );
    const id = row!.id;
    this.#log.info({ contactId: id, inquiryType: message.inquiryType }, 'Stored a contact message');
    await this.#deliver(sql, id, message);
    return id;
  }

  async #deliver(
    sql: Sql,
    id: string,
    message: ContactMessage & { inquiryType: InquiryType },
  ): Promise<void> {
    const sent = async (column: 'staff_mailed_at' | 'acknowledged_at', send: () => Promise<void>) => {
      try {
        await send();
        await sql.run(`update contact_messages set ${column} = now() where id = ?`, [id]);
      } catch (err) {
        // Kept, and listed by the staff CLI as not mailed: staff still read it there.
        this.#log.error({ err, contactId: id, mail: column }, 'Could not mail a contact message');
      }
    };
    await sent('staff_mailed_at', () =>
      this.#mailer.send(contactStaffMail(this.#staffEmail, { id, ...message })),
    );
    await sent('acknowledged_at', () =>
      this.#mailer.send(contactReceiptMail(message.email, message.inquiryType)),
    );
  }
}
