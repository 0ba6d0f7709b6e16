/** The mails accounts send: plain text and HTML, the same words in both. */
import type { MailMessage } from './mailer.ts';

const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** A mail in the platform's look: the paragraphs, an optional button, the same words as plain text. */
export function compose(
  to: string,
  subject: string,
  paragraphs: string[],
  action?: { label: string; url: string },
): MailMessage {
  const text = [...paragraphs, ...(action ? [`${action.label}: ${action.url}`] : []), '-- Exploit Grid'].join(
    '\n\n',
  );
  const html = `<!doctype html><html><body style="background:#05070d;color:#e6f1ff;font-family:system-ui,sans-serif;padding:24px">
<h1 style="font-family:monospace;color:#00e5ff;font-size:20px">EXPLOIT GRID</h1>
${paragraphs.map((p) => `<p style="white-space:pre-wrap">${escape(p)}</p>`).join('\n')}
${action ? `<p><a href="${escape(action.url)}" style="display:inline-block;background:#00e5ff;color:#021016;padding:10px 18px;border-radius:6px;text-decoration:none;font-weight:700">${escape(action.label)}</a></p><p style="color:#8aa0b8;font-size:12px">Or open this address: ${escape(action.url)}</p>` : ''}
</body></html>`;
  return { to, subject, text, html, link: action?.url };
}

export function verifyEmailMail(to: string, handle: string, url: string): MailMessage {
  return compose(
    to,
    'Confirm your Exploit Grid identity',
    [
      `Operator ${handle}, confirm this address to activate your access. The link works once and expires in 24 hours.`,
    ],
    { label: 'Confirm my address', url },
  );
}

export function resetPasswordMail(to: string, handle: string, url: string): MailMessage {
  return compose(
    to,
    'Reset your Exploit Grid password',
    [
      `Operator ${handle}, someone (hopefully you) asked to reset your password. The link works once and expires in 1 hour.`,
      'If it was not you, ignore this mail: your password stays as it is.',
    ],
    { label: 'Choose a new password', url },
  );
}

export function accountExistsMail(to: string, loginUrl: string, resetUrl: string): MailMessage {
  return compose(to, 'Someone tried to sign up with your address', [
    'Someone tried to create an Exploit Grid identity with this address, which already has one.',
    `If it was you, sign in at ${loginUrl}, or reset your password at ${resetUrl}. If not, you can ignore this mail.`,
  ]);
}
