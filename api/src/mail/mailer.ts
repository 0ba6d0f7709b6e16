import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../logger.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The one link a person acts on; logged in file mode so `make run` works offline. */
  link?: string;
  /** Where a reply goes (a visitor's checked address on mail to staff, so staff answer with Reply). */
  replyTo?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * Sends mail through SMTP_URL; without it, writes each message as an .eml file under
 * DATA_DIR/mail and logs its link (development: no mail server needed).
 */
export function createMailer(options: {
  smtpUrl?: string;
  from: string;
  dataDir: string;
  logger: Logger;
}): Mailer {
  const log = options.logger.child({ component: 'mail' });
  if (options.smtpUrl) {
    const transport: Transporter = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(message) {
        await transport.sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          replyTo: message.replyTo,
        });
        log.info({ subject: message.subject }, 'Sent mail');
      },
      close: () => transport.close(),
    };
  }

  const dir = path.join(options.dataDir, 'mail');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail({
        from: options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        replyTo: message.replyTo,
      });
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const file = path.join(
        dir,
        `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.eml`,
      );
      await fs.writeFile(file, info.message as Buffer, { mode: 0o600 });
      log.info(
        { file, subject: message.subject, link: message.link },
        'Wrote mail to a file (no SMTP_URL set)',
      );
    },
    close: () => undefined,
  };
}
