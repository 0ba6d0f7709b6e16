/** /contact (commerce-and-content sections 2, 3, 5, 8). */
import type { InquiryType } from '@exploit-grid/api/contracts/contact-constants';

export const CONTACT_TITLE = 'Contact';
export const CONTACT_LEAD =
  'Questions about the arena, your account, a class or team, or a story you are writing: send us a message and a person on the team answers within 24 hours.';
export const CONTACT_DESCRIPTION =
  'Write to the Exploit Grid team: general questions, technical help, business and team accounts, press. A person answers within 24 hours.';

export const CONTACT_NAME = 'Name';
export const CONTACT_EMAIL = 'Email';
export const CONTACT_SUBJECT = 'Subject';
export const CONTACT_MESSAGE = 'Message';
export const CONTACT_INQUIRY_TYPE = 'Inquiry type';
export const CONTACT_SEND = 'Send Message';
export const CONTACT_SENDING = 'Sending…';
export const CONTACT_FAILED = 'Failed to send message. Please try again.';
export const CONTACT_EMAIL_INVALID = 'Please enter a valid email address';
export const CONTACT_EMAIL_REQUIRED = 'Email is required';

export const INQUIRY_LABELS: Record<InquiryType, string> = {
  general: 'General',
  technical: 'Technical support',
  business: 'Business and teams',
  press: 'Press',
};

export const CONTACT_SECURITY_TITLE = 'Found a vulnerability?';
export const CONTACT_SECURITY_BODY =
  'Do not send it here. Report it through the disclosure programme: it reaches the security team directly, can be encrypted, and earns a place in the hall of fame.';
export const CONTACT_SECURITY_LINK = 'Report a Vulnerability';
export const CONTACT_PRIVACY_NOTE =
  'We keep your message and the address it came from for up to 2 years, to answer you and to stop abuse, as the Privacy Policy says. You get a receipt by mail.';
export const CONTACT_PRIVACY_LINK = 'Privacy Policy';
