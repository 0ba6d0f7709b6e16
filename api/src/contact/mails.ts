import type { InquiryType } from '../contracts/index.ts';
import type { MailMessage } from '../mail/mailer.ts';
import { compose } from '../mail/templates.ts';

export const INQUIRY_LABELS: Record<InquiryType, string> = {
  general: 'General',
  technical: 'Technical',
  business: 'Business',
  press: 'Press',
};

/** The message as staff read it; Reply answers the sender. Every value is escaped by compose. */
export function contactStaffMail(
  to: string,
  message: {
    id: string;
    name: string;
    email: string;
    subject: string;
    message: string;
    inquiryType: InquiryType;
  },
): MailMessage {
  return {
    ...compose(to, `[Contact: ${INQUIRY_LABELS[message.inquiryType]}] ${message.subject}`, [
      `${message.name} <${message.email}> wrote through the contact form (${INQUIRY_LABELS[message.inquiryType]}):`,
      message.message,
      `Reply to this mail to answer them. Reference ${message.id} (make staff ARGS='contact show ${message.id}').`,
    ]),
    replyTo: message.email,
  };
}

/**
 * The sender's receipt. It repeats nothing they typed: anyone may type anyone's address into a public form,
 * and a receipt that carried the visitor's words would let them mail a stranger through the platform.
 */
export function contactReceiptMail(to: string, inquiryType: InquiryType): MailMessage {
  return compose(to, 'We received your message', [
    `Thank you for writing to Exploit Grid. Your ${INQUIRY_LABELS[inquiryType].toLowerCase()} inquiry reached our team, and we'll get back to you within 24 hours.`,
    'If you did not write to us, someone typed your address into our contact form: you can ignore this mail, and we will not write again unless you answer.',
  ]);
}
