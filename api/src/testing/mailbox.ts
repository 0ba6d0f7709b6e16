import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on loopback that keeps what it receives, for mail tests. */
export class Mailbox {
  readonly messages: ParsedMail[] = [];
  readonly #server: SMTPServer;
  #port = 0;

  constructor() {
    this.#server = new SMTPServer({
      authOptional: true,
      // Plain SMTP on loopback: no certificate to trust.
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        simpleParser(stream).then(
          (mail) => {
            this.messages.push(mail);
            callback();
          },
          (err: Error) => callback(err),
        );
      },
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#port = (this.#server.server.address() as AddressInfo).port;
    return `smtp://127.0.0.1:${this.#port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** Waits for a message to `to` whose subject matches, received after `since` messages. */
  async waitFor(to: string, subject: RegExp, timeoutMs = 10_000): Promise<ParsedMail> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.messages.find(
        (m) => subject.test(m.subject ?? '') && addresses(m).includes(to.toLowerCase()),
      );
      if (found) {
        this.messages.splice(this.messages.indexOf(found), 1);
        return found;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no mail to ${to} matching ${subject} within ${timeoutMs} ms`);
  }

  /** Messages received for `to` so far (not consumed). */
  to(address: string): ParsedMail[] {
    return this.messages.filter((m) => addresses(m).includes(address.toLowerCase()));
  }
}

function addresses(mail: ParsedMail): string[] {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((t) => t.value.map((v) => (v.address ?? '').toLowerCase()));
}

/** The first http(s) link in the text body that contains `path`. */
export function linkIn(mail: ParsedMail, path: string): string {
  const links = (mail.text ?? '').match(/https?:\/\/\S+/g) ?? [];
  const link = links.find((l) => l.includes(path));
  if (!link) throw new Error(`no link containing ${path} in mail "${mail.subject}":\n${mail.text}`);
  return link;
}
