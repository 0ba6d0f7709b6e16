/**
 * The contact form (commerce-and-content sections 3, 5, 8; docs/contact.md): the plain values, with no zod, so
 * that /contact reads them without downloading the schemas (re-exported by `constants.ts`).
 */

export const INQUIRY_TYPES = ['general', 'technical', 'business', 'press'] as const;
export type InquiryType = (typeof INQUIRY_TYPES)[number];

export const CONTACT_NAME_MAX = 100;
export const CONTACT_SUBJECT_MAX = 200;
export const CONTACT_MESSAGE_MAX = 5000;

export const CONTACT_NAME_REQUIRED = 'Name is required';
export const CONTACT_SUBJECT_REQUIRED = 'Subject is required';
export const CONTACT_MESSAGE_REQUIRED = 'Message is required';
export const CONTACT_SENT = "Message sent successfully! We'll get back to you within 24 hours.";
