/** The public contact form (commerce-and-content sections 3, 5, 8; docs/contact.md). */
import { z } from 'zod';
import { emailSchema } from './auth.ts';
import {
  CONTACT_MESSAGE_MAX,
  CONTACT_MESSAGE_REQUIRED,
  CONTACT_NAME_MAX,
  CONTACT_NAME_REQUIRED,
  CONTACT_SUBJECT_MAX,
  CONTACT_SUBJECT_REQUIRED,
  INQUIRY_TYPES,
} from './contact-constants.ts';

/** One line: no control characters (a name or subject lands in a mail's header and in the staff CLI). */
const line = (max: number, required: string, what: string) =>
  z
    .string(required)
    .trim()
    .min(1, required)
    .max(max, `${what} must be at most ${max} characters`)
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, `${what} must be a single line of text`);

export const contactRequest = z
  .strictObject({
    name: line(CONTACT_NAME_MAX, CONTACT_NAME_REQUIRED, 'Name'),
    email: emailSchema,
    subject: line(CONTACT_SUBJECT_MAX, CONTACT_SUBJECT_REQUIRED, 'Subject'),
    message: z
      .string(CONTACT_MESSAGE_REQUIRED)
      .trim()
      .min(1, CONTACT_MESSAGE_REQUIRED)
      .max(CONTACT_MESSAGE_MAX, `Message must be at most ${CONTACT_MESSAGE_MAX} characters`)
      // eslint-disable-next-line no-control-regex
      .regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$/, 'Message must be plain text'),
    inquiryType: z
      .enum(INQUIRY_TYPES, `Inquiry type must be one of ${INQUIRY_TYPES.join(', ')}`)
      .default('general'),
  })
  .meta({ id: 'ContactRequest' });
export type ContactRequest = z.input<typeof contactRequest>;
