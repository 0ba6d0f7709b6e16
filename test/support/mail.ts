import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser } from 'mailparser';

/**
 * The platform without SMTP_URL writes each mail to DATA_DIR/mail/*.eml. Waits for a mail
 * to `to` and answers the first link in its text containing `fragment`.
 */
export async function linkFromMailFile(
  dataDir: string,
  to: string,
  fragment: string,
  timeoutMs = 15_000,
): Promise<string> {
  const dir = path.join(dataDir, 'mail');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const file of files.sort().reverse()) {
      const mail = await simpleParser(await readFile(path.join(dir, file)));
      const recipients = (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((a) =>
        a.value.map((v) => v.address?.toLowerCase()),
      );
      if (!recipients.includes(to.toLowerCase())) continue;
      const link = (mail.text ?? '').match(/https?:\/\/\S+/g)?.find((l) => l.includes(fragment));
      if (link) return link;
    }
    await sleep(100);
  }
  throw new Error(`no mail to ${to} with a link containing ${fragment} in ${dir}`);
}
